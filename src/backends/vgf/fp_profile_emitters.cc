// Emitters of the TOSA 1.0 FP-profile operators with shaders of their own: SCATTER
// (shaders/scatter.comp after a copy), CONV3D (shaders/conv3d_f32.comp) and FFT2D / RFFT2D
// (shaders/dft_f32.comp), whose parameter layouts they match. Each is one dispatch that must fit
// the binding limit whole (lower_graph checks it).
#include <string>

#include "emitter_internal.h"
#include "univk/ops/tosa_ops.h"

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

namespace {

Status append_all(std::vector<uint32_t>& params, const std::vector<int64_t>& values, const char* what) {
  for (int64_t v : values) UNIVK_RETURN_IF_ERROR(append_u32(params, v, what));
  return ok_status();
}

Status require_dtype(const TensorView& v, DType want, const std::string& what) {
  if (v.dtype != want)
    return unsupported(what + " " + std::string(dtype_name(v.dtype)) + " (" + std::string(dtype_name(want)) + " only)");
  return ok_status();
}

}  // namespace

Result<std::vector<Dispatch>> emit_scatter(const std::vector<TensorView>& inputs, const TensorView& output,
                                           const BindingLimit& limit) {
  if (inputs.size() != 3) return invalid_argument("SCATTER takes values_in, indices and input");
  const TensorView &values_in = inputs[0], &indices = inputs[1], &input = inputs[2];
  if (dtype_size(values_in.dtype) != 4 || indices.dtype != DType::kInt32 || input.dtype != values_in.dtype ||
      output.dtype != values_in.dtype)
    return unsupported("SCATTER of " + std::string(dtype_name(values_in.dtype)) + " by " +
                       std::string(dtype_name(indices.dtype)) + " (32-bit values, int32 indices)");
  UNIVK_ASSIGN_OR_RETURN(Shape shape,
                         ops::tosa_scatter(Shape(values_in.shape), Shape(indices.shape), Shape(input.shape)));
  UNIVK_RETURN_IF_ERROR(check_declared_output("SCATTER", shape, output));
  UNIVK_ASSIGN_OR_RETURN(std::vector<Dispatch> dispatches, emit_copy(values_in, output, limit));
  if (Shape(input.shape).numel() == 0) return dispatches;
  Dispatch k;
  k.shader = Shader::kScatter;
  k.outputs = {output};
  k.inputs = {indices, input};
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, Shape(input.shape).numel(), "element count"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {output.shape[1], input.shape[1], input.shape[2]}, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, output.strides, "stride"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, indices.strides, "stride"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, input.strides, "stride"));
  k.work_items = static_cast<uint64_t>(Shape(input.shape).numel());
  k.label = "SCATTER";
  dispatches.push_back(std::move(k));
  return dispatches;
}

Result<Dispatch> emit_conv3d(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output) {
  if (inputs.size() != 3) return invalid_argument("CONV3D needs input, weight and bias");
  const TensorView &in = inputs[0], &w = inputs[1], &bias = inputs[2];
  for (const TensorView* v : {&in, &w, &bias, &output})
    UNIVK_RETURN_IF_ERROR(require_dtype(*v, DType::kFloat32, "CONV3D"));
  if (in.shape.size() != 5 || w.shape.size() != 5 || output.shape.size() != 5 || bias.shape.size() != 1)
    return invalid_argument("CONV3D ranks must be 5 (input, weight, output) and 1 (bias)");
  UNIVK_ASSIGN_OR_RETURN(double in_zp, op.attrs.get_float_or("input_zp", 0.0));
  UNIVK_ASSIGN_OR_RETURN(double w_zp, op.attrs.get_float_or("weight_zp", 0.0));
  if (in_zp != 0.0 || w_zp != 0.0) return invalid_argument("float convolution needs zero points of 0");
  const int64_t oc = w.shape[0];
  if (w.shape[4] != in.shape[4] || oc != output.shape[4] || in.shape[0] != output.shape[0])
    return invalid_argument("CONV3D channel counts do not match the weight");
  if (bias.shape[0] != oc && bias.shape[0] != 1) return invalid_argument("bias must have OC or 1 elements");
  UNIVK_ASSIGN_OR_RETURN(ops::TosaConv3d cw,
                         ops::tosa_conv3d(op.attrs, Shape(in.shape), w.shape[1], w.shape[2], w.shape[3]));
  UNIVK_RETURN_IF_ERROR(check_declared_output("CONV3D", Shape{in.shape[0], cw.out_d, cw.out_h, cw.out_w, oc}, output));
  Dispatch k;
  k.shader = Shader::kConv3dF32;
  k.outputs = {output};
  k.inputs = inputs;
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, Shape(output.shape).numel(), "element count"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, output.shape, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {in.shape[1], in.shape[2], in.shape[3], in.shape[4]}, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {w.shape[1], w.shape[2], w.shape[3]}, "kernel"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {cw.stride[0], cw.stride[1], cw.stride[2]}, "stride"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {cw.dilation[0], cw.dilation[1], cw.dilation[2]}, "dilation"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {cw.pad[0], cw.pad[2], cw.pad[4]}, "padding"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, output.strides, "stride"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, in.strides, "stride"));
  UNIVK_RETURN_IF_ERROR(append_all(k.params, w.strides, "stride"));
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, bias.shape[0] == 1 ? 0 : bias.strides[0], "stride"));
  k.work_items = static_cast<uint64_t>(Shape(output.shape).numel());
  k.label = "CONV3D";
  return k;
}

Result<Dispatch> emit_dft(const TosaOperation& op, const std::vector<TensorView>& inputs,
                          const std::vector<TensorView>& outputs) {
  const bool complex_input = op.op == TosaOp::kFft2d;
  const std::string name(spirv::tosa_op_name(op.op));
  if (inputs.size() != (complex_input ? 2u : 1u) || outputs.size() != 2)
    return invalid_argument(name + " has the wrong number of inputs or results");
  for (const TensorView& v : inputs) UNIVK_RETURN_IF_ERROR(require_dtype(v, DType::kFloat32, name));
  for (const TensorView& v : outputs) UNIVK_RETURN_IF_ERROR(require_dtype(v, DType::kFloat32, name));
  Result<Shape> shape = complex_input ? ops::tosa_fft2d(Shape(inputs[0].shape), Shape(inputs[1].shape))
                                      : ops::tosa_rfft2d(Shape(inputs[0].shape));
  if (!shape.ok()) return shape.status().with_context(name);
  for (const TensorView& v : outputs) UNIVK_RETURN_IF_ERROR(check_declared_output(name.c_str(), *shape, v));
  bool inverse = false;
  if (complex_input) {
    UNIVK_ASSIGN_OR_RETURN(inverse, op.attrs.get_bool_or("inverse", false));
  }
  Dispatch k;
  k.shader = Shader::kDftF32;
  k.outputs = outputs;
  k.inputs = {inputs[0], inputs.back()};  // RFFT2D: the imaginary binding is never read
  const TensorView& in = inputs[0];
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, shape->numel(), "element count"));
  k.params.push_back(complex_input ? 1u : 0u);
  k.params.push_back(inverse ? 1u : 0u);
  UNIVK_RETURN_IF_ERROR(append_all(k.params, {in.shape[1], in.shape[2], (*shape)[2]}, "dimension"));
  for (const TensorView& v : outputs) UNIVK_RETURN_IF_ERROR(append_all(k.params, v.strides, "stride"));
  for (const TensorView& v : k.inputs) UNIVK_RETURN_IF_ERROR(append_all(k.params, v.strides, "stride"));
  k.work_items = static_cast<uint64_t>(shape->numel());
  k.label = name;
  return k;
}

}  // namespace univk::backends::vgf
