// Emitters of the arithmetic work that is not elementwise: convolutions and MATMUL on the
// kernel library (fp32 CONV2D, TRANSPOSE_CONV2D, DEPTHWISE_CONV2D and MATMUL; int8 CONV2D,
// DEPTHWISE_CONV2D and MATMUL on its int8 kernel), the reductions (shaders/reduce.glsl) and RESIZE
// (shaders/resize_f32.comp), whose parameter layouts they match.
#include <string>
#include <tuple>
#include <utility>

#include "emitter_internal.h"
#include "univk/ops/tosa_ops.h"

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

namespace {

Status push(std::vector<uint32_t>& params, std::initializer_list<int64_t> values) {
  for (int64_t v : values) {
    if (v < 0 || v > static_cast<int64_t>(UINT32_MAX))
      return unsupported("parameter " + std::to_string(v) + " does not fit 32 bits");
    params.push_back(static_cast<uint32_t>(v));
  }
  return ok_status();
}

Status push_all(std::vector<uint32_t>& params, const std::vector<int64_t>& values) {
  for (int64_t v : values) UNIVK_RETURN_IF_ERROR(push(params, {v}));
  return ok_status();
}

Status require_f32(const std::vector<TensorView>& inputs, const TensorView& output, bool output_f32 = true) {
  for (const auto& v : inputs)
    if (v.dtype != DType::kFloat32)
      return unsupported(std::string("input type ") + std::string(dtype_name(v.dtype)) + " (fp32 only)");
  if (output_f32 && output.dtype != DType::kFloat32)
    return unsupported("output type " + std::string(dtype_name(output.dtype)) + " (fp32 only)");
  return ok_status();
}

// Row-major packed strides at any offset (a SLICE of a packed tensor along its first dim).
bool packed(const TensorView& v) {
  TensorView at_zero = v;
  at_zero.offset = 0;
  return at_zero.contiguous();
}

// Element strides of a TOSA NHWC view by logical dim.
kernels::ActivationStrides nhwc_strides(const TensorView& v) {
  return {v.strides[0], v.strides[3], v.strides[1], v.strides[2]};
}

// A kernel-library dispatch of `problem` over `inputs` and `output`, planned for the minimum
// device limits (lower_graph plans it again for the device).
Result<Dispatch> library_dispatch(const kernels::Problem& problem, std::vector<TensorView> inputs,
                                  const TensorView& output) {
  Dispatch k;
  k.outputs = {output};
  k.inputs = std::move(inputs);
  UNIVK_ASSIGN_OR_RETURN(k.kernel, kernels::plan(problem, kernels::DeviceTraits{}));
  k.problem = problem;
  k.work_items = static_cast<uint64_t>(Shape(output.shape).numel());
  return k;
}

// CONV2D (fp32) on the kernel library's implicit GEMM.
Result<Dispatch> library_conv(const TensorView& in, const TensorView& w, const TensorView& bias,
                              const TensorView& output, const ops::TosaConv2d& window) {
  kernels::Conv2dProblem p;
  p.batch = in.shape[0], p.in_h = in.shape[1], p.in_w = in.shape[2], p.in_channels = in.shape[3];
  p.out_h = output.shape[1], p.out_w = output.shape[2], p.out_channels = output.shape[3];
  p.kernel_h = w.shape[1], p.kernel_w = w.shape[2];
  p.stride_h = window.stride[0], p.stride_w = window.stride[1];
  p.dilation_h = window.dilation[0], p.dilation_w = window.dilation[1];
  p.pad_top = window.pad[0], p.pad_left = window.pad[2];
  p.input = nhwc_strides(in);
  p.output = nhwc_strides(output);
  p.weight = kernels::WeightStrides::ohwi(p.in_channels, p.kernel_h, p.kernel_w);
  p.bias_broadcast = bias.shape[0] == 1;
  p.epilogue.bias = true;
  return library_dispatch(p, {in, w, bias}, output);
}

// DEPTHWISE_CONV2D (fp32, weight [KH, KW, C, M]) on the kernel library's depthwise kernel.
Result<Dispatch> library_depthwise(const TensorView& in, const TensorView& w, const TensorView& bias,
                                   const TensorView& output, const ops::TosaConv2d& window) {
  kernels::DepthwiseProblem p;
  p.batch = in.shape[0], p.in_h = in.shape[1], p.in_w = in.shape[2], p.channels = in.shape[3];
  p.multiplier = w.shape[3];
  p.out_h = output.shape[1], p.out_w = output.shape[2];
  p.kernel_h = w.shape[0], p.kernel_w = w.shape[1];
  p.stride_h = window.stride[0], p.stride_w = window.stride[1];
  p.dilation_h = window.dilation[0], p.dilation_w = window.dilation[1];
  p.pad_top = window.pad[0], p.pad_left = window.pad[2];
  p.input = nhwc_strides(in);
  p.output = nhwc_strides(output);
  p.weight = kernels::DepthwiseWeightStrides::hwcm(output.shape[3]);
  p.bias_broadcast = bias.shape[0] == 1;
  p.epilogue.bias = true;
  return library_dispatch(p, {in, w, bias}, output);
}

Result<Dispatch> emit_conv(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output) {
  const bool depthwise = op.op == TosaOp::kDepthwiseConv2d;
  if (inputs.size() != 3) return invalid_argument("convolution needs input, weight and bias");
  const TensorView &in = inputs[0], &w = inputs[1], &bias = inputs[2];
  const bool is_int8 = in.dtype == DType::kInt8;
  if (is_int8) {
    if (w.dtype != DType::kInt8 || bias.dtype != DType::kInt32 || output.dtype != DType::kInt32)
      return unsupported("int8 convolution needs int8 weight, int32 bias and int32 output");
  } else {
    UNIVK_RETURN_IF_ERROR(require_f32(inputs, output));
  }
  if (in.shape.size() != 4 || w.shape.size() != 4 || output.shape.size() != 4 || bias.shape.size() != 1)
    return invalid_argument("convolution ranks must be 4 (input, weight, output) and 1 (bias)");
  if (!packed(w) || !packed(bias)) return unsupported("convolution weight and bias must be packed");
  UNIVK_ASSIGN_OR_RETURN(double in_zp, op.attrs.get_float_or("input_zp", 0.0));
  UNIVK_ASSIGN_OR_RETURN(double w_zp, op.attrs.get_float_or("weight_zp", 0.0));
  if (!is_int8 && (in_zp != 0.0 || w_zp != 0.0)) return invalid_argument("float convolution needs zero points of 0");
  if (in_zp < -128 || in_zp > 127 || w_zp < -128 || w_zp > 127) return invalid_argument("int8 zero point out of range");
  const int64_t kh = depthwise ? w.shape[0] : w.shape[1];
  const int64_t kw = depthwise ? w.shape[1] : w.shape[2];
  const int64_t ic = depthwise ? w.shape[2] : w.shape[3];
  const int64_t oc = depthwise ? w.shape[2] * w.shape[3] : w.shape[0];
  if (ic != in.shape[3] || oc != output.shape[3] || in.shape[0] != output.shape[0])
    return invalid_argument("convolution channel counts do not match the weight");
  if (bias.shape[0] != oc && bias.shape[0] != 1) return invalid_argument("bias must have OC or 1 elements");
  // Attributes, limits and the output size: the same rule as the TOSA reference kernels.
  UNIVK_ASSIGN_OR_RETURN(ops::TosaConv2d window, ops::tosa_conv2d(op.attrs, Shape(in.shape), kh, kw));
  if (window.out_h != output.shape[1] || window.out_w != output.shape[2]) {
    return invalid_argument("output shape " + Shape(output.shape).to_string() +
                            " does not follow the TOSA convolution rule (" + std::to_string(window.out_h) + "x" +
                            std::to_string(window.out_w) + ")");
  }
  if (!is_int8) {
    return depthwise ? library_depthwise(in, w, bias, output, window) : library_conv(in, w, bias, output, window);
  }
  // int8: a depthwise convolution is a grouped one with one input channel per group.
  kernels::Conv2dI8Problem p;
  p.conv.batch = in.shape[0], p.conv.in_h = in.shape[1], p.conv.in_w = in.shape[2], p.conv.in_channels = ic;
  p.conv.out_h = output.shape[1], p.conv.out_w = output.shape[2], p.conv.out_channels = oc;
  p.conv.kernel_h = kh, p.conv.kernel_w = kw;
  p.conv.stride_h = window.stride[0], p.conv.stride_w = window.stride[1];
  p.conv.dilation_h = window.dilation[0], p.conv.dilation_w = window.dilation[1];
  p.conv.pad_top = window.pad[0], p.conv.pad_left = window.pad[2];
  p.conv.groups = depthwise ? ic : 1;
  p.conv.input = nhwc_strides(in);
  p.conv.output = nhwc_strides(output);
  // DEPTHWISE_CONV2D's [KH, KW, C, M]: output channel c * M + m at tap * C * M + c * M + m.
  p.conv.weight = depthwise ? kernels::WeightStrides{1, 1, oc} : kernels::WeightStrides::ohwi(ic, kh, kw);
  p.conv.bias_broadcast = bias.shape[0] == 1;
  p.conv.epilogue.bias = true;
  p.input_zp = static_cast<int32_t>(in_zp);
  p.weight_zp = static_cast<int32_t>(w_zp);
  return library_dispatch(p, {in, w, bias}, output);
}

// int8 MATMUL of one batch, [1, H, C] x [1, C, W] -> int32 [1, H, W] (emit_dispatches gives
// each batch a dispatch: the int8 kernel shares its weight across the batch), on the int8
// convolution kernel as a 1x1 CONV2D of H positions, C input channels and W output channels.
Result<Dispatch> emit_matmul_int8(const TosaOperation& op, const TensorView& a, const TensorView& b,
                                  const TensorView& output) {
  if (b.dtype != DType::kInt8 || output.dtype != DType::kInt32)
    return unsupported("int8 MATMUL needs an int8 B and an int32 output");
  if (a.shape[0] != 1) return internal_error("int8 MATMUL takes one batch per dispatch");
  UNIVK_ASSIGN_OR_RETURN(double a_zp, op.attrs.get_float_or("a_zp", 0.0));
  UNIVK_ASSIGN_OR_RETURN(double b_zp, op.attrs.get_float_or("b_zp", 0.0));
  if (a_zp < -128 || a_zp > 127 || b_zp < -128 || b_zp > 127) return invalid_argument("int8 zero point out of range");
  kernels::Conv2dI8Problem p;
  p.conv.batch = 1, p.conv.in_h = p.conv.out_h = a.shape[1], p.conv.in_w = p.conv.out_w = 1;
  p.conv.in_channels = a.shape[2], p.conv.out_channels = b.shape[2];
  // Rows of A are the positions (h), its columns the input channels; B's columns the outputs.
  p.conv.input = {a.strides[0], a.strides[2], a.strides[1], a.strides[1]};
  p.conv.output = {output.strides[0], output.strides[2], output.strides[1], output.strides[1]};
  p.conv.weight = {b.strides[2], b.strides[1], 0};
  p.input_zp = static_cast<int32_t>(a_zp);
  p.weight_zp = static_cast<int32_t>(b_zp);
  return library_dispatch(p, {a, b}, output);
}

Result<Dispatch> emit_matmul(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output) {
  if (inputs.size() != 2) return invalid_argument("MATMUL needs A and B");
  // Shapes were checked by emit_dispatches (ops::tosa_matmul).
  const TensorView &a = inputs[0], &b = inputs[1];
  if (a.dtype == DType::kInt8) return emit_matmul_int8(op, a, b, output);
  UNIVK_RETURN_IF_ERROR(require_f32(inputs, output));
  for (double zp : {op.attrs.get_float_or("a_zp", 0.0).value(), op.attrs.get_float_or("b_zp", 0.0).value()})
    if (zp != 0.0) return invalid_argument("float MATMUL needs zero points of 0");
  // On the kernel library's GEMM.
  kernels::GemmProblem p;
  p.batch = a.shape[0], p.m = a.shape[1], p.k = a.shape[2], p.n = b.shape[2];
  p.a = {0, a.strides[0], a.strides[1], a.strides[2]};
  p.b = {0, b.strides[0], b.strides[1], b.strides[2]};
  p.out = {0, output.strides[0], output.strides[1], output.strides[2]};
  return library_dispatch(p, inputs, output);
}

// MODE and KIND (specialization constants 0 and 1 of shaders/reduce.glsl) of a reduction over
// `in`: fp32 for all but REDUCE_ALL/ANY, int32 for REDUCE_SUM/MAX/MIN, bool for REDUCE_ALL/ANY.
Result<std::pair<uint32_t, uint32_t>> reduce_mode(TosaOp op, DType in) {
  uint32_t mode = 0;
  const char* types = "fp32";
  switch (op) {
    case TosaOp::kReduceSum:
    case TosaOp::kReduceMax:
    case TosaOp::kReduceMin:
      mode = op == TosaOp::kReduceSum ? 0u : (op == TosaOp::kReduceMax ? 1u : 3u);
      types = "fp32 or int32";
      break;
    case TosaOp::kArgmax:
      mode = 2;
      break;
    case TosaOp::kReduceProduct:
      mode = 4;
      break;
    default:  // REDUCE_ALL, REDUCE_ANY
      mode = op == TosaOp::kReduceAll ? 5u : 6u;
      types = "bool";
      break;
  }
  const bool ok = mode >= 5 ? in == DType::kBool
                            : in == DType::kFloat32 || (in == DType::kInt32 && (mode == 0 || mode == 1 || mode == 3));
  if (!ok)
    return unsupported(std::string(spirv::tosa_op_name(op)) + " on " + std::string(dtype_name(in)) +
                       " is not implemented by the lowering (" + types + " only)");
  return std::pair<uint32_t, uint32_t>{mode, in == DType::kInt32 ? 1u : 0u};
}

Result<Dispatch> emit_reduce(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output) {
  const bool argmax = op.op == TosaOp::kArgmax;
  if (inputs.size() != 1) return invalid_argument("a reduction takes one input");
  const TensorView& in = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(auto mode_kind, reduce_mode(op.op, in.dtype));
  const DType result = argmax ? DType::kInt32 : in.dtype;
  if (output.dtype != result)
    return unsupported("output type " + std::string(dtype_name(output.dtype)) + " (" + std::string(dtype_name(result)) +
                       " only)");
  UNIVK_ASSIGN_OR_RETURN(int64_t axis, op.attrs.get_int("axis"));
  const size_t rank = in.shape.size();
  if (axis < 0 || static_cast<size_t>(axis) >= rank || rank > kMaxRank) return invalid_argument("axis out of range");
  std::vector<int64_t> iter = in.shape;
  iter[axis] = 1;
  std::vector<int64_t> out_strides;
  if (argmax) {
    std::vector<int64_t> expected = in.shape;
    expected.erase(expected.begin() + axis);
    if (output.shape != expected) return invalid_argument("ARGMAX output shape must drop the axis");
    out_strides = output.strides;
    out_strides.insert(out_strides.begin() + axis, 0);
  } else {
    if (output.shape != iter) return invalid_argument("reduction output must keep the axis with size 1");
    out_strides = output.strides;
    out_strides[axis] = 0;
  }
  Dispatch k;
  k.shader = in.dtype == DType::kBool ? Shader::kReduceBool : Shader::kReduceF32;
  k.outputs = {output};
  k.inputs = {in};
  const int64_t total = Shape(iter).numel();
  UNIVK_RETURN_IF_ERROR(push(k.params, {total}));
  std::vector<int64_t> dims(kMaxRank - rank, 1), os(kMaxRank - rank, 0), is(kMaxRank - rank, 0);
  dims.insert(dims.end(), iter.begin(), iter.end());
  os.insert(os.end(), out_strides.begin(), out_strides.end());
  is.insert(is.end(), in.strides.begin(), in.strides.end());
  UNIVK_RETURN_IF_ERROR(push_all(k.params, dims));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, os));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, is));
  UNIVK_RETURN_IF_ERROR(push(k.params, {in.shape[axis], in.strides[axis]}));
  k.specialization = {{0u, mode_kind.first}, {1u, mode_kind.second}};
  k.work_items = static_cast<uint64_t>(total);
  return k;
}

Result<Dispatch> emit_resize(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output) {
  UNIVK_RETURN_IF_ERROR(require_f32(inputs, output));
  // Attributes and shapes were checked by emit_dispatches (ops::tosa_resize).
  UNIVK_ASSIGN_OR_RETURN(ops::TosaResize r, ops::tosa_resize(op.attrs, Shape(inputs[0].shape)));
  const TensorView& in = inputs[0];
  // The shader forms dst * d + offset + n in int32.
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t n = r.scale[2 * axis], d = r.scale[2 * axis + 1];
    if ((r.output[1 + axis] - 1) * d + r.offset[axis] + n > INT32_MAX)
      return unsupported("RESIZE source positions over int32 (output " + r.output.to_string() + ")");
  }
  Dispatch k;
  k.shader = Shader::kResizeF32;
  k.outputs = {output};
  k.inputs = {in};
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(push(k.params, {total, r.mode}));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, output.shape));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, output.strides));
  UNIVK_RETURN_IF_ERROR(push(k.params, {in.shape[1], in.shape[2]}));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, in.strides));
  UNIVK_RETURN_IF_ERROR(push(k.params, {r.scale[0], r.scale[1], r.scale[2], r.scale[3]}));
  UNIVK_RETURN_IF_ERROR(push(k.params, {r.offset[0] + r.scale[0], r.offset[1] + r.scale[2]}));
  k.work_items = static_cast<uint64_t>(total);
  return k;
}

// Kind constants of shaders/int8_io.glsl.
Result<uint32_t> int8_io_kind(DType t) {
  switch (t) {
    case DType::kInt8:
      return 0u;
    case DType::kUint8:
      return 1u;
    case DType::kInt32:
      return 2u;
    case DType::kFloat32:
      return 3u;
    case DType::kBool:
      return 4u;
    default:
      return unsupported(std::string(dtype_name(t)) + " (int8, uint8, bool, int32 and fp32 only)");
  }
}

// Element count, dims, output strides and input strides (rank padded to kMaxRank).
Status push_strided_unary(std::vector<uint32_t>& params, const TensorView& in, const TensorView& out) {
  if (in.shape != out.shape) return invalid_argument("input and output shapes differ");
  UNIVK_RETURN_IF_ERROR(push(params, {Shape(out.shape).numel()}));
  UNIVK_RETURN_IF_ERROR(push_all(params, out.padded_shape()));
  UNIVK_RETURN_IF_ERROR(push_all(params, out.padded_strides()));
  return push_all(params, in.padded_strides());
}

Result<Dispatch> emit_cast(const TensorView& in, const TensorView& out) {
  const bool f16_in = in.dtype == DType::kFloat16, f16_out = out.dtype == DType::kFloat16;
  if (f16_in || f16_out) {
    if ((!f16_in && in.dtype != DType::kFloat32) || (!f16_out && out.dtype != DType::kFloat32))
      return unsupported("CAST with fp16 is implemented between fp16 and fp32 only");
    Dispatch k;
    k.shader = Shader::kCast16;
    k.outputs = {out};
    k.inputs = {in};
    UNIVK_RETURN_IF_ERROR(push_strided_unary(k.params, in, out));
    k.specialization = {{0u, f16_in ? 1u : 0u}, {1u, f16_out ? 1u : 0u}};
    k.work_items = static_cast<uint64_t>(Shape(out.shape).numel());
    return k;
  }
  // int64 (cast.comp's kind 5, as int32 word pairs) to or from int32 only.
  constexpr uint32_t kInt64Kind = 5;
  const bool i64_in = in.dtype == DType::kInt64, i64_out = out.dtype == DType::kInt64;
  if ((i64_in || i64_out) && (i64_in ? out.dtype : in.dtype) != DType::kInt32)
    return unsupported("CAST with int64 is implemented between int32 and int64 only");
  UNIVK_ASSIGN_OR_RETURN(uint32_t in_kind, i64_in ? Result<uint32_t>(kInt64Kind) : int8_io_kind(in.dtype));
  UNIVK_ASSIGN_OR_RETURN(uint32_t out_kind, i64_out ? Result<uint32_t>(kInt64Kind) : int8_io_kind(out.dtype));
  Dispatch k;
  k.shader = Shader::kCast;
  k.outputs = {out};
  k.inputs = {in};
  UNIVK_RETURN_IF_ERROR(push_strided_unary(k.params, in, out));
  k.specialization = {{0u, in_kind}, {1u, out_kind}};
  k.work_items = static_cast<uint64_t>(Shape(out.shape).numel());
  return k;
}

// The comparison, logical and SELECT operators on shaders/logic.comp: operands broadcast to the
// output through zero strides; a unary or binary operator binds its last operand again.
Result<Dispatch> emit_logic(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& out) {
  uint32_t mode = 0;
  DType operand = DType::kBool;
  DType result = DType::kBool;
  size_t count = 2;
  switch (op.op) {
    case TosaOp::kEqual:
    case TosaOp::kGreater:
    case TosaOp::kGreaterEqual:
      mode = op.op == TosaOp::kEqual ? 0u : (op.op == TosaOp::kGreater ? 1u : 2u);
      operand = DType::kFloat32;
      break;
    case TosaOp::kLogicalAnd:
      mode = 3;
      break;
    case TosaOp::kLogicalOr:
      mode = 4;
      break;
    case TosaOp::kLogicalXor:
      mode = 7;
      break;
    case TosaOp::kLogicalNot:
      mode = 5;
      count = 1;
      break;
    default:  // SELECT
      mode = 6;
      count = 3;
      result = DType::kFloat32;
      break;
  }
  const std::string name(spirv::tosa_op_name(op.op));
  if (inputs.size() != count) return invalid_argument(name + " takes " + std::to_string(count) + " operands");
  for (size_t i = 0; i < count; ++i) {
    const DType want = mode == 6 && i > 0 ? DType::kFloat32 : operand;
    if (inputs[i].dtype != want)
      return unsupported(name + " operand " + std::to_string(i + 1) + " " + std::string(dtype_name(inputs[i].dtype)) +
                         " (" + std::string(dtype_name(want)) + " only)");
  }
  if (out.dtype != result) return unsupported(name + " result " + std::string(dtype_name(out.dtype)));
  Dispatch k;
  k.shader = Shader::kLogic;
  k.outputs = {out};
  for (size_t i = 0; i < 3; ++i) k.inputs.push_back(inputs[std::min(i, count - 1)]);
  UNIVK_RETURN_IF_ERROR(push(k.params, {Shape(out.shape).numel()}));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, out.shape, 1, "dim"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, out.strides, 0, "stride"));
  for (const TensorView& in : k.inputs) {
    if (in.shape.size() != out.shape.size()) return invalid_argument(name + " operands must have the output's rank");
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> strides, broadcast_strides(in, out.shape));
    UNIVK_RETURN_IF_ERROR(append_padded(k.params, strides, 0, "stride"));
  }
  k.specialization = {{0u, mode}};
  k.work_items = static_cast<uint64_t>(Shape(out.shape).numel());
  return k;
}

// GATHER on shaders/gather.comp: 32-bit values, int32 indices, strided views.
Result<Dispatch> emit_gather(const std::vector<TensorView>& inputs, const TensorView& out) {
  if (inputs.size() != 2) return invalid_argument("GATHER takes values and indices");
  const TensorView& values = inputs[0];
  const TensorView& indices = inputs[1];
  if (dtype_size(values.dtype) != 4 || indices.dtype != DType::kInt32 || out.dtype != values.dtype)
    return unsupported("GATHER of " + std::string(dtype_name(values.dtype)) + " by " +
                       std::string(dtype_name(indices.dtype)) + " (32-bit values, int32 indices)");
  if (values.shape.size() != 3 || indices.shape.size() != 2 || out.shape.size() != 3 ||
      indices.shape[0] != values.shape[0] ||
      out.shape != std::vector<int64_t>{values.shape[0], indices.shape[1], values.shape[2]})
    return invalid_argument("GATHER shapes " + Shape(values.shape).to_string() + ", " +
                            Shape(indices.shape).to_string() + " -> " + Shape(out.shape).to_string());
  Dispatch k;
  k.shader = Shader::kGather;
  k.outputs = {out};
  k.inputs = {values, indices};
  UNIVK_RETURN_IF_ERROR(push(k.params, {Shape(out.shape).numel(), values.shape[1], out.shape[1], out.shape[2]}));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, out.strides));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, values.strides));
  UNIVK_RETURN_IF_ERROR(push_all(k.params, indices.strides));
  k.work_items = static_cast<uint64_t>(Shape(out.shape).numel());
  return k;
}

Result<Dispatch> emit_rescale(const TosaOperation& op, const TensorView& in, const TensorView& out) {
  UNIVK_ASSIGN_OR_RETURN(RescaleParams r, rescale_params(op, in, out));
  Dispatch k;
  k.shader = Shader::kRescale;
  k.outputs = {out};
  k.inputs = {in};
  UNIVK_RETURN_IF_ERROR(push_strided_unary(k.params, in, out));
  k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(r.input_zp)));
  k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(r.output_zp)));
  k.params.push_back(static_cast<uint32_t>(r.multiplier.size()));
  for (int64_t m : r.multiplier) k.params.push_back(static_cast<uint32_t>(m));
  for (int64_t s : r.shift) k.params.push_back(static_cast<uint32_t>(s));
  // Unsigned 8-bit views read/clamp as uint8 whatever the tensor's declared signedness.
  const uint32_t in_kind = in.dtype == DType::kInt32 ? 2u : (r.input_unsigned || in.dtype == DType::kUint8 ? 1u : 0u);
  const uint32_t out_kind =
      out.dtype == DType::kInt32 ? 2u : (r.output_unsigned || out.dtype == DType::kUint8 ? 1u : 0u);
  k.specialization = {{0u, in_kind}, {1u, out_kind}, {2u, r.double_round ? 1u : 0u}};
  k.work_items = static_cast<uint64_t>(Shape(out.shape).numel());
  return k;
}

Result<Dispatch> emit_table(const std::vector<TensorView>& inputs, const TensorView& out) {
  if (inputs.size() != 2) return invalid_argument("TABLE needs input and table");
  const TensorView &in = inputs[0], &table = inputs[1];
  if (in.dtype != DType::kInt8 || table.dtype != DType::kInt8 || out.dtype != DType::kInt8)
    return unsupported("TABLE on " + std::string(dtype_name(in.dtype)) + " (int8 only)");
  if (table.shape != std::vector<int64_t>{256} || !table.contiguous())
    return invalid_argument("int8 TABLE needs a packed [256] table");
  Dispatch k;
  k.shader = Shader::kTableI8;
  k.outputs = {out};
  k.inputs = inputs;
  UNIVK_RETURN_IF_ERROR(push_strided_unary(k.params, in, out));
  k.work_items = static_cast<uint64_t>(Shape(out.shape).numel());
  return k;
}

}  // namespace

Result<RescaleParams> rescale_params(const TosaOperation& op, const TensorView& in, const TensorView& out) {
  if (in.dtype != DType::kInt8 && in.dtype != DType::kUint8 && in.dtype != DType::kInt32)
    return unsupported("RESCALE input " + std::string(dtype_name(in.dtype)) + " (int8, uint8, int32 only)");
  if (out.dtype != DType::kInt8 && out.dtype != DType::kUint8 && out.dtype != DType::kInt32)
    return unsupported("RESCALE output " + std::string(dtype_name(out.dtype)) + " (int8, uint8, int32 only)");
  RescaleParams r;
  UNIVK_ASSIGN_OR_RETURN(bool scale32, op.attrs.get_bool_or("scale32", true));
  UNIVK_ASSIGN_OR_RETURN(int64_t rounding, op.attrs.get_int_or("rounding_mode", spirv::kRoundingSingle));
  UNIVK_ASSIGN_OR_RETURN(r.per_channel, op.attrs.get_bool_or("per_channel", false));
  UNIVK_ASSIGN_OR_RETURN(r.input_unsigned, op.attrs.get_bool_or("input_unsigned", false));
  UNIVK_ASSIGN_OR_RETURN(r.output_unsigned, op.attrs.get_bool_or("output_unsigned", false));
  UNIVK_ASSIGN_OR_RETURN(r.multiplier, op.attrs.get_ints("multiplier"));
  UNIVK_ASSIGN_OR_RETURN(r.shift, op.attrs.get_ints("shift"));
  UNIVK_ASSIGN_OR_RETURN(r.input_zp, op.attrs.get_int_or("input_zp", 0));
  UNIVK_ASSIGN_OR_RETURN(r.output_zp, op.attrs.get_int_or("output_zp", 0));
  if (rounding == spirv::kRoundingDouble && !scale32) return invalid_argument("DOUBLE_ROUND requires scale32");
  r.double_round = rounding == spirv::kRoundingDouble;
  if ((r.input_unsigned || r.output_unsigned) && (in.dtype == DType::kInt32 || out.dtype == DType::kInt32))
    return invalid_argument("unsigned int32 is not allowed");
  if ((r.input_zp != 0 && in.dtype == DType::kInt32) || (r.output_zp != 0 && out.dtype == DType::kInt32))
    return invalid_argument("int32 zero points must be 0");
  const int64_t channels = r.per_channel ? in.shape.back() : 1;
  if (static_cast<int64_t>(r.multiplier.size()) != channels || static_cast<int64_t>(r.shift.size()) != channels)
    return invalid_argument("multiplier and shift need " + std::to_string(channels) + " values each");
  for (size_t c = 0; c < r.multiplier.size(); ++c) {
    if (r.shift[c] < 2 || r.shift[c] > 62) return invalid_argument("shift must be in 2..62");
    if (r.multiplier[c] < 0 || r.multiplier[c] > (scale32 ? INT32_MAX : INT16_MAX))
      return invalid_argument("multiplier out of range for scale32=" + std::to_string(scale32));
  }
  return r;
}

namespace {

// The int8 convolution's epilogue: only the int clamp and the requantization.
bool fuse_int8_epilogue(Dispatch& k, kernels::Conv2dI8Problem problem, const KernelEpilogue& epilogue) {
  if (epilogue.addend || epilogue.clamp) return false;
  if (epilogue.int_clamp) std::tie(problem.acc_lo, problem.acc_hi) = *epilogue.int_clamp;
  std::vector<TensorView> inputs = k.inputs;
  TensorView output = k.outputs[0];
  if (epilogue.requantize) {
    const auto& params = epilogue.requantize_params;
    const auto& out = epilogue.requantized_output;
    if (!params || !out || inputs.size() != 3 || params->dtype != DType::kInt32 || out->dtype != DType::kInt8 ||
        out->shape != output.shape || out->strides != output.strides)
      return false;
    problem.requantize = epilogue.requantize;
    inputs.push_back(*params);
    output = *out;
    if (problem.requantize->residual) {
      const auto& skip = epilogue.skip;
      if (!skip || skip->dtype != DType::kInt8 || skip->shape != output.shape) return false;
      inputs.push_back(*skip);
    }
  }
  k.problem = std::move(problem);
  k.inputs = std::move(inputs);
  k.outputs = {std::move(output)};
  return true;
}

}  // namespace

bool fuse_kernel_epilogue(Dispatch& k, const KernelEpilogue& epilogue) {
  if (!k.kernel || k.outputs.size() != 1) return false;
  if (const auto* i8 = std::get_if<kernels::Conv2dI8Problem>(&k.problem)) return fuse_int8_epilogue(k, *i8, epilogue);
  if (epilogue.int_clamp || epilogue.requantize) return false;
  const TensorView& out = k.outputs[0];
  kernels::Problem problem = k.problem;
  std::vector<TensorView> inputs = k.inputs;
  kernels::Epilogue* e = nullptr;
  if (auto* gemm = std::get_if<kernels::GemmProblem>(&problem)) {
    e = &gemm->epilogue;
    if (epilogue.addend) {
      // The bias binding (input 2), read through its broadcast strides.
      const TensorView& bias = *epilogue.addend;
      if (bias.dtype != DType::kFloat32 || bias.shape.size() != 3 || inputs.size() != 2) return false;
      auto strides = broadcast_strides(bias, out.shape);
      if (!strides.ok()) return false;
      gemm->bias = {0, (*strides)[0], (*strides)[1], (*strides)[2]};
      gemm->beta = 1.0f;
      e->bias = true;
      inputs.push_back(bias);
    }
  } else {
    auto* conv = std::get_if<kernels::Conv2dProblem>(&problem);
    auto* dw = std::get_if<kernels::DepthwiseProblem>(&problem);
    if (!conv && !dw) return false;
    e = conv ? &conv->epilogue : &dw->epilogue;
    if (epilogue.addend) {
      // The residual binding (input 3), read through the output's strides.
      const TensorView& residual = *epilogue.addend;
      if (residual.dtype != DType::kFloat32 || residual.shape != out.shape || residual.strides != out.strides ||
          inputs.size() != 3)
        return false;
      e->residual = true;
      inputs.push_back(residual);
    }
  }
  if (epilogue.clamp) {
    e->activation = kernels::Activation::kClamp;
    e->lo = epilogue.clamp->first;
    e->hi = epilogue.clamp->second;
  }
  k.problem = std::move(problem);
  k.inputs = std::move(inputs);
  return true;
}

// TRANSPOSE_CONV2D (fp32, weight OHWI) on the kernel library's transposed convolution, over the
// NHWC views; TOSA's out_pad is the kernel's negated padding.
Result<Dispatch> emit_transpose_conv(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                     const TensorView& output) {
  if (inputs.size() != 3) return invalid_argument("TRANSPOSE_CONV2D needs input, weight and bias");
  UNIVK_RETURN_IF_ERROR(require_f32(inputs, output));
  const TensorView &in = inputs[0], &w = inputs[1], &bias = inputs[2];
  if (in.shape.size() != 4 || w.shape.size() != 4 || output.shape.size() != 4 || bias.shape.size() != 1)
    return invalid_argument("TRANSPOSE_CONV2D ranks must be 4 (input, weight, output) and 1 (bias)");
  if (!packed(w) || !packed(bias)) return unsupported("TRANSPOSE_CONV2D weight and bias must be packed");
  UNIVK_ASSIGN_OR_RETURN(double in_zp, op.attrs.get_float_or("input_zp", 0.0));
  UNIVK_ASSIGN_OR_RETURN(double w_zp, op.attrs.get_float_or("weight_zp", 0.0));
  if (in_zp != 0.0 || w_zp != 0.0) return invalid_argument("float convolution needs zero points of 0");
  const int64_t oc = w.shape[0], kh = w.shape[1], kw = w.shape[2];
  if (w.shape[3] != in.shape[3] || oc != output.shape[3] || in.shape[0] != output.shape[0])
    return invalid_argument("TRANSPOSE_CONV2D channel counts do not match the weight");
  if (bias.shape[0] != oc && bias.shape[0] != 1) return invalid_argument("bias must have OC or 1 elements");
  UNIVK_ASSIGN_OR_RETURN(ops::TosaTransposeConv2d tc, ops::tosa_transpose_conv2d(op.attrs, Shape(in.shape), kh, kw));
  if (tc.out_h != output.shape[1] || tc.out_w != output.shape[2]) {
    return invalid_argument("output shape " + Shape(output.shape).to_string() +
                            " does not follow the TOSA transposed convolution rule (" + std::to_string(tc.out_h) + "x" +
                            std::to_string(tc.out_w) + ")");
  }
  kernels::ConvTranspose2dProblem p;
  p.batch = in.shape[0], p.in_h = in.shape[1], p.in_w = in.shape[2], p.in_channels = in.shape[3];
  p.out_h = tc.out_h, p.out_w = tc.out_w, p.out_channels = oc;
  p.kernel_h = kh, p.kernel_w = kw;
  p.stride_h = tc.stride[0], p.stride_w = tc.stride[1];
  p.pad_top = -tc.out_pad[0], p.pad_left = -tc.out_pad[2];
  p.input = nhwc_strides(in);
  p.output = nhwc_strides(output);
  p.weight = kernels::ConvTransposeWeightStrides::ohwi(p.in_channels, kh, kw);
  p.bias_broadcast = bias.shape[0] == 1;
  p.epilogue.bias = true;
  return library_dispatch(p, inputs, output);
}

Result<std::vector<Dispatch>> emit_grouped_conv(const TosaOperation& group, int64_t groups,
                                                const std::vector<TensorView>& inputs, const TensorView& output) {
  if (inputs.size() != 3 || groups < 2) return invalid_argument("grouped convolution needs input, weight and bias");
  const TensorView &in = inputs[0], &w = inputs[1], &bias = inputs[2];
  if (in.shape.size() != 4 || w.shape.size() != 4 || bias.shape.size() != 1 || output.shape.size() != 4 ||
      in.shape[3] % groups != 0 || w.shape[0] % groups != 0 || bias.shape[0] != w.shape[0] ||
      output.shape[3] != w.shape[0])
    return invalid_argument("grouped convolution shapes do not split into " + std::to_string(groups) + " groups");
  // Group 0's views: emit_conv checks them (and the attributes) as one TOSA CONV2D.
  std::vector<TensorView> first = inputs;
  first[0].shape[3] /= groups;
  first[1].shape[0] /= groups;
  first[2].shape[0] /= groups;
  TensorView first_output = output;
  first_output.shape[3] /= groups;
  UNIVK_ASSIGN_OR_RETURN(Dispatch k, emit_conv(group, first, first_output));
  auto* p = std::get_if<kernels::Conv2dProblem>(&k.problem);
  if (p == nullptr) return unsupported("grouped convolution on " + std::string(dtype_name(in.dtype)));
  kernels::Conv2dProblem whole = *p;
  whole.groups = groups;
  whole.in_channels = in.shape[3];
  whole.out_channels = output.shape[3];
  UNIVK_ASSIGN_OR_RETURN(Dispatch grouped, library_dispatch(whole, inputs, output));
  return std::vector<Dispatch>{std::move(grouped)};
}

Result<std::vector<Dispatch>> emit_compute(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                           const TensorView& output) {
  Result<Dispatch> dispatch = unsupported("");
  switch (op.op) {
    case TosaOp::kConv2d:
    case TosaOp::kDepthwiseConv2d:
      dispatch = emit_conv(op, inputs, output);
      break;
    case TosaOp::kMatmul:
      dispatch = emit_matmul(op, inputs, output);
      break;
    case TosaOp::kTransposeConv2d:
      dispatch = emit_transpose_conv(op, inputs, output);
      break;
    case TosaOp::kReduceSum:
    case TosaOp::kReduceMax:
    case TosaOp::kReduceMin:
    case TosaOp::kReduceProduct:
    case TosaOp::kReduceAll:
    case TosaOp::kReduceAny:
    case TosaOp::kArgmax:
      dispatch = emit_reduce(op, inputs, output);
      break;
    case TosaOp::kCast:
      dispatch = emit_cast(inputs[0], output);
      break;
    case TosaOp::kRescale:
      dispatch = emit_rescale(op, inputs[0], output);
      break;
    case TosaOp::kTable:
      dispatch = emit_table(inputs, output);
      break;
    case TosaOp::kResize:
      dispatch = emit_resize(op, inputs, output);
      break;
    case TosaOp::kEqual:
    case TosaOp::kGreater:
    case TosaOp::kGreaterEqual:
    case TosaOp::kLogicalAnd:
    case TosaOp::kLogicalOr:
    case TosaOp::kLogicalXor:
    case TosaOp::kLogicalNot:
    case TosaOp::kSelect:
      dispatch = emit_logic(op, inputs, output);
      break;
    case TosaOp::kGather:
      dispatch = emit_gather(inputs, output);
      break;
    default: {
      std::string types;
      for (const auto& v : inputs) types += (types.empty() ? "" : ", ") + std::string(dtype_name(v.dtype));
      return unsupported(std::string(spirv::tosa_op_name(op.op)) + " on " + types + " -> " +
                         std::string(dtype_name(output.dtype)) + " is not implemented by the VgfBackend's lowering");
    }
  }
  if (!dispatch.ok()) return dispatch.status();
  dispatch->label = std::string(spirv::tosa_op_name(op.op));
  return std::vector<Dispatch>{std::move(dispatch.value())};
}

}  // namespace univk::backends::vgf
