// Lowering of one PyTorch-semantics operator to shader dispatches, without Vulkan: checks the
// attributes and input types, infers the output type and describes each dispatch (which
// shader, which variant, push-constant words, which operands to bind, how many workgroups).
// Shared by vulkan_backend_check (the partitioner's question) and the backend's planner, so
// "supported" means exactly "the planner can lower it".
//
// The push-constant layouts below must match the `Params` blocks of the shaders in shaders/.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/kernels/problem.h"
#include "univk/kernels/split.h"

namespace univk::backends::vulkan {

// One shader of the library (src/backends/vulkan/shaders/<name>.comp); convolutions and matrix
// products run the kernel library's kernels.
enum class Shader : uint8_t {
  kUnary,
  kBinary,
  kStridedCopy,
  kPool2d,
  kSoftmax,
  kReduce,
  kLayerNorm,
  kBatchNorm,
  kPad,
  kUpsample,
  kLogic,
  kSelect,
  kGather,
  kAlongDim,
};
inline constexpr int kShaderCount = 14;
const char* shader_name(Shader shader);
uint32_t shader_binding_count(Shader shader);

// Spec constant 0 of unary.comp: the UnaryOp in the low 16 bits, or'ed with kUnaryVec4 for the
// 4-elements-per-invocation form.
inline constexpr uint32_t kUnaryVec4 = 1u << 16;
enum class UnaryOp : uint32_t {
  kSigmoid = 0,
  kTanh,
  kRelu,
  kClamp,
  kGeluErf,
  kGeluTanh,
  kSilu,
  kHardswish,
  kHardsigmoid,
  kExp,
  kLog,
  kNeg,
  kAbs,
  kSqrt,
  kRsqrt,
  kReciprocal,
  // A tensor and a scalar: p0/p1 are push constants.
  kAddScalar,  // x + p0             (p0 = alpha * other)
  kSubScalar,  // x - p0             (p0 = alpha * other)
  kScalarAdd,  // p0 + p1 * x        (other + alpha * x)
  kScalarSub,  // p0 - p1 * x
  kMulScalar,  // x * p0
  kDivScalar,  // x / p0
  kScalarDiv,  // p0 / x
  kMaxScalar,  // maximum(x, p0)
  kMinScalar,  // minimum(x, p0)
  kPowScalar,  // pow(x, p0)
  kScalarPow,  // pow(p0, x)
  kFloor,
  kCeil,
  kSin,
  kCos,
};
// Spec constant 0 of binary.comp.
enum class BinaryOp : uint32_t { kAdd = 0, kSub, kMul, kDiv, kMaximum, kMinimum, kPow };
// Spec constant 0 of logic.comp: the LogicOp in the low 8 bits, or'ed with kLogicScalar when
// operand b is the push-constant scalar (and kLogicScalarFirst when it is the left operand).
enum class LogicOp : uint32_t { kEq = 0, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kNot, kXor };
inline constexpr uint32_t kLogicScalar = 1u << 8;
inline constexpr uint32_t kLogicScalarFirst = 1u << 9;

inline constexpr uint32_t kMaxRank = 6;            // strided shaders take at most this many dims
inline constexpr uint32_t kWorkgroupSize = 256;    // threads per workgroup of 1-d shaders
inline constexpr uint32_t kMaxGroupCount = 65535;  // guaranteed maxComputeWorkGroupCount per dim

// An operand of a dispatch: one of the op's inputs, its output, or scratch memory of a
// kernel-library dispatch (KernelDispatch::scratch_bytes, planned in the arena for the op).
struct Operand {
  enum Kind : uint8_t { kInput, kOutput, kScratch } kind = kInput;
  uint32_t index = 0;  // input index (kInput)
  static Operand input(uint32_t i) { return {kInput, i}; }
  static Operand output() { return {kOutput, 0}; }
  static Operand scratch() { return {kScratch, 0}; }
};

// A dispatch of one of this backend's shaders, or (when `kernel` is set) of a kernel-library
// kernel, whose shader, push constants and groups come from `kernel`.
struct Dispatch {
  Shader shader = Shader::kUnary;
  uint32_t variant = 0;           // specialization constant 0
  std::vector<uint32_t> push;     // push-constant words (floats as bit patterns)
  std::vector<Operand> bindings;  // binding i of set 0; the output is always written
  std::array<uint32_t, 3> groups{1, 1, 1};
  // Writes a part of the output that no other dispatch of the same op writes (cat), so no
  // write-after-write barrier is needed between them.
  bool disjoint_write = false;
  // A kernel-library dispatch: the whole problem, which plan_graph cuts into pieces for the
  // device's binding limit (kernels/split.h) and plans for the device; lowering plans it for the
  // spec's minimum limits, which every device meets, so "supported" does not depend on the
  // device.
  kernels::Problem problem;
  // One piece of `problem` planned (after lowering: the first piece at the minimum limits; after
  // plan_graph: its own piece for the device), and the element windows of the operands its
  // bindings 0..4 cover.
  std::optional<kernels::KernelDispatch> kernel;
  std::array<kernels::ElementWindow, kernels::kOperandBindings> windows{};
};

// A kernel-library dispatch of `problem` (its pieces planned with `traits`, the first kept);
// bindings follow the library's order (input/A, weight/B, bias, output, residual, scratch).
Result<Dispatch> kernel_dispatch(kernels::Problem problem, std::vector<Operand> bindings,
                                 const kernels::DeviceTraits& traits = {});
// One dispatch per piece of `whole`'s problem, planned with `traits`.
Result<std::vector<Dispatch>> kernel_pieces(const Dispatch& whole, const kernels::DeviceTraits& traits);

struct LoweredOp {
  ComputeTensorType output;
  // Reshape-likes: the output is the input's bytes under a new shape; no dispatch.
  bool alias_of_input = false;
  std::vector<Dispatch> dispatches;  // in order; later ones may depend on earlier ones' output
};

Result<LoweredOp> lower_op(std::string_view op, const Attributes& attrs, std::span<const ComputeTensorType> inputs);

// A contiguous copy of `words` 32-bit words from input 0 to the output (used when a
// reshape-like's result must land in a graph output buffer).
Dispatch contiguous_copy(uint32_t words);

const std::vector<std::string>& lowered_op_names();  // sorted

}  // namespace univk::backends::vulkan
