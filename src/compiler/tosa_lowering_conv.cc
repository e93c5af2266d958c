// Transposed convolutions (TOSA TRANSPOSE_CONV2D), 3-d convolutions (CONV3D) and the grouped
// convolutions TOSA 1.0 has no single operator for, written as compositions of its operators.
#include "tosa_lowering.h"
#include "univk/ops/torch_ops.h"
#include "univk/ops/torch_volume_ops.h"

namespace univk::compiler::detail {

using spirv::TosaOp;

// PyTorch's conv_transpose2d as TRANSPOSE_CONV2D: output row oy = iy * stride - padding + ky, so
// out_pad is [-padding, -padding + output_padding] per dim, and the weight [C, OC, KH, KW]
// becomes OHWI. TOSA has no groups or dilation for it, and takes out_pad above -KH (-KW).
Status TosaLowering::lower_conv_transpose2d(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::ConvTranspose2d cv, ops::conv_transpose2d(node.attrs, shapes));
  if (!cv.batched) return unsupported("conv_transpose2d on a rank-3 input");
  if (cv.groups != 1) return unsupported("conv_transpose2d with groups=" + std::to_string(cv.groups) + " (TOSA: 1)");
  if (cv.dilation[0] != 1 || cv.dilation[1] != 1) return unsupported("conv_transpose2d with dilation (TOSA: 1)");
  const Value& wv = graph_.value(node.inputs[1]);
  if (wv.kind != ValueKind::kConstant) return unsupported("conv_transpose2d with a weight that is not a constant");
  HostTensor bias(DType::kFloat32, Shape{cv.oc});
  if (node.inputs.size() == 3) {
    const Value& bv = graph_.value(node.inputs[2]);
    if (bv.kind != ValueKind::kConstant) return unsupported("conv_transpose2d with a bias that is not a constant");
    bias = *bv.constant;
  }
  const std::vector<int64_t> out_pad = {-cv.padding[0], -cv.padding[0] + cv.output_padding[0], -cv.padding[1],
                                        -cv.padding[1] + cv.output_padding[1]};
  for (size_t i = 0; i < 4; ++i) {
    const int64_t k = i < 2 ? cv.kh : cv.kw;
    if (out_pad[i] <= -k) {
      return unsupported("conv_transpose2d with padding " + std::to_string(-out_pad[i]) + " >= kernel " +
                         std::to_string(k) + " (TOSA limit)");
    }
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNhwc));
  Attributes a;
  a.set("out_pad", out_pad);
  a.set("stride", std::vector<int64_t>{cv.stride[0], cv.stride[1]});
  a.set("acc_type", spirv::kAccFp32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", int64_t{0});
  a.set("weight_zp", int64_t{0});
  const TosaId weight = constant(permute_tensor(*wv.constant, {1, 2, 3, 0}));  // [C,OC,KH,KW] -> OHWI
  set(node.outputs[0], Layout::kNhwc,
      op(TosaOp::kTransposeConv2d, {x, weight, constant(bias)}, std::move(a), permuted(cv.output.dims(), kToNhwc)));
  return ok_status();
}

// A grouped convolution (groups neither 1 nor depthwise) as one CONV2D per group over a SLICE
// of the input's channels, with its weights and bias SLICEs of the whole convolution's
// [OC, KH, KW, C/groups] weight and [OC] bias constants, the results CONCATenated along the
// channels in group order. The VgfBackend recognises this shape (the slices of one input,
// weight and bias in group order, one CONCAT reading every result once) and runs it as one
// grouped kernel (docs/VGF_BACKEND.md, "Grouped convolutions"); TOSA consumers that do not
// recognise it still compute the same result.
TosaLowering::TosaId TosaLowering::grouped_conv2d(TosaId x, TosaId weight, TosaId bias, int64_t groups,
                                                  const Attributes& conv_attrs, const std::vector<int64_t>& out_shape) {
  const std::vector<int64_t> in_shape = shape_of(x), w_shape = shape_of(weight);
  const int64_t ic_per_group = in_shape[3] / groups, oc_per_group = w_shape[0] / groups;
  auto slice = [&](TosaId value, size_t axis, int64_t start, int64_t length) {
    std::vector<int64_t> sizes = shape_of(value), starts(sizes.size(), 0);
    starts[axis] = start;
    sizes[axis] = length;
    Attributes a;
    a.set("start", starts);
    a.set("size", sizes);
    return op(TosaOp::kSlice, {value}, std::move(a), sizes, tosa_.values[value].type.dtype);
  };
  std::vector<int64_t> group_shape = out_shape;
  group_shape[3] = oc_per_group;
  std::vector<TosaId> results;
  for (int64_t g = 0; g < groups; ++g) {
    const TosaId xg = slice(x, 3, g * ic_per_group, ic_per_group);
    const TosaId wg = slice(weight, 0, g * oc_per_group, oc_per_group);
    const TosaId bg = slice(bias, 0, g * oc_per_group, oc_per_group);
    results.push_back(op(TosaOp::kConv2d, {xg, wg, bg}, conv_attrs, group_shape));
  }
  Attributes a;
  a.set("axis", int64_t{3});
  return op(TosaOp::kConcat, std::move(results), std::move(a), out_shape);
}

// PyTorch's conv3d (groups 1) as CONV3D on NDHWC: the input transposed from NCDHW, the weight
// [OC, C, KD, KH, KW] permuted to [OC, KD, KH, KW, C] at compile time, the result transposed
// back. TOSA's exact output-size rule takes the padding after each axis that PyTorch's rounded
// down size implies; where that is negative (PyTorch drops trailing input rows), the input is
// cropped by a SLICE instead.
Status TosaLowering::lower_conv3d(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::Conv3d cv, ops::conv3d(node.attrs, shapes));
  if (!cv.batched) return unsupported("conv3d on a rank-4 input");
  if (cv.groups != 1) return unsupported("conv3d with groups=" + std::to_string(cv.groups) + " (TOSA CONV3D: 1)");
  const Value& wv = graph_.value(node.inputs[1]);
  if (wv.kind != ValueKind::kConstant) return unsupported("conv3d with a weight that is not a constant");
  HostTensor bias(DType::kFloat32, Shape{cv.oc});
  if (node.inputs.size() == 3) {
    const Value& bv = graph_.value(node.inputs[2]);
    if (bv.kind != ValueKind::kConstant) return unsupported("conv3d with a bias that is not a constant");
    bias = *bv.constant;
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNatural));
  x = transpose(x, {0, 2, 3, 4, 1});
  std::vector<int64_t> pad(6), sizes = shape_of(x), starts(5, 0);
  bool crop = false;
  for (size_t a = 0; a < 3; ++a) {
    const int64_t needed = (cv.out[a] - 1) * cv.stride[a] + cv.dilation[a] * (cv.kernel[a] - 1) + 1;
    int64_t after = needed - cv.in[a] - cv.padding[a];
    if (after < 0) {
      if (cv.in[a] + after < 1) return unsupported("conv3d whose windows read only padding along an axis");
      sizes[a + 1] = cv.in[a] + after;
      after = 0;
      crop = true;
    }
    pad[2 * a] = cv.padding[a];
    pad[2 * a + 1] = after;
  }
  if (crop) {
    Attributes s;
    s.set("start", starts);
    s.set("size", sizes);
    x = op(TosaOp::kSlice, {x}, std::move(s), sizes);
  }
  Attributes a;
  a.set("pad", pad);
  a.set("stride", std::vector<int64_t>{cv.stride[0], cv.stride[1], cv.stride[2]});
  a.set("dilation", std::vector<int64_t>{cv.dilation[0], cv.dilation[1], cv.dilation[2]});
  a.set("acc_type", spirv::kAccFp32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", int64_t{0});
  a.set("weight_zp", int64_t{0});
  const TosaId weight = constant(permute_tensor(*wv.constant, {0, 2, 3, 4, 1}));
  const TosaId y =
      op(TosaOp::kConv3d, {x, weight, constant(bias)}, std::move(a), {cv.n, cv.out[0], cv.out[1], cv.out[2], cv.oc});
  set(node.outputs[0], Layout::kNatural, transpose(y, {0, 4, 1, 2, 3}));
  return ok_status();
}

}  // namespace univk::compiler::detail
