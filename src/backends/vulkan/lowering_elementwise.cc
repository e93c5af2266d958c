// Lowering of the unary and binary elementwise operators (unary.comp, binary.comp).
// A binary op with one tensor and the scalar attribute `other` runs as a unary variant.
#include <cmath>
#include <map>

#include "lowering_common.h"

namespace univk::backends::vulkan {
namespace {

// Element counts that are a multiple of 4 run 4 elements per invocation with 16-byte loads and
// stores (kUnaryVec4 in the variant; tensors start 16-byte aligned, see VulkanDelegate::record),
// which is what brings a bandwidth-bound kernel near the device's copy bandwidth.
Result<Dispatch> unary_dispatch(UnaryOp op, uint32_t n, float p0, float p1) {
  Dispatch d;
  d.shader = Shader::kUnary;
  const bool vec4 = n % 4 == 0;
  d.variant = static_cast<uint32_t>(op) | (vec4 ? kUnaryVec4 : 0u);
  d.push = {n, float_bits(p0), float_bits(p1)};  // Params { n, p0, p1 }
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(vec4 ? n / 4 : n));
  return d;
}

Result<LoweredOp> lower_unary(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Unary u, ops::unary(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  static const std::map<std::string_view, UnaryOp> kOps = {{"sigmoid", UnaryOp::kSigmoid},
                                                           {"tanh", UnaryOp::kTanh},
                                                           {"relu", UnaryOp::kRelu},
                                                           {"relu6", UnaryOp::kClamp},
                                                           {"hardtanh", UnaryOp::kClamp},
                                                           {"clamp", UnaryOp::kClamp},
                                                           {"gelu", UnaryOp::kGeluErf},
                                                           {"silu", UnaryOp::kSilu},
                                                           {"hardswish", UnaryOp::kHardswish},
                                                           {"hardsigmoid", UnaryOp::kHardsigmoid},
                                                           {"exp", UnaryOp::kExp},
                                                           {"log", UnaryOp::kLog},
                                                           {"neg", UnaryOp::kNeg},
                                                           {"abs", UnaryOp::kAbs},
                                                           {"sqrt", UnaryOp::kSqrt},
                                                           {"rsqrt", UnaryOp::kRsqrt},
                                                           {"reciprocal", UnaryOp::kReciprocal},
                                                           {"floor", UnaryOp::kFloor},
                                                           {"ceil", UnaryOp::kCeil},
                                                           {"sin", UnaryOp::kSin},
                                                           {"cos", UnaryOp::kCos}};
  UnaryOp kind = kOps.at(op);
  if (u.gelu_tanh) kind = UnaryOp::kGeluTanh;
  const float lo = static_cast<float>(u.min), hi = static_cast<float>(u.max);
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, inputs[0].shape));
  const uint32_t n = u32(inputs[0].shape.numel());
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, unary_dispatch(kind, n, lo, hi));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_scalar_binary(std::string_view op, float alpha, float other, bool scalar_first,
                                      const ComputeTensorType& x) {
  UnaryOp kind;
  float p0 = other, p1 = 0.0f;
  if (op == "add" || op == "sub") {
    const bool add = op == "add";
    if (scalar_first) {
      kind = add ? UnaryOp::kScalarAdd : UnaryOp::kScalarSub;
      p1 = alpha;
    } else {
      kind = add ? UnaryOp::kAddScalar : UnaryOp::kSubScalar;
      p0 = alpha * other;  // float product, as the reference computes alpha * y
    }
  } else if (op == "mul") {
    kind = UnaryOp::kMulScalar;
  } else if (op == "div") {
    kind = scalar_first ? UnaryOp::kScalarDiv : UnaryOp::kDivScalar;
  } else if (op == "maximum") {
    kind = UnaryOp::kMaxScalar;
  } else if (op == "minimum") {
    kind = UnaryOp::kMinScalar;
  } else {
    kind = scalar_first ? UnaryOp::kScalarPow : UnaryOp::kPowScalar;
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, x.shape));
  const uint32_t n = u32(x.shape.numel());
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, unary_dispatch(kind, n, p0, p1));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_binary(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Binary bin, ops::binary(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  const float alpha = static_cast<float>(bin.alpha);
  if (bin.has_scalar) {
    return lower_scalar_binary(op, alpha, static_cast<float>(bin.other), bin.scalar_first, inputs[0]);
  }
  const Shape& shape = bin.output;
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, shape));
  const StridedLayout layout =
      coalesce(shape.dims(), {broadcast_strides(inputs[0].shape, shape), broadcast_strides(inputs[1].shape, shape),
                              shape.contiguous_strides()});
  if (layout.dims.size() > kMaxRank) {
    return unsupported("broadcast of " + inputs[0].shape.to_string() + " and " + inputs[1].shape.to_string() +
                       " needs more than " + std::to_string(kMaxRank) + " dims");
  }
  static const std::map<std::string_view, BinaryOp> kOps = {
      {"add", BinaryOp::kAdd}, {"sub", BinaryOp::kSub},         {"mul", BinaryOp::kMul},
      {"div", BinaryOp::kDiv}, {"maximum", BinaryOp::kMaximum}, {"minimum", BinaryOp::kMinimum},
      {"pow", BinaryOp::kPow}};
  const uint32_t n = u32(shape.numel());
  Dispatch d;
  d.shader = Shader::kBinary;
  d.variant = static_cast<uint32_t>(kOps.at(op));
  // Params { n, rank, alpha, pad, dims[6], a_strides[6], b_strides[6] }
  d.push = {n, u32(static_cast<int64_t>(layout.dims.size())), float_bits(alpha), 0};
  for (const auto* list : {&layout.dims, &layout.strides[0], &layout.strides[1]}) {
    for (uint32_t i = 0; i < kMaxRank; ++i) d.push.push_back(i < list->size() ? u32((*list)[i]) : 0);
  }
  d.bindings = {Operand::input(0), Operand::input(1), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(n));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

}  // namespace

LowerTable elementwise_lowerings() {
  LowerTable t;
  for (std::string_view name : ops::unary_op_names()) t.emplace_back(name, lower_unary);
  for (std::string_view name : ops::binary_op_names()) t.emplace_back(name, lower_binary);
  return t;
}

}  // namespace univk::backends::vulkan
