// PyTorch unary and binary elementwise operators (fp32). Binary ops broadcast two tensors or
// take one tensor and a scalar attribute `other` (right operand unless scalar_first=1).
#include <cmath>

#include "common.h"

namespace univk::reference::detail {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
// Clamp that lets NaN through, as PyTorch's clamp/hardtanh/relu do.
float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

Result<Tensors> unary(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Unary u, ops::unary(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const float lo = static_cast<float>(u.min), hi = static_cast<float>(u.max);
  const bool tanh_gelu = u.gelu_tanh;
  const HostTensor& x = inputs[0];
  HostTensor out(DType::kFloat32, x.shape());
  auto in = x.data<float>();
  auto o = out.data<float>();
  // Select the scalar function once, then run a tight loop.
  auto apply = [&](auto fn) {
    for (size_t i = 0; i < in.size(); ++i) o[i] = fn(in[i]);
  };
  if (op == "sigmoid")
    apply([](float v) { return sigmoid(v); });
  else if (op == "tanh")
    apply([](float v) { return std::tanh(v); });
  else if (op == "relu")
    apply([](float v) { return v < 0.0f ? 0.0f : v; });
  else if (op == "relu6")
    apply([](float v) { return clampf(v, 0.0f, 6.0f); });
  else if (op == "hardtanh" || op == "clamp")
    apply([&](float v) { return clampf(v, lo, hi); });
  else if (op == "gelu" && tanh_gelu) {
    apply([](float v) {
      const float k = 0.7978845608028654f;  // sqrt(2/pi)
      return 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
    });
  } else if (op == "gelu")
    apply([](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f)); });
  else if (op == "silu")
    apply([](float v) { return v * sigmoid(v); });
  else if (op == "hardswish")
    apply([](float v) { return v * clampf(v + 3.0f, 0.0f, 6.0f) / 6.0f; });
  else if (op == "hardsigmoid")
    apply([](float v) { return clampf(v + 3.0f, 0.0f, 6.0f) / 6.0f; });
  else if (op == "exp")
    apply([](float v) { return std::exp(v); });
  else if (op == "log")
    apply([](float v) { return std::log(v); });
  else if (op == "neg")
    apply([](float v) { return -v; });
  else if (op == "abs")
    apply([](float v) { return std::fabs(v); });
  else if (op == "sqrt")
    apply([](float v) { return std::sqrt(v); });
  else if (op == "rsqrt")
    apply([](float v) { return 1.0f / std::sqrt(v); });
  else if (op == "reciprocal")
    apply([](float v) { return 1.0f / v; });
  else if (op == "floor")
    apply([](float v) { return std::floor(v); });
  else if (op == "ceil")
    apply([](float v) { return std::ceil(v); });
  else if (op == "sin")
    apply([](float v) { return std::sin(v); });
  else if (op == "cos")
    apply([](float v) { return std::cos(v); });
  else
    return internal_error("unary table has no function for '" + std::string(op) + "'");
  return single(std::move(out));
}

float nan_max(float a, float b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b); }
float nan_min(float a, float b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? a : b); }

Result<Tensors> binary(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Binary bin, ops::binary(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const float alpha = static_cast<float>(bin.alpha);
  // Operands: a tensor each, or a tensor and the scalar `other` as a one-element tensor.
  HostTensor scalar;
  const HostTensor* lhs = &inputs[0];
  const HostTensor* rhs = inputs.size() == 2 ? &inputs[1] : nullptr;
  if (bin.has_scalar) {
    scalar = HostTensor(DType::kFloat32, Shape{});
    scalar.data<float>()[0] = static_cast<float>(bin.other);
    rhs = &scalar;
    if (bin.scalar_first) std::swap(lhs, rhs);
  }
  const Shape& shape = bin.output;
  HostTensor out(DType::kFloat32, shape);
  const float* a = lhs->data<float>().data();
  const float* b = rhs->data<float>().data();
  float* o = out.data<float>().data();
  const std::vector<std::vector<int64_t>> strides = {broadcast_strides(lhs->shape(), shape),
                                                     broadcast_strides(rhs->shape(), shape)};
  auto apply = [&](auto fn) {
    for_each_broadcast(shape, strides,
                       [&](int64_t i, const std::vector<int64_t>& off) { o[i] = fn(a[off[0]], b[off[1]]); });
  };
  if (op == "add")
    apply([&](float x, float y) { return x + alpha * y; });
  else if (op == "sub")
    apply([&](float x, float y) { return x - alpha * y; });
  else if (op == "mul")
    apply([](float x, float y) { return x * y; });
  else if (op == "div")
    apply([](float x, float y) { return x / y; });
  else if (op == "maximum")
    apply(nan_max);
  else if (op == "minimum")
    apply(nan_min);
  else if (op == "pow")
    apply([](float x, float y) { return std::pow(x, y); });
  else
    return internal_error("binary table has no function for '" + std::string(op) + "'");
  return single(std::move(out));
}

}  // namespace

OpTable elementwise_ops() {
  OpTable t;
  for (std::string_view name : ops::unary_op_names()) t.emplace_back(name, unary);
  for (std::string_view name : ops::binary_op_names()) t.emplace_back(name, binary);
  return t;
}

}  // namespace univk::reference::detail
