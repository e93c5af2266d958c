// TOSA operator names, the supported subset and its operand tables.
#include <array>
#include <string>

#include "tosa_operands.h"

namespace univk::spirv {
namespace {

constexpr std::array<std::string_view, kTosaOpCount> kNames = {
    "ARGMAX",
    "AVG_POOL2D",
    "CONV2D",
    "CONV3D",
    "DEPTHWISE_CONV2D",
    "FFT2D",
    "MATMUL",
    "MAX_POOL2D",
    "RFFT2D",
    "TRANSPOSE_CONV2D",
    "CLAMP",
    "ERF",
    "SIGMOID",
    "TANH",
    "ADD",
    "ARITHMETIC_RIGHT_SHIFT",
    "BITWISE_AND",
    "BITWISE_OR",
    "BITWISE_XOR",
    "INTDIV",
    "LOGICAL_AND",
    "LOGICAL_LEFT_SHIFT",
    "LOGICAL_RIGHT_SHIFT",
    "LOGICAL_OR",
    "LOGICAL_XOR",
    "MAXIMUM",
    "MINIMUM",
    "MUL",
    "POW",
    "SUB",
    "TABLE",
    "ABS",
    "BITWISE_NOT",
    "CEIL",
    "CLZ",
    "COS",
    "EXP",
    "FLOOR",
    "LOG",
    "LOGICAL_NOT",
    "NEGATE",
    "RECIPROCAL",
    "RSQRT",
    "SIN",
    "SELECT",
    "EQUAL",
    "GREATER",
    "GREATER_EQUAL",
    "REDUCE_ALL",
    "REDUCE_ANY",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "REDUCE_PRODUCT",
    "REDUCE_SUM",
    "CONCAT",
    "PAD",
    "RESHAPE",
    "REVERSE",
    "SLICE",
    "TILE",
    "TRANSPOSE",
    "GATHER",
    "SCATTER",
    "RESIZE",
    "CAST",
    "RESCALE",
};

}  // namespace

std::string_view tosa_op_name(TosaOp op) {
  const auto i = static_cast<uint32_t>(op);
  return i < kTosaOpCount ? kNames[i] : std::string_view();
}

std::optional<TosaOp> tosa_op_from_name(std::string_view name) {
  for (uint32_t i = 0; i < kTosaOpCount; ++i) {
    if (kNames[i] == name) return static_cast<TosaOp>(i);
  }
  return std::nullopt;
}

std::optional<TosaOp> tosa_op_from_opcode(uint32_t opcode) {
  if (opcode >= kTosaOpCount) return std::nullopt;
  return static_cast<TosaOp>(opcode);
}

namespace detail {
namespace {

using K = OperandKind;
using T = TypeSource;

constexpr OperandSpec kUnary[] = {{"input", K::kData}};
constexpr OperandSpec kUnary1[] = {{"input1", K::kData}};
constexpr OperandSpec kBinary[] = {{"input1", K::kData}, {"input2", K::kData}};
constexpr OperandSpec kTernary[] = {{"input1", K::kData}, {"input2", K::kData}, {"input3", K::kData}};
constexpr OperandSpec kRightShift[] = {{"round", K::kBool}, {"input1", K::kData}, {"input2", K::kData}};
constexpr OperandSpec kGather[] = {{"values", K::kData}, {"indices", K::kData}};
constexpr OperandSpec kBinaryNan[] = {{"nan_mode", K::kI32}, {"input1", K::kData}, {"input2", K::kData}};
constexpr OperandSpec kArgmax[] = {{"axis", K::kI32}, {"nan_mode", K::kI32}, {"input", K::kData}};
constexpr OperandSpec kAvgPool[] = {{"kernel", K::kI32List},
                                    {"stride", K::kI32List},
                                    {"pad", K::kI32List},
                                    {"acc_type", K::kI32},
                                    {"input", K::kData},
                                    {"input_zp", K::kElemTensor1, T::kInput0},
                                    {"output_zp", K::kElemTensor1, T::kOutput}};
constexpr OperandSpec kConv[] = {{"pad", K::kI32List},
                                 {"stride", K::kI32List},
                                 {"dilation", K::kI32List},
                                 {"acc_type", K::kI32},
                                 {"local_bound", K::kBool},
                                 {"input", K::kData},
                                 {"weight", K::kData},
                                 {"bias", K::kData},
                                 {"input_zp", K::kElemTensor1, T::kInput0},
                                 {"weight_zp", K::kElemTensor1, T::kInput1}};
constexpr OperandSpec kTransposeConv[] = {{"out_pad", K::kI32List},
                                          {"stride", K::kI32List},
                                          {"acc_type", K::kI32},
                                          {"local_bound", K::kBool},
                                          {"input", K::kData},
                                          {"weight", K::kData},
                                          {"bias", K::kData},
                                          {"input_zp", K::kElemTensor1, T::kInput0},
                                          {"weight_zp", K::kElemTensor1, T::kInput1}};
constexpr OperandSpec kMatmul[] = {
    {"A", K::kData}, {"B", K::kData}, {"a_zp", K::kElemTensor1, T::kInput0}, {"b_zp", K::kElemTensor1, T::kInput1}};
constexpr OperandSpec kMaxPool[] = {
    {"kernel", K::kI32List}, {"stride", K::kI32List}, {"pad", K::kI32List}, {"nan_mode", K::kI32}, {"input", K::kData}};
constexpr OperandSpec kClamp[] = {{"min_val", K::kElemScalar, T::kInput0},
                                  {"max_val", K::kElemScalar, T::kInput0},
                                  {"nan_mode", K::kI32},
                                  {"input", K::kData}};
constexpr OperandSpec kMul[] = {{"input1", K::kData}, {"input2", K::kData}, {"shift", K::kElemTensor1, T::kInt8}};
constexpr OperandSpec kTable[] = {{"input1", K::kData}, {"table", K::kData}};
constexpr OperandSpec kNegate[] = {
    {"input1", K::kData}, {"input1_zp", K::kElemTensor1, T::kInput0}, {"output_zp", K::kElemTensor1, T::kOutput}};
constexpr OperandSpec kReduce[] = {{"axis", K::kI32}, {"input", K::kData}};
constexpr OperandSpec kReduceNan[] = {{"axis", K::kI32}, {"nan_mode", K::kI32}, {"input", K::kData}};
constexpr OperandSpec kConcat[] = {{"axis", K::kI32}, {"input1", K::kData}};
constexpr OperandSpec kPad[] = {
    {"input1", K::kData}, {"padding", K::kI32List}, {"pad_const", K::kElemTensor1, T::kInput0}};
constexpr OperandSpec kReshape[] = {{"input1", K::kData}, {"shape", K::kI32List}};
constexpr OperandSpec kSlice[] = {{"input1", K::kData}, {"start", K::kI32List}, {"size", K::kI32List}};
constexpr OperandSpec kTile[] = {{"input1", K::kData}, {"multiples", K::kI32List}};
constexpr OperandSpec kResize[] = {
    {"mode", K::kI32}, {"input", K::kData}, {"scale", K::kI32List}, {"offset", K::kI32List}, {"border", K::kI32List}};
constexpr OperandSpec kTranspose[] = {{"perms", K::kI32List}, {"input1", K::kData}};
constexpr OperandSpec kReverse[] = {{"axis", K::kI32}, {"input1", K::kData}};
constexpr OperandSpec kScatter[] = {{"values_in", K::kData}, {"indices", K::kData}, {"input", K::kData}};
constexpr OperandSpec kFft2d[] = {
    {"inverse", K::kBool}, {"local_bound", K::kBool}, {"input_real", K::kData}, {"input_imag", K::kData}};
constexpr OperandSpec kRfft2d[] = {{"local_bound", K::kBool}, {"input_real", K::kData}};
constexpr OperandSpec kRescale[] = {{"scale32", K::kBool},
                                    {"rounding_mode", K::kI32},
                                    {"per_channel", K::kBool},
                                    {"input_unsigned", K::kBool},
                                    {"output_unsigned", K::kBool},
                                    {"input", K::kData},
                                    {"multiplier", K::kElemList, T::kMultiplier},
                                    {"shift", K::kElemList, T::kInt8},
                                    {"input_zp", K::kElemTensor1, T::kInput0},
                                    {"output_zp", K::kElemTensor1, T::kOutput}};

const OpSpec kSpecs[] = {
    {TosaOp::kAvgPool2d, kAvgPool},
    {TosaOp::kMaxPool2d, kMaxPool},
    {TosaOp::kConv2d, kConv},
    {TosaOp::kDepthwiseConv2d, kConv},
    {TosaOp::kTransposeConv2d, kTransposeConv},
    {TosaOp::kMatmul, kMatmul},
    {TosaOp::kAdd, kBinary},
    {TosaOp::kSub, kBinary},
    {TosaOp::kMul, kMul},
    {TosaOp::kSigmoid, kUnary},
    {TosaOp::kTanh, kUnary},
    {TosaOp::kClamp, kClamp},
    {TosaOp::kExp, kUnary1},
    {TosaOp::kLog, kUnary1},
    {TosaOp::kAbs, kUnary1},
    {TosaOp::kNegate, kNegate},
    {TosaOp::kReciprocal, kUnary1},
    {TosaOp::kRsqrt, kUnary1},
    {TosaOp::kPow, kBinary},
    {TosaOp::kErf, kUnary},
    {TosaOp::kMaximum, kBinaryNan},
    {TosaOp::kMinimum, kBinaryNan},
    {TosaOp::kReduceSum, kReduce},
    {TosaOp::kReduceMax, kReduceNan},
    {TosaOp::kArgmax, kArgmax},
    {TosaOp::kReshape, kReshape},
    {TosaOp::kTranspose, kTranspose},
    {TosaOp::kConcat, kConcat, true},
    {TosaOp::kSlice, kSlice},
    {TosaOp::kPad, kPad},
    {TosaOp::kTile, kTile},
    {TosaOp::kResize, kResize},
    {TosaOp::kCast, kUnary},
    {TosaOp::kRescale, kRescale},
    {TosaOp::kTable, kTable},
    {TosaOp::kEqual, kBinary},
    {TosaOp::kGreater, kBinary},
    {TosaOp::kGreaterEqual, kBinary},
    {TosaOp::kLogicalAnd, kBinary},
    {TosaOp::kLogicalOr, kBinary},
    {TosaOp::kLogicalNot, kUnary1},
    {TosaOp::kSelect, kTernary},
    {TosaOp::kGather, kGather},
    {TosaOp::kReverse, kReverse},
    {TosaOp::kScatter, kScatter},
    {TosaOp::kConv3d, kConv},
    {TosaOp::kFft2d, kFft2d, false, 2},
    {TosaOp::kRfft2d, kRfft2d, false, 2},
    {TosaOp::kArithmeticRightShift, kRightShift},
    {TosaOp::kBitwiseAnd, kBinary},
    {TosaOp::kBitwiseOr, kBinary},
    {TosaOp::kBitwiseXor, kBinary},
    {TosaOp::kBitwiseNot, kUnary1},
    {TosaOp::kIntdiv, kBinary},
    {TosaOp::kLogicalLeftShift, kBinary},
    {TosaOp::kLogicalRightShift, kBinary},
    {TosaOp::kLogicalXor, kBinary},
    {TosaOp::kClz, kUnary1},
    {TosaOp::kCeil, kUnary1},
    {TosaOp::kFloor, kUnary1},
    {TosaOp::kSin, kUnary1},
    {TosaOp::kCos, kUnary1},
    {TosaOp::kReduceMin, kReduceNan},
    {TosaOp::kReduceProduct, kReduce},
    {TosaOp::kReduceAll, kReduce},
    {TosaOp::kReduceAny, kReduce},
};

}  // namespace

const OpSpec* find_op_spec(TosaOp op) {
  for (const OpSpec& s : kSpecs) {
    if (s.op == op) return &s;
  }
  return nullptr;
}

}  // namespace detail

bool is_supported_tosa_op(TosaOp op) { return detail::find_op_spec(op) != nullptr; }

std::vector<TosaOp> supported_tosa_ops() {
  std::vector<TosaOp> ops;
  for (uint32_t i = 0; i < kTosaOpCount; ++i) {
    if (is_supported_tosa_op(static_cast<TosaOp>(i))) ops.push_back(static_cast<TosaOp>(i));
  }
  return ops;
}

int64_t TosaTensorType::element_count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string to_string(const TosaTensorType& type) {
  std::string s(dtype_name(type.dtype));
  s += "[";
  for (size_t i = 0; i < type.shape.size(); ++i) s += (i ? "," : "") + std::to_string(type.shape[i]);
  return s + "]";
}

ValueId TosaGraph::add_input(TosaTensorType type, uint32_t descriptor_set, uint32_t binding) {
  TosaValue v;
  v.kind = ValueKind::kGraphInput;
  v.type = std::move(type);
  values.push_back(std::move(v));
  const auto id = static_cast<ValueId>(values.size() - 1);
  inputs.push_back({id, descriptor_set, binding});
  return id;
}

ValueId TosaGraph::add_constant(TosaTensorType type, std::vector<uint8_t> data) {
  TosaValue v;
  v.kind = ValueKind::kConstant;
  v.type = std::move(type);
  v.data = std::move(data);
  values.push_back(std::move(v));
  return static_cast<ValueId>(values.size() - 1);
}

ValueId TosaGraph::add_graph_constant(TosaTensorType type, uint32_t graph_constant_id, std::vector<uint8_t> data) {
  TosaValue v;
  v.kind = ValueKind::kGraphConstant;
  v.type = std::move(type);
  v.graph_constant_id = graph_constant_id;
  v.data = std::move(data);
  values.push_back(std::move(v));
  return static_cast<ValueId>(values.size() - 1);
}

ValueId TosaGraph::add_operation(TosaOp op, std::vector<ValueId> op_inputs, Attributes attrs,
                                 TosaTensorType output_type) {
  TosaValue v;
  v.kind = ValueKind::kOperation;
  v.type = std::move(output_type);
  v.producer = static_cast<uint32_t>(operations.size());
  values.push_back(std::move(v));
  const auto id = static_cast<ValueId>(values.size() - 1);
  operations.push_back({op, std::move(op_inputs), {id}, std::move(attrs)});
  return id;
}

std::vector<ValueId> TosaGraph::add_operation(TosaOp op, std::vector<ValueId> op_inputs, Attributes attrs,
                                              std::vector<TosaTensorType> output_types) {
  TosaOperation operation{op, std::move(op_inputs), {}, std::move(attrs)};
  for (TosaTensorType& type : output_types) {
    TosaValue v;
    v.kind = ValueKind::kOperation;
    v.type = std::move(type);
    v.producer = static_cast<uint32_t>(operations.size());
    values.push_back(std::move(v));
    operation.outputs.push_back(static_cast<ValueId>(values.size() - 1));
  }
  operations.push_back(std::move(operation));
  return operations.back().outputs;
}

void TosaGraph::add_output(ValueId value, uint32_t descriptor_set, uint32_t binding) {
  outputs.push_back({value, descriptor_set, binding});
}

}  // namespace univk::spirv
