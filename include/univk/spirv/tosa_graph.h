// TOSA 1.0 graphs and their SPIR-V encoding (SPV_ARM_tensors + SPV_ARM_graph + the
// "TOSA.001000.1" extended instruction set), shared by the compiler (writer) and the
// VgfBackend (reader).
//
// CONVENTION (shared with univk::reference::run_tosa and the compiler):
//  - Operator names are the grammar opnames ("AVG_POOL2D"), see tosa_op_name().
//  - FFT2D and RFFT2D have two results (output_real, output_imag): TosaOperation::outputs in
//    that order; in SPIR-V the instruction's result is an OpTypeStruct of the two tensor types
//    and each member is taken out with OpCompositeExtract (the only use of the struct).
//  - The "data" operands of a TOSA instruction (grammar names input, input1, input2, input3, A,
//    B, weight, bias, table, values, indices, values_in, input_real, input_imag) are graph
//    values: TosaOperation::inputs, in grammar order (CONCAT: all its inputs).
//  - Every other operand is a constant and becomes an Attribute named like the grammar operand
//    in lowercase (kernel, stride, pad, dilation, acc_type, nan_mode, axis, min_val, max_val,
//    shift, perms, start, size, padding, pad_const, multiples, shape, input_zp, weight_zp,
//    output_zp, a_zp, b_zp, input1_zp, scale32, rounding_mode, per_channel, input_unsigned,
//    output_unsigned, multiplier, local_bound):
//      booleans, enums and integer scalars -> int64;
//      zero points, MUL shift, min_val/max_val, pad_const -> int64 for integer element types,
//        double for float element types (zero points/pad_const are [1] tensors in SPIR-V);
//      kernel/stride/pad/dilation/perms/shape/start/size/padding/multiples -> int list;
//      RESCALE multiplier/shift (per channel) -> int list.
//    The element type of a typed attribute comes from the operand it describes: input_zp and
//    pad_const/min_val/max_val from the first data input, weight_zp from the weight, a_zp/b_zp
//    from A/B, output_zp from the output; RESCALE multiplier is int32 when scale32 else int16.
//
// Ownership: TosaGraph owns everything it holds (constant bytes are copied in and out).
// Errors: InvalidArgument naming the instruction (word offset) and the problem; Unsupported for
// valid SPIR-V that univk does not handle (an operator outside the supported list, multiple
// results other than FFT2D's and RFFT2D's, dynamic shapes).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/dtype.h"

namespace univk::spirv {

// Opcodes of the TOSA.001000.1 extended instruction set (values from its grammar).
enum class TosaOp : uint32_t {
  kArgmax = 0,
  kAvgPool2d = 1,
  kConv2d = 2,
  kConv3d = 3,
  kDepthwiseConv2d = 4,
  kFft2d = 5,
  kMatmul = 6,
  kMaxPool2d = 7,
  kRfft2d = 8,
  kTransposeConv2d = 9,
  kClamp = 10,
  kErf = 11,
  kSigmoid = 12,
  kTanh = 13,
  kAdd = 14,
  kArithmeticRightShift = 15,
  kBitwiseAnd = 16,
  kBitwiseOr = 17,
  kBitwiseXor = 18,
  kIntdiv = 19,
  kLogicalAnd = 20,
  kLogicalLeftShift = 21,
  kLogicalRightShift = 22,
  kLogicalOr = 23,
  kLogicalXor = 24,
  kMaximum = 25,
  kMinimum = 26,
  kMul = 27,
  kPow = 28,
  kSub = 29,
  kTable = 30,
  kAbs = 31,
  kBitwiseNot = 32,
  kCeil = 33,
  kClz = 34,
  kCos = 35,
  kExp = 36,
  kFloor = 37,
  kLog = 38,
  kLogicalNot = 39,
  kNegate = 40,
  kReciprocal = 41,
  kRsqrt = 42,
  kSin = 43,
  kSelect = 44,
  kEqual = 45,
  kGreater = 46,
  kGreaterEqual = 47,
  kReduceAll = 48,
  kReduceAny = 49,
  kReduceMax = 50,
  kReduceMin = 51,
  kReduceProduct = 52,
  kReduceSum = 53,
  kConcat = 54,
  kPad = 55,
  kReshape = 56,
  kReverse = 57,
  kSlice = 58,
  kTile = 59,
  kTranspose = 60,
  kGather = 61,
  kScatter = 62,
  kResize = 63,
  kCast = 64,
  kRescale = 65,
};
inline constexpr uint32_t kTosaOpCount = 66;

// TOSA 1.0 enum values used by attributes.
inline constexpr int64_t kAccInt32 = 1, kAccFp16 = 2, kAccFp32 = 3, kAccInt48 = 4;
inline constexpr int64_t kRoundingSingle = 1, kRoundingInexact = 2, kRoundingDouble = 3;
inline constexpr int64_t kNanPropagate = 1, kNanIgnore = 2;

inline constexpr const char* kTosaExtInstSetName = "TOSA.001000.1";

std::string_view tosa_op_name(TosaOp op);  // "AVG_POOL2D"; "" for a value outside the enum
std::optional<TosaOp> tosa_op_from_name(std::string_view name);
std::optional<TosaOp> tosa_op_from_opcode(uint32_t opcode);
// True for the operators read_tosa_graph / write_tosa_graph handle (docs/FORMATS.md).
bool is_supported_tosa_op(TosaOp op);
std::vector<TosaOp> supported_tosa_ops();

// Element types: fp32, fp16, int8, int16, int32, bool (and int64 for TOSA's int48).
struct TosaTensorType {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // static, rank >= 1 (SPIR-V tensors have no rank 0)
  friend bool operator==(const TosaTensorType&, const TosaTensorType&) = default;
  int64_t element_count() const;
};
std::string to_string(const TosaTensorType& type);  // "float32[1,8,8,3]"

using ValueId = uint32_t;  // index into TosaGraph::values

enum class ValueKind : uint8_t {
  kGraphInput,     // OpGraphInputARM; bound through TosaGraph::inputs
  kConstant,       // inline constant (OpConstantComposite / OpConstantNull): `data` holds it
  kGraphConstant,  // OpGraphConstantARM: data supplied at pipeline creation (VGF constants)
  kOperation,      // result of TosaGraph::operations[producer]
};

struct TosaValue {
  ValueKind kind = ValueKind::kOperation;
  TosaTensorType type;
  // kConstant: row-major element bytes (little endian, dtype_size each, bool = 1 byte 0/1).
  // kGraphConstant: optional bytes the caller keeps here for convenience (the compiler puts
  // them in the VGF constants section); never written to SPIR-V, empty after reading.
  std::vector<uint8_t> data;
  uint32_t graph_constant_id = 0;  // kGraphConstant
  uint32_t producer = 0;           // kOperation: index into TosaGraph::operations
};

struct TosaOperation {
  TosaOp op = TosaOp::kAdd;
  std::vector<ValueId> inputs;   // data operands in grammar order
  std::vector<ValueId> outputs;  // one result; two for FFT2D and RFFT2D (real, imaginary)
  Attributes attrs;
};

// A graph input or output: the value and the interface variable's decorations.
struct GraphBinding {
  ValueId value = 0;
  uint32_t descriptor_set = 0;
  uint32_t binding = 0;
};

struct TosaGraph {
  std::string entry_point = "main";  // the OpGraphEntryPointARM name
  std::vector<TosaValue> values;
  std::vector<GraphBinding> inputs;       // graph input i: values[inputs[i].value] is kGraphInput
  std::vector<TosaOperation> operations;  // topological order
  std::vector<GraphBinding> outputs;

  // Builders (append and return the new value's id).
  ValueId add_input(TosaTensorType type, uint32_t descriptor_set, uint32_t binding);
  ValueId add_constant(TosaTensorType type, std::vector<uint8_t> data);
  ValueId add_graph_constant(TosaTensorType type, uint32_t graph_constant_id, std::vector<uint8_t> data = {});
  // Appends an operation with one result of type `output_type`; returns the result's id.
  ValueId add_operation(TosaOp op, std::vector<ValueId> inputs, Attributes attrs, TosaTensorType output_type);
  // Appends an operation with one result per type (FFT2D, RFFT2D); returns their ids in order.
  std::vector<ValueId> add_operation(TosaOp op, std::vector<ValueId> inputs, Attributes attrs,
                                     std::vector<TosaTensorType> output_types);
  void add_output(ValueId value, uint32_t descriptor_set, uint32_t binding);
};

// Parses a SPIR-V module holding one graph (OpGraphARM) of TOSA.001000.1 instructions.
// Checks the module header, the logical section order, ids defined before use (except the
// graph id named by OpGraphEntryPointARM and decoration targets), operand counts and types,
// interface variable decorations, and every word bound.
Result<TosaGraph> read_tosa_graph(std::span<const uint32_t> spirv_words);

// Writes `graph` as a SPIR-V 1.6 module (capabilities Shader, VulkanMemoryModel, Int8, Int16,
// Int64, Float16, TensorsARM, GraphARM as needed). Validates value ids, operand types and
// attributes first. Constants of kind kConstant are inlined; kGraphConstant become
// OpGraphConstantARM with their id. The header's generator word is univk's (docs/FORMATS.md).
// When the environment variable UNIVK_SPIRV_DUMP_DIR is set, the module is also written to that
// folder as <hash>.spv (an error when that fails), so every module a run writes can be checked
// with spirv-val (docs/VGF_BACKEND.md).
Result<std::vector<uint32_t>> write_tosa_graph(const TosaGraph& graph);

}  // namespace univk::spirv
