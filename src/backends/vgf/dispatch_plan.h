// The lowered form of a VGF GRAPH segment: a list of dispatches over tensor views, as pure
// data (no Vulkan objects), so lowering, fusion and memory planning are testable without a GPU.
//
// Storage: every tensor the plan touches lives in one of three places, resolved to buffers only
// when recording: a model resource (VGF resource table entry, bound by the delegate or by the
// caller in fused mode), the delegate's constant buffer, or the segment's scratch arena.
// A TensorView addresses logical TOSA dims through per-dim element strides, so a folded
// TRANSPOSE is a permuted stride vector and a broadcast operand has stride 0.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "univk/kernels/problem.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"

namespace univk::backends::vgf {

// Highest tensor rank the shaders address (views are left-padded to this rank).
inline constexpr size_t kMaxRank = 6;

enum class StorageKind : uint8_t { kResource, kConstant, kScratch };

struct StorageRef {
  StorageKind kind = StorageKind::kScratch;
  uint32_t resource = 0;     // kResource: index into VgfFile::resources
  uint64_t byte_offset = 0;  // kConstant / kScratch: offset in the constant buffer / arena
  uint64_t byte_size = 0;
  friend bool operator==(const StorageRef&, const StorageRef&) = default;
};

struct TensorView {
  StorageRef storage;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;    // logical (TOSA) dims
  std::vector<int64_t> strides;  // elements per step of each logical dim (0 = broadcast)
  int64_t offset = 0;            // elements from the start of the storage

  // Row-major packed at offset 0 (the strides of size-1 dims, never stepped, do not matter).
  bool contiguous() const;
  // Left-pads shape (with 1) and strides (with 0) to kMaxRank.
  std::vector<int64_t> padded_shape() const;
  std::vector<int64_t> padded_strides() const;
};

// The bytes of its storage a view touches, relative to the storage's start: [begin, end) from
// its first to one past its last element (strides are non-negative). An empty view touches
// one element's worth at its offset, so it still binds a valid range.
struct ByteSpan {
  uint64_t begin = 0;
  uint64_t end = 0;
};
ByteSpan view_byte_span(const TensorView& view);

// What one descriptor may cover on the device: min(maxStorageBufferRange, the
// `max_binding_bytes` option), and minStorageBufferOffsetAlignment (descriptor offsets are
// aligned down to it, so a view's binding also covers the bytes between the aligned offset and
// its first element).
struct BindingLimit {
  uint64_t max_bytes = UINT64_MAX;
  uint64_t offset_alignment = 4;
};
// Bytes the descriptor of `view` covers when its storage starts `storage_offset` bytes into
// its buffer.
uint64_t view_binding_bytes(const TensorView& view, uint64_t storage_offset, uint64_t offset_alignment);
// Whether every view fits `limit` assuming aligned storage starts (the lowering's view: scratch
// and resources start aligned; the recorder checks the real offsets again).
bool views_fit(const std::vector<TensorView>& views, const BindingLimit& limit);

// The embedded shaders (one pipeline layout each: binding 0 = params, 1 = output, 2.. = inputs).
enum class Shader : uint8_t {
  kElementwiseF32,  // fused elementwise program, float registers
  kElementwiseI32,  // fused elementwise program, int registers
  kPoolF32,         // AVG/MAX_POOL2D + elementwise epilogue
  kCopy32,          // strided copy / pad / tile of 32-bit elements
  kCopy16,
  kCopy8,
  kReduceF32,       // REDUCE_SUM / MAX / MIN / PRODUCT, ARGMAX (fp32; SUM/MAX/MIN int32)
  kReduceBool,      // REDUCE_ALL / REDUCE_ANY (8-bit storage)
  kCast,            // CAST between int8/uint8/bool/int32/fp32 (8-bit storage)
  kRescale,         // RESCALE between int8/uint8/int32 (8-bit storage)
  kTableI8,         // int8 TABLE (8-bit storage)
  kPoolI8,          // int8 AVG/MAX_POOL2D
  kElementwiseF16,  // fused elementwise program over fp16 tensors (fp32 registers)
  kPoolF16,         // fp16 AVG/MAX_POOL2D + elementwise epilogue (fp32 math)
  kCast16,          // CAST between fp32 and fp16
  kResizeF32,       // fp32 RESIZE (nearest, bilinear)
  kLogic,           // EQUAL/GREATER/GREATER_EQUAL, LOGICAL_AND/OR/XOR/NOT, SELECT (8-bit storage)
  kGather,          // GATHER of 32-bit values by int32 indices
  kScatter,         // SCATTER of 32-bit values by int32 indices (after a copy of values_in)
  kConv3dF32,       // fp32 CONV3D, direct
  kDftF32,          // fp32 FFT2D / RFFT2D as a direct DFT (two outputs)
};
const char* shader_name(Shader id);
// Bindings after params: outputs + inputs.
uint32_t shader_tensor_bindings(Shader id);

// One dispatch of a VgfBackend shader over tensor views (the VulkanBackend's
// backends::vulkan::Dispatch is the same concept for its shader library). The recorder turns it
// into a vulkan::DispatchDesc.
struct Dispatch {
  Shader shader = Shader::kElementwiseF32;
  std::string label;  // "AVG_POOL2D+SIGMOID+MUL": the TOSA operators this dispatch runs
  // Binding order: outputs[0] at binding 1, then inputs at 2, 3, ... (unused bindings up to
  // shader_tensor_bindings get a dummy buffer).
  std::vector<TensorView> outputs;
  std::vector<TensorView> inputs;
  // Shader-specific parameter words. At record time the recorder prepends one word per tensor
  // binding: the binding's base element offset (the view's offset plus the part of the storage
  // offset below the descriptor alignment).
  std::vector<uint32_t> params;
  std::vector<std::pair<uint32_t, uint32_t>> specialization;  // {constant_id, raw 32 bits}
  uint64_t work_items = 0;  // invocations needed (one per work item); a library kernel: output elements

  // A kernel-library dispatch (src/kernels) instead of a VgfBackend shader when `kernel` is set:
  // `problem` (operand offsets 0: the recorder adds each view's base offset) planned for the
  // device; `inputs` are the kernel's bindings 0, 1, 2 and 4 (input or A, weight or B, bias,
  // residual: absent ones are bound to input 0) and `scratch` its scratch arena region.
  kernels::Problem problem;
  std::optional<kernels::KernelDispatch> kernel;
  std::optional<TensorView> scratch;
};

// MODE of the elementwise shaders (specialization constant 0, elementwise.glsl): strided
// addressing through the parameter words; linear (one packed dim for every operand, the base
// words carry the offsets); linear with 4-element vector accesses, which the recorder selects
// when every base and the element count are multiples of 4 (shader_variants.h).
inline constexpr uint32_t kElementwiseModeConstant = 0;
inline constexpr uint32_t kElementwiseModeStrided = 0;
inline constexpr uint32_t kElementwiseModeLinear = 1;
inline constexpr uint32_t kElementwiseModeLinearVec4 = 2;
// Inputs the elementwise program reads (specialization constant 1).
inline constexpr uint32_t kElementwiseInputCountConstant = 1;

// pool_f32/pool_f16's specialization constants for vector access (pool.glsl): PAIR_X (a
// row's two taps per load), QUAD_X (4 outputs along ox per invocation; work_items counts
// groups of 4 while it is set), QUAD_LOAD (a row's 8 taps of those 4 outputs as two loads),
// EPILOGUE_QUAD (bit k-1: epilogue input k as one 4-vector load) and QUAD_C (4 channels of one
// output position per invocation, channels-last; work_items likewise).
inline constexpr uint32_t kPoolPairXConstant = 90;
inline constexpr uint32_t kPoolQuadXConstant = 91;
inline constexpr uint32_t kPoolQuadLoadConstant = 92;
inline constexpr uint32_t kPoolEpilogueQuadConstant = 93;
inline constexpr uint32_t kPoolQuadCConstant = 94;
// Pool windows of at most this many taps unroll (kernel sizes as specialization constants);
// larger ones loop with runtime bounds, because the compile time of an unrolled window grows
// with its tap count (to tens of seconds on a CPU driver for windows of a few hundred taps).
inline constexpr int64_t kMaxUnrolledPoolTaps = 32;

// Workgroup size of every VgfBackend shader (their local_size_x). 256 lets the memory-bound
// linear elementwise shader reach copy bandwidth on large GPUs, where 64 left it at about 80%
// (more loads in flight per group); the other shaders are not sensitive to it.
inline constexpr uint32_t kLocalSize = 256;

// Group counts {x, y} for `work_items` invocations: x capped at min(max_x, 65535), y at
// min(max_y, 65535), rows as few and as narrow as possible (less than one row of idle groups).
// The shaders run one invocation per work item (no grid-stride loop), so the recorder refuses a grid that does not
// cover `work_items` (impossible for 32-bit counts on a device with the spec's minimum limits: 65535 x 65535 x 256
// invocations).
std::array<uint32_t, 2> dispatch_grid(uint64_t work_items, uint32_t max_x, uint32_t max_y);

struct SegmentPlan {
  std::vector<Dispatch> dispatches;
  uint64_t scratch_bytes = 0;   // size of the segment's scratch arena
  uint32_t operator_count = 0;  // TOSA operators in the graph (for logs and docs)
};

}  // namespace univk::backends::vgf
