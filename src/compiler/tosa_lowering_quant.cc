// Quantized operators (the int8 graphs of PyTorch's post-training quantization) lowered to the
// TOSA INT operators: int8 values with a per-tensor scale and zero point (attributes of the IR
// nodes, docs/OPERATORS.md "Quantized int8 operators"), int8 x int8 -> int32 CONV2D with int32 bias,
// RESCALE back to int8 with scale32 multipliers and shifts (ops::tosa_scale32), per channel when
// the weight has one scale per output channel, and a fused ReLU as a CLAMP of the int32
// accumulator at 0; quantized mul, and elementwise functions as int8 TABLEs. quantize/dequantize
// convert between fp32 and int8 at the edges of the int8 region.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tosa_lowering.h"
#include "univk/ops/tosa_ops.h"
#include "univk/ops/torch_ops.h"

namespace univk::compiler::detail {
namespace {

using spirv::TosaOp;

// Per-tensor quantization parameters of an int8 value: real = (q - zero_point) * scale.
struct QuantParams {
  double scale = 1.0;
  int64_t zero_point = 0;
};

Result<QuantParams> quant_params(const Attributes& attrs, const std::string& prefix) {
  QuantParams q;
  UNIVK_ASSIGN_OR_RETURN(q.scale, attrs.get_float(prefix + "scale"));
  UNIVK_ASSIGN_OR_RETURN(q.zero_point, attrs.get_int(prefix + "zero_point"));
  if (!std::isfinite(q.scale) || q.scale <= 0.0)
    return invalid_argument("attribute '" + prefix + "scale' must be finite and > 0");
  if (q.zero_point < -128 || q.zero_point > 127)
    return invalid_argument("attribute '" + prefix + "zero_point' " + std::to_string(q.zero_point) +
                            " is outside int8");
  return q;
}

Status require_dtype(const Value& v, DType dtype, const char* what) {
  if (v.dtype == dtype) return ok_status();
  return unsupported(std::string(what) + " '" + v.name + "' is " + std::string(dtype_name(v.dtype)) + " (needs " +
                     std::string(dtype_name(dtype)) + ")");
}

Attributes int_clamp(int64_t lo, int64_t hi) {
  Attributes a;
  a.set("min_val", lo);
  a.set("max_val", hi);
  a.set("nan_mode", spirv::kNanPropagate);
  return a;
}

// RESCALE to int8 (scale32, single rounding), per channel when there are several multipliers.
Attributes rescale_attrs(std::vector<int64_t> multiplier, std::vector<int64_t> shift, int64_t input_zp,
                         int64_t output_zp) {
  Attributes a;
  a.set("output_type", std::string("int8"));
  a.set("scale32", int64_t{1});
  a.set("rounding_mode", spirv::kRoundingSingle);
  a.set("per_channel", int64_t{multiplier.size() > 1 ? 1 : 0});
  a.set("input_unsigned", int64_t{0});
  a.set("output_unsigned", int64_t{0});
  a.set("multiplier", std::move(multiplier));
  a.set("shift", std::move(shift));
  a.set("input_zp", input_zp);
  a.set("output_zp", output_zp);
  return a;
}

}  // namespace

Status TosaLowering::lower_quantize(const Node& node) {
  const Value& in = graph_.value(node.inputs[0]);
  UNIVK_RETURN_IF_ERROR(require_dtype(in, DType::kFloat32, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kInt8, "result"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams q, quant_params(node.attrs, ""));
  const Layout layout = preferred_layout(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], layout));
  const std::vector<int64_t> shape = shape_of(x);
  Attributes mul;
  mul.set("shift", int64_t{0});
  // x / scale + zero_point, rounded to nearest even and saturated by CAST (PyTorch's
  // quantize_per_tensor multiplies by the reciprocal too).
  TosaId scaled = op(TosaOp::kMul, {x, scalar_constant(static_cast<float>(1.0 / q.scale), shape.size())}, mul, shape);
  TosaId shifted =
      op(TosaOp::kAdd, {scaled, scalar_constant(static_cast<float>(q.zero_point), shape.size())}, {}, shape);
  Attributes cast;
  cast.set("output_type", std::string("int8"));
  set(node.outputs[0], layout, op(TosaOp::kCast, {shifted}, std::move(cast), shape, DType::kInt8));
  return ok_status();
}

Status TosaLowering::lower_dequantize(const Node& node) {
  const Value& in = graph_.value(node.inputs[0]);
  UNIVK_RETURN_IF_ERROR(require_dtype(in, DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kFloat32, "result"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams q, quant_params(node.attrs, ""));
  const Layout layout = preferred_layout(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], layout));
  const std::vector<int64_t> shape = shape_of(x);
  Attributes cast;
  cast.set("output_type", std::string("float32"));
  TosaId real = op(TosaOp::kCast, {x}, std::move(cast), shape);
  TosaId centred = op(TosaOp::kSub, {real, scalar_constant(static_cast<float>(q.zero_point), shape.size())}, {}, shape);
  Attributes mul;
  mul.set("shift", int64_t{0});
  set(node.outputs[0], layout,
      op(TosaOp::kMul, {centred, scalar_constant(static_cast<float>(q.scale), shape.size())}, std::move(mul), shape));
  return ok_status();
}

Status TosaLowering::lower_requantize(const Node& node) {
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.inputs[0]), DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kInt8, "result"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams in, quant_params(node.attrs, "input_"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams out, quant_params(node.attrs, "output_"));
  Result<ops::TosaScale> scale = ops::tosa_scale32(in.scale / out.scale);
  if (!scale.ok()) return unsupported(scale.status().message());
  const Layout layout = preferred_layout(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], layout));
  Attributes a = rescale_attrs({scale->multiplier}, {scale->shift}, in.zero_point, out.zero_point);
  set(node.outputs[0], layout, op(TosaOp::kRescale, {x}, std::move(a), shape_of(x), DType::kInt8));
  return ok_status();
}

// Both operands RESCALEd to int32 on a common scale with 20 bits of headroom below it (their
// int8 differences from the zero point fit in 9 bits), ADD, ReLU as a CLAMP at 0, and a RESCALE
// to the output's parameters.
Status TosaLowering::lower_quantized_add(const Node& node) {
  const Value& av = graph_.value(node.inputs[0]);
  const Value& bv = graph_.value(node.inputs[1]);
  UNIVK_RETURN_IF_ERROR(require_dtype(av, DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(bv, DType::kInt8, "other"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kInt8, "result"));
  if (av.shape != bv.shape) {
    return unsupported("quantized_add of " + av.shape.to_string() + " and " + bv.shape.to_string() +
                       " (equal shapes only)");
  }
  UNIVK_ASSIGN_OR_RETURN(QuantParams qa, quant_params(node.attrs, "input_"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams qb, quant_params(node.attrs, "other_"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams out, quant_params(node.attrs, "output_"));
  UNIVK_ASSIGN_OR_RETURN(bool relu, node.attrs.get_bool_or("relu", false));
  constexpr double kHeadroom = 1 << 20;
  const double common = 2.0 * std::max(qa.scale, qb.scale);
  const Layout layout = preferred_layout(node.inputs[0]);
  std::vector<TosaId> terms;
  for (const auto& [value, q] : {std::pair{node.inputs[0], qa}, std::pair{node.inputs[1], qb}}) {
    Result<ops::TosaScale> s = ops::tosa_scale32(q.scale / common * kHeadroom);
    if (!s.ok()) return unsupported(s.status().message());
    UNIVK_ASSIGN_OR_RETURN(TosaId x, get(value, layout));
    Attributes a = rescale_attrs({s->multiplier}, {s->shift}, q.zero_point, 0);
    a.set("output_type", std::string("int32"));
    terms.push_back(op(TosaOp::kRescale, {x}, std::move(a), shape_of(x), DType::kInt32));
  }
  const std::vector<int64_t> shape = shape_of(terms[0]);
  TosaId sum = op(TosaOp::kAdd, {terms[0], terms[1]}, {}, shape, DType::kInt32);
  if (relu) sum = op(TosaOp::kClamp, {sum}, int_clamp(0, INT32_MAX), shape, DType::kInt32);
  Result<ops::TosaScale> s = ops::tosa_scale32(common / kHeadroom / out.scale);
  if (!s.ok()) return unsupported(s.status().message());
  Attributes a = rescale_attrs({s->multiplier}, {s->shift}, 0, out.zero_point);
  set(node.outputs[0], layout, op(TosaOp::kRescale, {sum}, std::move(a), shape, DType::kInt8));
  return ok_status();
}

// Both operands RESCALEd to int32 with their zero points removed (scale 1: the int8 differences
// from the zero point fit in 9 bits, their product in 18), MUL int32 (broadcasting as PyTorch,
// equal ranks after padding with leading 1s), ReLU as a CLAMP at 0, and a RESCALE by
// scale_a x scale_b / output_scale to int8.
Status TosaLowering::lower_quantized_mul(const Node& node) {
  const Value& out = graph_.value(node.outputs[0]);
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.inputs[0]), DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.inputs[1]), DType::kInt8, "other"));
  UNIVK_RETURN_IF_ERROR(require_dtype(out, DType::kInt8, "result"));
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::Binary bin, ops::binary("mul", {}, shapes));
  if (bin.output != out.shape) {
    return invalid_argument("quantized_mul computes " + bin.output.to_string() + ", the node declares " +
                            out.shape.to_string());
  }
  UNIVK_ASSIGN_OR_RETURN(QuantParams qa, quant_params(node.attrs, "input_"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams qb, quant_params(node.attrs, "other_"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams qo, quant_params(node.attrs, "output_"));
  UNIVK_ASSIGN_OR_RETURN(bool relu, node.attrs.get_bool_or("relu", false));
  const size_t rank = out.shape.rank();
  Layout layout = Layout::kNatural;
  if (rank == 4) {
    for (ValueId in : node.inputs) {
      if (graph_.value(in).shape.rank() == 4 && has(in, Layout::kNhwc)) layout = Layout::kNhwc;
    }
  }
  Result<ops::TosaScale> unit = ops::tosa_scale32(1.0);
  if (!unit.ok()) return internal_error(unit.status().message());
  std::vector<TosaId> terms;
  for (const auto& [value, q] : {std::pair{node.inputs[0], qa}, std::pair{node.inputs[1], qb}}) {
    UNIVK_ASSIGN_OR_RETURN(TosaId x, operand(value, rank, layout));
    Attributes a = rescale_attrs({unit->multiplier}, {unit->shift}, q.zero_point, 0);
    a.set("output_type", std::string("int32"));
    terms.push_back(op(TosaOp::kRescale, {x}, std::move(a), shape_of(x), DType::kInt32));
  }
  const std::vector<int64_t> shape = layout == Layout::kNhwc ? permuted(out.shape.dims(), kToNhwc) : out.shape.dims();
  Attributes mul;
  mul.set("shift", int64_t{0});
  TosaId product = op(TosaOp::kMul, {terms[0], terms[1]}, std::move(mul), shape, DType::kInt32);
  if (relu) product = op(TosaOp::kClamp, {product}, int_clamp(0, INT32_MAX), shape, DType::kInt32);
  Result<ops::TosaScale> s = ops::tosa_scale32(qa.scale * qb.scale / qo.scale);
  if (!s.ok()) return unsupported(s.status().message());
  Attributes a = rescale_attrs({s->multiplier}, {s->shift}, 0, qo.zero_point);
  set(node.outputs[0], layout, op(TosaOp::kRescale, {product}, std::move(a), shape, DType::kInt8));
  return ok_status();
}

// An elementwise function of one int8 value as TOSA's int8 TABLE: output = table[input + 128],
// the table (int8 [256], a constant) computed by the exporter from the function and the input
// and output quantization parameters.
Status TosaLowering::lower_quantized_table(const Node& node) {
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.inputs[0]), DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kInt8, "result"));
  if (node.inputs.size() != 2) return invalid_argument("quantized_table takes an input and a table");
  const Value& tv = graph_.value(node.inputs[1]);
  if (tv.kind != ValueKind::kConstant) return unsupported("quantized_table with a table that is not a constant");
  UNIVK_RETURN_IF_ERROR(require_dtype(tv, DType::kInt8, "table"));
  if (tv.shape != Shape{256})
    return invalid_argument("quantized_table needs a [256] table, got " + tv.shape.to_string());
  if (graph_.value(node.outputs[0]).shape != graph_.value(node.inputs[0]).shape)
    return invalid_argument("quantized_table's result must have its input's shape");
  const Layout layout = preferred_layout(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], layout));
  set(node.outputs[0], layout, op(TosaOp::kTable, {x, constant(*tv.constant)}, {}, shape_of(x), DType::kInt8));
  return ok_status();
}

Result<TosaLowering::TosaId> TosaLowering::requantize(TosaId acc, const Node& node, double input_scale) {
  UNIVK_ASSIGN_OR_RETURN(QuantParams out, quant_params(node.attrs, "output_"));
  UNIVK_ASSIGN_OR_RETURN(std::vector<double> weight_scales, node.attrs.get_floats("weight_scale"));
  UNIVK_ASSIGN_OR_RETURN(bool relu, node.attrs.get_bool_or("relu", false));
  const std::vector<int64_t> shape = shape_of(acc);
  const int64_t channels = shape.back();
  if (weight_scales.size() != 1 && static_cast<int64_t>(weight_scales.size()) != channels) {
    return invalid_argument("attribute 'weight_scale' has " + std::to_string(weight_scales.size()) + " values for " +
                            std::to_string(channels) + " output channels (needs 1 or that many)");
  }
  std::vector<int64_t> multiplier, shift;
  for (double ws : weight_scales) {
    if (!std::isfinite(ws) || ws <= 0.0) return invalid_argument("attribute 'weight_scale' must be finite and > 0");
    Result<ops::TosaScale> s = ops::tosa_scale32(input_scale * ws / out.scale);
    if (!s.ok()) return unsupported(s.status().message());
    multiplier.push_back(s->multiplier);
    shift.push_back(s->shift);
  }
  // ReLU on the accumulator: its sign is the real value's (the scale is positive) and RESCALE
  // is monotonic with 0 -> output_zp, so this equals clamping the int8 result at the zero point.
  if (relu) acc = op(TosaOp::kClamp, {acc}, int_clamp(0, INT32_MAX), shape, DType::kInt32);
  return op(TosaOp::kRescale, {acc}, rescale_attrs(multiplier, shift, 0, out.zero_point), shape, DType::kInt8);
}

// The int8 weight as TOSA wants it (CONV2D: OHWI; DEPTHWISE_CONV2D: HWCM) and the int32 bias.
Status TosaLowering::lower_quantized_conv2d(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::Conv2d cv, ops::conv2d(node.attrs, shapes));
  if (!cv.batched) return unsupported("quantized_conv2d on a rank-3 input");
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.inputs[0]), DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kInt8, "result"));
  const Value& wv = graph_.value(node.inputs[1]);
  if (wv.kind != ValueKind::kConstant) return unsupported("quantized_conv2d with a weight that is not a constant");
  UNIVK_RETURN_IF_ERROR(require_dtype(wv, DType::kInt8, "weight"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams in, quant_params(node.attrs, "input_"));
  const int64_t groups = cv.groups, oc = cv.oc, kh = cv.kh, kw = cv.kw, ic = cv.c;
  UNIVK_ASSIGN_OR_RETURN(TosaConvWeight tw, tosa_conv_weight(*wv.constant, groups, ic, oc, kh, kw, "quantized_conv2d"));
  HostTensor weight = std::move(tw.weight);
  const TosaOp tosa_op = tw.op;
  HostTensor bias(DType::kInt32, Shape{oc});
  if (node.inputs.size() == 3) {
    const Value& bv = graph_.value(node.inputs[2]);
    if (bv.kind != ValueKind::kConstant) return unsupported("quantized_conv2d with a bias that is not a constant");
    UNIVK_RETURN_IF_ERROR(require_dtype(bv, DType::kInt32, "bias"));
    bias = *bv.constant;
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNhwc));
  Window h{kh, cv.stride[0], cv.dilation[0], cv.pad_top, cv.pad_bottom};
  Window w{kw, cv.stride[1], cv.dilation[1], cv.pad_left, cv.pad_right};
  UNIVK_ASSIGN_OR_RETURN(x, fit_windows(x, h, w, cv.out_h, cv.out_w));
  Attributes a;
  a.set("pad", std::vector<int64_t>{h.pad_before, h.pad_after, w.pad_before, w.pad_after});
  a.set("stride", std::vector<int64_t>{cv.stride[0], cv.stride[1]});
  a.set("dilation", std::vector<int64_t>{cv.dilation[0], cv.dilation[1]});
  a.set("acc_type", spirv::kAccInt32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", in.zero_point);
  a.set("weight_zp", int64_t{0});
  TosaId acc = op(tosa_op, {x, constant(weight), constant(bias)}, std::move(a), permuted(cv.output.dims(), kToNhwc),
                  DType::kInt32);
  UNIVK_ASSIGN_OR_RETURN(TosaId y, requantize(acc, node, in.scale));
  set(node.outputs[0], Layout::kNhwc, y);
  return ok_status();
}

// A 1x1 CONV2D over [rows, 1, 1, in_features]: the VgfBackend's int8 convolution kernel.
Status TosaLowering::lower_quantized_linear(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::Linear lin, ops::linear(node.attrs, shapes));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.inputs[0]), DType::kInt8, "input"));
  UNIVK_RETURN_IF_ERROR(require_dtype(graph_.value(node.outputs[0]), DType::kInt8, "result"));
  const Value& wv = graph_.value(node.inputs[1]);
  if (wv.kind != ValueKind::kConstant) return unsupported("quantized_linear with a weight that is not a constant");
  UNIVK_RETURN_IF_ERROR(require_dtype(wv, DType::kInt8, "weight"));
  UNIVK_ASSIGN_OR_RETURN(QuantParams in, quant_params(node.attrs, "input_"));
  const int64_t n_out = lin.out_features, n_in = lin.in_features;
  const int64_t rows = graph_.value(node.inputs[0]).shape.numel() / std::max<int64_t>(n_in, 1);
  UNIVK_ASSIGN_OR_RETURN(HostTensor weight, wv.constant->reshaped(Shape{n_out, 1, 1, n_in}));
  HostTensor bias(DType::kInt32, Shape{n_out});
  if (node.inputs.size() == 3) {
    const Value& bv = graph_.value(node.inputs[2]);
    if (bv.kind != ValueKind::kConstant) return unsupported("quantized_linear with a bias that is not a constant");
    UNIVK_RETURN_IF_ERROR(require_dtype(bv, DType::kInt32, "bias"));
    bias = *bv.constant;
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNatural));
  Attributes a;
  a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  a.set("stride", std::vector<int64_t>{1, 1});
  a.set("dilation", std::vector<int64_t>{1, 1});
  a.set("acc_type", spirv::kAccInt32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", in.zero_point);
  a.set("weight_zp", int64_t{0});
  TosaId acc = op(TosaOp::kConv2d, {reshape(x, {rows, 1, 1, n_in}), constant(weight), constant(bias)}, std::move(a),
                  {rows, 1, 1, n_out}, DType::kInt32);
  UNIVK_ASSIGN_OR_RETURN(TosaId y, requantize(acc, node, in.scale));
  set(node.outputs[0], Layout::kNatural, reshape(y, graph_.value(node.outputs[0]).shape.dims()));
  return ok_status();
}

}  // namespace univk::compiler::detail
