// Convolutions TOSA 1.0 has no single operator for, written as compositions of its operators.
#include "tosa_lowering.h"

namespace univk::compiler::detail {

using spirv::TosaOp;

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

}  // namespace univk::compiler::detail
