// The conformance cases and the tolerance table. To add a case: append it to its op family
// below (op, a name unique within the op, attributes, operands); every built backend that
// claims it runs it. A new op also needs a row in the tolerance table and a
// UNIVK_CONFORMANCE_OP line in conformance_test.cc.
#include "cases.h"

#include <cmath>
#include <map>
#include <utility>

namespace univk::conformance {
namespace {

using I = std::vector<int64_t>;

Attributes attrs(std::initializer_list<std::pair<const char*, AttrValue>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}
AttrValue i64(int64_t v) { return AttrValue(v); }
AttrValue f64(double v) { return AttrValue(v); }
AttrValue ints(I v) { return AttrValue(std::move(v)); }
AttrValue str(const char* v) { return AttrValue(std::string(v)); }

// A graph input / a graph constant of fp32 values in [lo, hi).
Operand in(Shape s, double lo = -2.0, double hi = 2.0) { return Operand{std::move(s), false, {lo, hi}}; }
Operand weight(Shape s, double lo = -1.0, double hi = 1.0) { return Operand{std::move(s), true, {lo, hi}}; }

class Table {
 public:
  void add(const std::string& op, const std::string& name, Attributes a, std::vector<Operand> inputs) {
    cases_.push_back(OpCase{op, name, std::move(a), std::move(inputs), std::nullopt});
  }
  // A quantized op's case, its result `result` (dtype and shape).
  void add_quantized(const std::string& op, const std::string& name, Attributes a, std::vector<Operand> inputs,
                     Operand result) {
    cases_.push_back(OpCase{op, name, std::move(a), std::move(inputs), std::move(result)});
  }
  std::vector<OpCase> take() { return std::move(cases_); }

 private:
  std::vector<OpCase> cases_;
};

void unary_cases(Table& t) {
  for (const char* op : {"sigmoid", "tanh", "relu", "relu6", "gelu", "silu", "hardswish", "hardsigmoid", "exp", "neg",
                         "abs", "reciprocal"}) {
    t.add(op, "1d_odd", {}, {in(Shape{7}, -8, 8)});
    t.add(op, "4d_odd", {}, {in(Shape{2, 3, 5, 17}, -8, 8)});
    t.add(op, "vec4", {}, {in(Shape{2, 3, 4, 17}, -8, 8)});  // element count a multiple of 4
  }
  for (const char* op : {"log", "sqrt", "rsqrt"}) {
    t.add(op, "3d_odd", {}, {in(Shape{3, 5, 17}, 0.05, 5)});
    t.add(op, "vec4", {}, {in(Shape{3, 4, 17}, 0.05, 5)});
    t.add(op, "2d", {}, {in(Shape{3, 5}, 1, 3)});
  }
  for (const char* op : {"floor", "ceil", "sin", "cos"}) {
    t.add(op, "3d_odd", {}, {in(Shape{3, 5, 17}, -6, 6)});
    t.add(op, "vec4", {}, {in(Shape{2, 4, 9}, -6, 6)});
    t.add(op, "nhwc_small", {}, {in(Shape{1, 3, 4, 5}, -3, 3)});
  }
  t.add("reciprocal", "positive", {}, {in(Shape{3, 5}, 1, 3)});
  t.add("relu", "rank0", {}, {in(Shape{})});
  t.add("sigmoid", "nchw_small", {}, {in(Shape{1, 3, 4, 5})});
  t.add("exp", "5d", {}, {in(Shape{2, 1, 3, 2, 5})});
  t.add("gelu", "approximate_tanh", attrs({{"approximate", str("tanh")}}), {in(Shape{3, 67}, -6, 6)});
  t.add("gelu", "approximate_none", attrs({{"approximate", str("none")}}), {in(Shape{2, 9}, -4, 4)});
  t.add("hardtanh", "custom_range", attrs({{"min_val", f64(-0.5)}, {"max_val", f64(1.5)}}), {in(Shape{41})});
  t.add("hardtanh", "default", {}, {in(Shape{1, 3, 4, 5})});
  t.add("clamp", "both", attrs({{"min", f64(-0.25)}, {"max", f64(0.75)}}), {in(Shape{5, 9})});
  t.add("clamp", "min_only", attrs({{"min", f64(0.1)}}), {in(Shape{5, 9})});
  t.add("clamp", "max_only_int", attrs({{"max", i64(1)}}), {in(Shape{5, 9})});
  t.add("clamp", "both_2x7", attrs({{"min", f64(-0.5)}, {"max", f64(0.25)}}), {in(Shape{2, 7})});
  t.add("clamp", "min_only_2x7", attrs({{"min", f64(-0.5)}}), {in(Shape{2, 7})});
}

void binary_cases(Table& t) {
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    const bool div = std::string(op) == "div";
    const double lo = div ? 0.5 : -2.0, hi = 2.0;  // divisors away from zero
    t.add(op, "same_shape", {}, {in(Shape{3, 17}, lo, hi), in(Shape{3, 17}, lo, hi)});
    t.add(op, "broadcast_both", {}, {in(Shape{2, 1, 5}, lo, hi), in(Shape{3, 1}, lo, hi)});
    t.add(op, "broadcast_row", {}, {in(Shape{4, 6, 5}, lo, hi), in(Shape{5}, lo, hi)});
    t.add(op, "rank0_tensor", {}, {in(Shape{}, lo, hi), in(Shape{3, 2}, lo, hi)});
    t.add(op, "scalar_other", attrs({{"other", f64(0.75)}}), {in(Shape{4, 7}, lo, hi)});
    t.add(op, "scalar_first", attrs({{"other", f64(-1.5)}, {"scalar_first", i64(1)}}), {in(Shape{4, 7}, lo, hi)});
    t.add(op, "scalar_first_small", attrs({{"other", f64(1.5)}, {"scalar_first", i64(1)}}), {in(Shape{2, 3}, lo, hi)});
    t.add(op, "constant_per_channel", {}, {in(Shape{1, 3, 4, 4}, lo, hi), weight(Shape{3, 1, 1}, 0.1, 1.0)});
    t.add(op, "odd_4d", {}, {in(Shape{2, 3, 5, 7}, lo, hi), in(Shape{1, 3, 1, 7}, lo, hi)});
  }
  t.add("add", "alpha_broadcast", attrs({{"alpha", f64(-2.5)}}), {in(Shape{2, 3, 4}), in(Shape{3, 1})});
  t.add("add", "alpha_constant", attrs({{"alpha", f64(2.0)}}), {in(Shape{2, 3}), weight(Shape{3})});
  t.add("sub", "alpha_broadcast", attrs({{"alpha", f64(0.5)}}), {in(Shape{5, 1, 3}), in(Shape{1, 4, 3})});
  t.add("add", "alpha_other", attrs({{"alpha", f64(3)}, {"other", f64(0.5)}}), {in(Shape{9})});
  t.add("sub", "alpha_other", attrs({{"alpha", f64(-0.5)}, {"other", f64(3.0)}}), {in(Shape{2, 3})});
  t.add("sub", "alpha_other_first", attrs({{"alpha", f64(2)}, {"other", f64(0.5)}, {"scalar_first", i64(1)}}),
        {in(Shape{9})});
  t.add("add", "6d_broadcast", {}, {in(Shape{2, 1, 3, 1, 2, 1}), in(Shape{1, 4, 1, 5, 1, 3})});
  t.add("div", "other_first", attrs({{"other", f64(3.0)}, {"scalar_first", i64(1)}}), {in(Shape{11}, 0.5, 2)});
  t.add("pow", "tensors", {}, {in(Shape{3, 8}, 0.1, 3), in(Shape{8}, 0.1, 3)});
  t.add("pow", "square", attrs({{"other", f64(2)}}), {in(Shape{3, 8}, -3, 3)});
  t.add("pow", "square_small", attrs({{"other", f64(2.0)}}), {in(Shape{2, 3})});
  t.add("pow", "cube", attrs({{"other", f64(3)}}), {in(Shape{3, 8}, -3, 3)});
  t.add("pow", "sqrt", attrs({{"other", f64(0.5)}}), {in(Shape{3, 8}, 0, 3)});
  t.add("pow", "scalar_base", attrs({{"other", f64(2.0)}, {"scalar_first", i64(1)}}), {in(Shape{11})});
}

void pool_cases(Table& t) {
  t.add("avg_pool2d", "k2", attrs({{"kernel_size", ints({2, 2})}}), {in(Shape{1, 3, 8, 8})});
  t.add("avg_pool2d", "k3_stride2_pad1", attrs({{"kernel_size", i64(3)}, {"stride", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{2, 3, 7, 9})});
  t.add("avg_pool2d", "k3_stride2_pad1_ceil_exclude_pad",
        attrs({{"kernel_size", i64(3)},
               {"stride", i64(2)},
               {"padding", i64(1)},
               {"ceil_mode", i64(1)},
               {"count_include_pad", i64(0)}}),
        {in(Shape{1, 2, 8, 11})});
  t.add(
      "avg_pool2d", "k3x2_stride2x3_pad1_ceil_include_pad",
      attrs(
          {{"kernel_size", ints({3, 2})}, {"stride", ints({2, 3})}, {"padding", ints({1, 1})}, {"ceil_mode", i64(1)}}),
      {in(Shape{1, 2, 10, 9})});
  t.add("avg_pool2d", "divisor_override_unbatched",
        attrs({{"kernel_size", i64(2)}, {"padding", i64(1)}, {"divisor_override", i64(3)}}), {in(Shape{3, 5, 5})});
  t.add("avg_pool2d", "k3_stride2_odd", attrs({{"kernel_size", ints({3, 3})}, {"stride", ints({2, 2})}}),
        {in(Shape{2, 2, 9, 8})});
  t.add("avg_pool2d", "k3_stride2_pad1_include_pad",
        attrs({{"kernel_size", ints({3, 3})}, {"stride", ints({2, 2})}, {"padding", ints({1, 1})}}),
        {in(Shape{1, 2, 7, 6})});
  t.add("avg_pool2d", "k3_pad1_exclude_pad",
        attrs({{"kernel_size", ints({3, 3})}, {"padding", ints({1, 1})}, {"count_include_pad", i64(0)}}),
        {in(Shape{1, 2, 5, 5})});
  t.add("avg_pool2d", "k2_ceil", attrs({{"kernel_size", ints({2, 2})}, {"ceil_mode", i64(1)}}),
        {in(Shape{1, 1, 5, 7})});
  t.add("avg_pool2d", "k1", attrs({{"kernel_size", i64(1)}}), {in(Shape{1, 2, 3, 5})});
  t.add("max_pool2d", "k2", attrs({{"kernel_size", i64(2)}}), {in(Shape{1, 3, 8, 8})});
  t.add("max_pool2d", "k3_stride2_pad1_ceil",
        attrs({{"kernel_size", i64(3)}, {"stride", i64(2)}, {"padding", i64(1)}, {"ceil_mode", i64(1)}}),
        {in(Shape{2, 3, 10, 7})});
  t.add("max_pool2d", "k3_dilation2_pad2",
        attrs({{"kernel_size", i64(3)}, {"stride", i64(1)}, {"padding", i64(2)}, {"dilation", i64(2)}}),
        {in(Shape{1, 2, 9, 8})});
  t.add("max_pool2d", "k2x3_unbatched", attrs({{"kernel_size", ints({2, 3})}}), {in(Shape{3, 7, 7})});
  t.add("max_pool2d", "k3_stride2_pad1",
        attrs({{"kernel_size", ints({3, 3})}, {"stride", ints({2, 2})}, {"padding", ints({1, 1})}}),
        {in(Shape{1, 3, 9, 10})});
  t.add("max_pool2d", "k2_ceil", attrs({{"kernel_size", ints({2, 2})}, {"ceil_mode", i64(1)}}),
        {in(Shape{1, 2, 5, 5})});
  t.add("max_pool2d", "k3_stride1_pad1_odd", attrs({{"kernel_size", i64(3)}, {"stride", i64(1)}, {"padding", i64(1)}}),
        {in(Shape{2, 3, 7, 5})});
  t.add("max_pool2d", "k2_stride1", attrs({{"kernel_size", i64(2)}, {"stride", i64(1)}}), {in(Shape{1, 1, 4, 6})});
  t.add("adaptive_avg_pool2d", "to_3x2", attrs({{"output_size", ints({3, 2})}}), {in(Shape{1, 3, 7, 5})});
  for (const char* op : {"upsample_nearest2d", "upsample_bilinear2d"}) {
    t.add(op, "double", attrs({{"output_size", ints({8, 10})}}), {in(Shape{1, 3, 4, 5})});
    t.add(op, "double_scales", attrs({{"output_size", ints({6, 8})}, {"scales", AttrValue(std::vector<double>{2, 2})}}),
          {in(Shape{2, 2, 3, 4})});
    t.add(op, "odd_sizes", attrs({{"output_size", ints({7, 5})}}), {in(Shape{1, 2, 3, 4})});
    t.add(op, "fractional_scales",
          attrs({{"output_size", ints({4, 7})}, {"scales", AttrValue(std::vector<double>{1.5, 2.5})}}),
          {in(Shape{1, 3, 3, 3})});
    t.add(op, "downsample_chw", attrs({{"output_size", ints({3, 2})}}), {in(Shape{2, 7, 5})});
    t.add(op, "downsample_by_2_3", attrs({{"output_size", ints({3, 2})}}), {in(Shape{2, 2, 6, 6})});
  }
  t.add("upsample_bilinear2d", "align_corners", attrs({{"output_size", ints({9, 7})}, {"align_corners", i64(1)}}),
        {in(Shape{1, 3, 4, 3})});
  t.add("upsample_bilinear2d", "align_corners_half_steps",
        attrs({{"output_size", ints({7, 5})}, {"align_corners", i64(1)}}), {in(Shape{1, 3, 4, 3})});
  t.add("upsample_bilinear2d", "align_corners_to_one",
        attrs({{"output_size", ints({1, 6})}, {"align_corners", i64(1)}}), {in(Shape{1, 2, 3, 3})});
  t.add("adaptive_avg_pool2d", "global", attrs({{"output_size", i64(1)}}), {in(Shape{2, 4, 8, 8})});
  t.add("adaptive_avg_pool2d", "global_1x1_odd", attrs({{"output_size", ints({1, 1})}}), {in(Shape{1, 4, 6, 5})});
  t.add("adaptive_avg_pool2d", "to_2x3_divisible", attrs({{"output_size", ints({2, 3})}}), {in(Shape{1, 2, 4, 6})});
  t.add("adaptive_avg_pool2d", "upsample_unbatched", attrs({{"output_size", ints({5, 6})}}), {in(Shape{2, 3, 4})});
  t.add("adaptive_avg_pool2d", "non_divisible_7x5_to_3x4", attrs({{"output_size", ints({3, 4})}}),
        {in(Shape{2, 3, 7, 5})});
  t.add("adaptive_max_pool2d", "non_divisible_7x5_to_3x2", attrs({{"output_size", ints({3, 2})}}),
        {in(Shape{1, 3, 7, 5})});
  t.add("adaptive_max_pool2d", "global", attrs({{"output_size", i64(1)}}), {in(Shape{2, 4, 6, 5})});
  t.add("adaptive_max_pool2d", "divisible_unbatched", attrs({{"output_size", ints({2, 3})}}), {in(Shape{3, 4, 6})});
  t.add("adaptive_max_pool2d", "larger_than_input", attrs({{"output_size", ints({5, 7})}}), {in(Shape{1, 2, 3, 4})});
}

void conv_cases(Table& t) {
  t.add("conv3d", "stride2_pad1_bias", attrs({{"stride", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{1, 2, 5, 6, 7}), weight(Shape{3, 2, 3, 3, 3}), weight(Shape{3})});
  t.add("conv3d", "dilation_per_axis_nobias", attrs({{"dilation", ints({1, 2, 1})}, {"padding", ints({0, 2, 1})}}),
        {in(Shape{2, 3, 4, 6, 5}), weight(Shape{2, 3, 2, 3, 3})});
  t.add("conv3d", "stride_drops_rows_valid", attrs({{"stride", ints({2, 3, 2})}, {"padding", str("valid")}}),
        {in(Shape{1, 2, 6, 8, 7}), weight(Shape{4, 2, 3, 2, 2}), weight(Shape{4})});
  t.add("conv3d", "groups2", attrs({{"groups", i64(2)}}), {in(Shape{1, 4, 3, 4, 4}), weight(Shape{2, 2, 2, 2, 2})});
  t.add("conv2d", "stride2_pad1_bias", attrs({{"stride", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{1, 3, 9, 7}), weight(Shape{4, 3, 3, 3}), weight(Shape{4})});
  t.add("conv2d", "dilation2_pad2x1_nobias", attrs({{"dilation", i64(2)}, {"padding", ints({2, 1})}}),
        {in(Shape{2, 2, 8, 9}), weight(Shape{3, 2, 3, 2})});
  t.add("conv2d", "groups2_pad1_weight_input", attrs({{"groups", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{1, 4, 6, 6}), in(Shape{6, 2, 3, 3}), in(Shape{6})});
  t.add("conv2d", "stride2_pad1_groups2", attrs({{"groups", i64(2)}, {"stride", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{1, 4, 7, 7}), weight(Shape{4, 2, 3, 3}), weight(Shape{4})});
  t.add("conv2d", "depthwise_stride2_pad1", attrs({{"groups", i64(4)}, {"stride", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{2, 4, 8, 8}), weight(Shape{4, 1, 3, 3}), weight(Shape{4})});
  t.add("conv2d", "depthwise_multiplier2_odd",
        attrs({{"groups", i64(3)}, {"padding", ints({1, 1})}, {"stride", ints({2, 2})}}),
        {in(Shape{1, 3, 7, 7}), weight(Shape{6, 1, 3, 3}), weight(Shape{6})});
  t.add("conv2d", "padding_same_weight_input", attrs({{"padding", str("same")}}),
        {in(Shape{1, 3, 7, 6}), in(Shape{2, 3, 4, 3})});
  t.add("conv2d", "padding_same_dilation2x1", attrs({{"padding", str("same")}, {"dilation", ints({2, 1})}}),
        {in(Shape{1, 2, 7, 6}), weight(Shape{2, 2, 3, 2})});
  t.add("conv2d", "padding_valid", attrs({{"padding", str("valid")}}),
        {in(Shape{1, 2, 6, 5}), weight(Shape{3, 2, 2, 2})});
  t.add("conv2d", "groups2_stride2_channel_blocks", attrs({{"groups", i64(2)}, {"stride", i64(2)}}),
        {in(Shape{2, 6, 9, 8}), weight(Shape{10, 3, 2, 3}), weight(Shape{10})});
  t.add("conv2d", "unbatched_stride1x2", attrs({{"stride", ints({1, 2})}}),
        {in(Shape{3, 6, 7}), weight(Shape{5, 3, 1, 3}), weight(Shape{5})});
  t.add("conv2d", "pad1_bias", attrs({{"padding", ints({1, 1})}}),
        {in(Shape{1, 3, 6, 6}), weight(Shape{4, 3, 3, 3}), weight(Shape{4})});
  t.add("conv2d", "stride2_odd_drops_last_row", attrs({{"stride", ints({2, 2})}}),
        {in(Shape{1, 2, 8, 7}), weight(Shape{3, 2, 3, 3})});
  t.add("conv2d", "pointwise", {}, {in(Shape{2, 5, 3, 3}), weight(Shape{7, 5, 1, 1}), weight(Shape{7})});
  t.add("conv2d", "k5_stride3_pad2", attrs({{"stride", i64(3)}, {"padding", i64(2)}}),
        {in(Shape{1, 2, 11, 10}), weight(Shape{3, 2, 5, 5})});
  t.add("conv2d", "dilation2_stride2", attrs({{"dilation", i64(2)}, {"stride", i64(2)}, {"padding", i64(1)}}),
        {in(Shape{1, 3, 9, 9}), weight(Shape{2, 3, 3, 3}), weight(Shape{2})});
  t.add("conv_transpose2d", "stride2_k2_bias", attrs({{"stride", i64(2)}}),
        {in(Shape{1, 4, 5, 6}), weight(Shape{4, 3, 2, 2}), weight(Shape{3})});
  t.add("conv_transpose2d", "stride2_pad1_output_padding1",
        attrs({{"stride", i64(2)}, {"padding", i64(1)}, {"output_padding", i64(1)}}),
        {in(Shape{2, 3, 4, 5}), weight(Shape{3, 5, 3, 3}), weight(Shape{5})});
  t.add("conv_transpose2d", "stride1_pad1_nobias", attrs({{"padding", i64(1)}}),
        {in(Shape{1, 2, 6, 5}), weight(Shape{2, 3, 3, 3})});
  t.add(
      "conv_transpose2d", "groups2_stride3x2_odd",
      attrs(
          {{"groups", i64(2)}, {"stride", ints({3, 2})}, {"padding", ints({2, 0})}, {"output_padding", ints({2, 1})}}),
      {in(Shape{1, 4, 5, 3}), weight(Shape{4, 3, 4, 3}), weight(Shape{6})});
  t.add("conv_transpose2d", "dilation2_output_padding1",
        attrs({{"dilation", i64(2)}, {"output_padding", i64(1)}, {"padding", ints({1, 2})}}),
        {in(Shape{1, 3, 4, 4}), weight(Shape{3, 2, 3, 3}), weight(Shape{2})});
  t.add("conv_transpose2d", "depthwise_unbatched", attrs({{"groups", i64(3)}, {"stride", i64(2)}}),
        {in(Shape{3, 4, 3}), in(Shape{3, 1, 3, 3}), in(Shape{3})});
  t.add("conv_transpose2d", "k5x2_stride3x2_pad2x1_output_padding2x1",
        attrs({{"stride", ints({3, 2})}, {"padding", ints({2, 1})}, {"output_padding", ints({2, 1})}}),
        {in(Shape{2, 5, 3, 4}), weight(Shape{5, 7, 5, 2}), weight(Shape{7})});
  t.add("conv_transpose2d", "stride2_pad2_crops_k3", attrs({{"stride", i64(2)}, {"padding", i64(2)}}),
        {in(Shape{1, 3, 5, 5}), weight(Shape{3, 2, 3, 3}), weight(Shape{2})});
  t.add("conv_transpose2d", "padding_at_kernel_declined_by_vgf", attrs({{"stride", i64(3)}, {"padding", i64(2)}}),
        {in(Shape{1, 2, 4, 4}), weight(Shape{2, 2, 2, 2})});
}

void matmul_cases(Table& t) {
  t.add("linear", "bias_constant", {}, {in(Shape{3, 5}), weight(Shape{7, 5}), weight(Shape{7})});
  t.add("linear", "3d_nobias", {}, {in(Shape{2, 3, 37}), in(Shape{33, 37})});
  t.add("linear", "2d_bias", {}, {in(Shape{2, 5}), weight(Shape{4, 5}, 0.1, 1), weight(Shape{4}, 0.1, 1)});
  t.add("linear", "3d_constant_nobias", {}, {in(Shape{2, 3, 5}), weight(Shape{4, 5}, 0.1, 1)});
  t.add("linear", "1d_input", {}, {in(Shape{6}), weight(Shape{3, 6}), weight(Shape{3})});
  t.add("linear", "4d_input", {}, {in(Shape{2, 2, 3, 5}), weight(Shape{4, 5}), weight(Shape{4})});
  t.add("matmul", "2d", {}, {in(Shape{4, 5}), in(Shape{5, 3})});
  t.add("matmul", "large_tiles", {}, {in(Shape{67, 45}), in(Shape{45, 35})});
  t.add("matmul", "batched_shared_rhs", {}, {in(Shape{2, 3, 4, 5}), in(Shape{5, 6})});
  t.add("matmul", "batched", {}, {in(Shape{2, 4, 5}), in(Shape{2, 5, 3})});
  t.add("matmul", "broadcast_lhs", {}, {in(Shape{4, 5}), in(Shape{3, 5, 2})});
  t.add("matmul", "vec_mat", {}, {in(Shape{5}), in(Shape{5, 3})});
  t.add("matmul", "mat_vec", {}, {in(Shape{3, 5}), in(Shape{5})});
  t.add("matmul", "dot", {}, {in(Shape{6}), in(Shape{6})});
  t.add("matmul", "2d_constant_rhs", {}, {in(Shape{3, 5}), weight(Shape{5, 2}, 0.1, 1)});
  t.add("matmul", "batched_constant_rhs", {}, {in(Shape{2, 3, 5}), weight(Shape{2, 5, 4}, 0.1, 1)});
  t.add("matmul", "3d_shared_constant_rhs", {}, {in(Shape{2, 3, 5}), weight(Shape{5, 4}, 0.1, 1)});
  t.add("bmm", "odd", {}, {in(Shape{3, 4, 19}), in(Shape{3, 19, 33})});
  t.add("bmm", "small", {}, {in(Shape{2, 1, 7}), in(Shape{2, 7, 5})});
  t.add("bmm", "batch1_odd", {}, {in(Shape{1, 5, 3}), in(Shape{1, 3, 9})});
  t.add("addmm", "row_bias", {}, {in(Shape{3}), in(Shape{4, 5}), in(Shape{5, 3})});
  t.add("addmm", "alpha_beta_column_bias", attrs({{"alpha", f64(0.5)}, {"beta", f64(2)}}),
        {in(Shape{4, 1}), in(Shape{4, 5}), in(Shape{5, 3})});
  t.add("addmm", "beta0", attrs({{"beta", f64(0)}}), {in(Shape{4, 3}), in(Shape{4, 5}), in(Shape{5, 3})});
  t.add("addmm", "odd_large", {}, {in(Shape{33}), in(Shape{17, 29}), in(Shape{29, 33})});
}

void norm_cases(Table& t) {
  for (const char* op : {"softmax", "log_softmax"}) {
    t.add(op, "dim_last", attrs({{"dim", i64(-1)}}), {in(Shape{3, 4, 5}, -5, 5)});
    t.add(op, "dim_mid", attrs({{"dim", i64(1)}}), {in(Shape{3, 4, 5}, -5, 5)});
    t.add(op, "dim_first", attrs({{"dim", i64(0)}}), {in(Shape{3, 4, 5}, -5, 5)});
    t.add(op, "long_row", attrs({{"dim", i64(1)}}), {in(Shape{2, 300}, -5, 5)});
    t.add(op, "dim_neg2_4d", attrs({{"dim", i64(-2)}}), {in(Shape{2, 3, 7, 5}, -5, 5)});
    t.add(op, "1d_odd", attrs({{"dim", i64(0)}}), {in(Shape{13}, -5, 5)});
  }
  for (const char* op : {"sum", "mean"}) {
    t.add(op, "dim1", attrs({{"dim", ints({1})}}), {in(Shape{3, 4, 5})});
    t.add(op, "dims02_keepdim", attrs({{"dim", ints({0, 2})}, {"keepdim", i64(1)}}), {in(Shape{3, 4, 5})});
    t.add(op, "all", {}, {in(Shape{3, 4, 5})});
    t.add(op, "dim_neg1_long", attrs({{"dim", i64(-1)}}), {in(Shape{3, 500})});
    t.add(op, "hw_keepdim", attrs({{"dim", ints({-2, -1})}, {"keepdim", i64(1)}}), {in(Shape{2, 3, 9, 11})});
    t.add(op, "hw", attrs({{"dim", ints({2, 3})}}), {in(Shape{1, 3, 4, 5})});
    t.add(op, "dim_neg1_list", attrs({{"dim", ints({-1})}}), {in(Shape{2, 3, 4})});
    t.add(op, "dim0_keepdim_odd", attrs({{"dim", i64(0)}, {"keepdim", i64(1)}}), {in(Shape{7, 3})});
    t.add(op, "hw_keepdim_small", attrs({{"dim", ints({2, 3})}, {"keepdim", i64(1)}}), {in(Shape{1, 3, 4, 5})});
  }
  for (const char* op : {"amax", "amin"}) {
    t.add(op, "dim1", attrs({{"dim", ints({1})}}), {in(Shape{3, 4, 5})});
    t.add(op, "dims02_keepdim", attrs({{"dim", ints({0, 2})}, {"keepdim", i64(1)}}), {in(Shape{3, 4, 5})});
    t.add(op, "all", {}, {in(Shape{3, 4, 5})});
    t.add(op, "dim_neg1_long", attrs({{"dim", i64(-1)}}), {in(Shape{3, 500})});
    t.add(op, "hw_keepdim", attrs({{"dim", ints({-2, -1})}, {"keepdim", i64(1)}}), {in(Shape{2, 3, 9, 11})});
  }
  // Factors near 1 keep the products in range.
  t.add("prod", "dim1", attrs({{"dim", ints({1})}}), {in(Shape{3, 6, 5}, 0.5, 1.5)});
  t.add("prod", "dim_neg1_keepdim", attrs({{"dim", i64(-1)}, {"keepdim", i64(1)}}), {in(Shape{4, 9}, -1.5, 1.5)});
  t.add("prod", "all", {}, {in(Shape{2, 3, 4}, 0.8, 1.2)});
  t.add("prod", "hw", attrs({{"dim", ints({2, 3})}}), {in(Shape{1, 3, 4, 5}, 0.8, 1.2)});
  t.add("layer_norm", "affine", attrs({{"normalized_shape", ints({8})}}),
        {in(Shape{2, 3, 8}), weight(Shape{8}), weight(Shape{8})});
  t.add("layer_norm", "2d_plain_eps", attrs({{"normalized_shape", ints({6, 50})}, {"eps", f64(1e-3)}}),
        {in(Shape{4, 6, 50})});
  t.add("layer_norm", "weight_only_input", attrs({{"normalized_shape", ints({5})}}), {in(Shape{7, 5}), in(Shape{5})});
  t.add("batch_norm", "4d_eps", attrs({{"eps", f64(1e-3)}}),
        {in(Shape{2, 3, 4, 5}, 0.1, 2), weight(Shape{3}, 0.1, 2), weight(Shape{3}, 0.1, 2), weight(Shape{3}, 0.1, 2),
         weight(Shape{3}, 0.1, 2)});
  t.add("batch_norm", "2d_parameters_as_inputs", {},
        {in(Shape{4, 3}, 0.1, 2), in(Shape{3}, 0.1, 2), in(Shape{3}, 0.1, 2), in(Shape{3}, 0.1, 2),
         in(Shape{3}, 0.1, 2)});
  t.add("batch_norm", "nchw_eps", attrs({{"eps", f64(1e-3)}}),
        {in(Shape{1, 3, 4, 4}), weight(Shape{3}, 0.1, 1), weight(Shape{3}, 0.1, 1), weight(Shape{3}, 0.1, 1),
         weight(Shape{3}, 0.1, 1)});
  t.add("batch_norm", "2d_constant", {},
        {in(Shape{5, 3}), weight(Shape{3}, 0.1, 1), weight(Shape{3}, 0.1, 1), weight(Shape{3}, 0.1, 1),
         weight(Shape{3}, 0.1, 1)});
}

void shape_cases(Table& t) {
  t.add("view", "infer_dim", attrs({{"shape", ints({6, -1})}}), {in(Shape{2, 3, 4})});
  t.add("view", "int32", attrs({{"shape", ints({-1})}}), {Operand{Shape{2, 3}, false, {-100, 100}, DType::kInt32}});
  t.add("reshape", "insert_unit_dim", attrs({{"shape", ints({4, 1, 6})}}), {in(Shape{2, 3, 4})});
  t.add("reshape", "infer_dim", attrs({{"shape", ints({3, -1})}}), {in(Shape{2, 3, 2})});
  t.add("flatten", "start_dim1", attrs({{"start_dim", i64(1)}}), {in(Shape{2, 3, 4, 5})});
  t.add("flatten", "start_dim1_small", attrs({{"start_dim", i64(1)}}), {in(Shape{2, 3, 2, 2})});
  t.add("flatten", "all", {}, {in(Shape{3, 5, 7})});
  t.add("squeeze", "all", {}, {in(Shape{1, 3, 1, 4})});
  t.add("squeeze", "dim2", attrs({{"dim", i64(2)}}), {in(Shape{1, 3, 1, 4})});
  t.add("squeeze", "dim_neg2", attrs({{"dim", i64(-2)}}), {in(Shape{3, 1, 5})});
  t.add("squeeze", "dim_not_one", attrs({{"dim", i64(0)}}), {in(Shape{3, 1})});
  t.add("unsqueeze", "dim_neg1", attrs({{"dim", i64(-1)}}), {in(Shape{3, 4})});
  t.add("unsqueeze", "dim0", attrs({{"dim", i64(0)}}), {in(Shape{5})});
  t.add("unsqueeze", "dim2_3d", attrs({{"dim", i64(2)}}), {in(Shape{2, 3, 4})});
  t.add("contiguous", "2d", {}, {in(Shape{3, 5})});
  t.add("contiguous", "4d_odd", {}, {in(Shape{2, 3, 1, 5})});
  t.add("permute", "nchw_to_nhwc", attrs({{"dims", ints({0, 2, 3, 1})}}), {in(Shape{2, 3, 4, 5})});
  t.add("permute", "negative_dims", attrs({{"dims", ints({-1, 0, 1})}}), {in(Shape{3, 5, 7})});
  t.add("permute", "rotate", attrs({{"dims", ints({2, 0, 1})}}), {in(Shape{2, 3, 4})});
  t.add("permute", "identity", attrs({{"dims", ints({0, 1, 2})}}), {in(Shape{2, 3, 5})});
  t.add("permute", "2d", attrs({{"dims", ints({1, 0})}}), {in(Shape{5, 7})});
  t.add("transpose", "first_last", attrs({{"dim0", i64(0)}, {"dim1", i64(-1)}}), {in(Shape{3, 4, 5})});
  t.add("transpose", "first_last_small", attrs({{"dim0", i64(0)}, {"dim1", i64(-1)}}), {in(Shape{2, 3, 4})});
  t.add("transpose", "inner_4d", attrs({{"dim0", i64(1)}, {"dim1", i64(2)}}), {in(Shape{2, 3, 5, 3})});
  t.add("cat", "dim1_three_inputs", attrs({{"dim", i64(1)}}),
        {in(Shape{2, 3, 4}), in(Shape{2, 1, 4}), in(Shape{2, 5, 4})});
  t.add("cat", "dim0_constant", {}, {in(Shape{2, 3}), weight(Shape{4, 3})});
  t.add("cat", "dim_last", attrs({{"dim", i64(-1)}}), {in(Shape{3, 2}), in(Shape{3, 7})});
  t.add("cat", "channels_constant", attrs({{"dim", i64(1)}}), {in(Shape{1, 2, 3, 3}), weight(Shape{1, 3, 3, 3})});
  t.add("cat", "dim0_four_inputs", {}, {in(Shape{1, 3}), in(Shape{2, 3}), in(Shape{3, 3}), in(Shape{1, 3})});
  t.add("cat", "dim_neg3_4d", attrs({{"dim", i64(-3)}}), {in(Shape{2, 1, 3, 2}), in(Shape{2, 2, 3, 2})});
  t.add("slice", "step3", attrs({{"dim", i64(1)}, {"start", i64(1)}, {"end", i64(8)}, {"step", i64(3)}}),
        {in(Shape{2, 9, 3})});
  t.add("slice", "negative_bounds", attrs({{"dim", i64(-1)}, {"start", i64(-4)}, {"end", i64(-1)}}), {in(Shape{3, 6})});
  t.add("slice", "end_clamped", attrs({{"start", i64(1)}, {"end", i64(100)}}), {in(Shape{4, 2})});
  t.add("slice", "negative_end", attrs({{"dim", i64(1)}, {"start", i64(1)}, {"end", i64(-1)}}), {in(Shape{2, 5, 3})});
  t.add("slice", "dim0_step2", attrs({{"dim", i64(0)}, {"start", i64(0)}, {"end", i64(7)}, {"step", i64(2)}}),
        {in(Shape{7, 3})});
  t.add("slice", "dim0_start_only", attrs({{"dim", i64(0)}, {"start", i64(2)}}), {in(Shape{5, 4})});
  t.add("slice", "h_step2_from1", attrs({{"dim", i64(2)}, {"start", i64(1)}, {"step", i64(2)}}),
        {in(Shape{1, 3, 7, 4})});
  t.add("slice", "last_step4_gather", attrs({{"dim", i64(-1)}, {"start", i64(1)}, {"step", i64(4)}}),
        {in(Shape{2, 3, 14})});
  t.add("pad", "constant_hw", attrs({{"pad", ints({1, 2, 0, 3})}, {"value", f64(0.5)}}), {in(Shape{1, 3, 4, 5})});
  t.add("pad", "constant_last_dim", attrs({{"pad", ints({2, 1})}}), {in(Shape{2, 7})});
  t.add("pad", "constant_channels", attrs({{"pad", ints({0, 0, 0, 0, 1, 2})}, {"value", f64(-1.5)}}),
        {in(Shape{2, 3, 3, 2})});
  t.add("pad", "constant_3d_all_dims", attrs({{"pad", ints({1, 0, 0, 2, 3, 1})}}), {in(Shape{2, 3, 5})});
  t.add("pad", "constant_int32", attrs({{"pad", ints({1, 1})}, {"value", f64(7)}}),
        {Operand{Shape{3, 4}, false, {-100, 100}, DType::kInt32}});
  t.add("pad", "reflect_hw", attrs({{"pad", ints({2, 1, 1, 3})}, {"mode", str("reflect")}}), {in(Shape{2, 3, 4, 5})});
  t.add("pad", "reflect_1d", attrs({{"pad", ints({3, 3})}, {"mode", str("reflect")}}), {in(Shape{2, 3, 4})});
  t.add("pad", "replicate_hw", attrs({{"pad", ints({3, 1, 2, 4})}, {"mode", str("replicate")}}),
        {in(Shape{1, 2, 3, 2})});
  t.add("pad", "replicate_size1", attrs({{"pad", ints({2, 2, 1, 1})}, {"mode", str("replicate")}}),
        {in(Shape{2, 1, 1, 3})});
}

// Operands of other dtypes: a graph input, or a constant, with integer values in [lo, hi].
Operand typed(DType dtype, Shape s, double lo, double hi) { return Operand{std::move(s), false, {lo, hi}, dtype}; }
Operand typed_constant(DType dtype, Shape s, double lo, double hi) {
  return Operand{std::move(s), true, {lo, hi}, dtype};
}
Operand mask(Shape s) { return typed(DType::kBool, std::move(s), 0, 1); }

void index_cases(Table& t) {
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    t.add(op, "same_shape", {}, {in(Shape{3, 17}), in(Shape{3, 17})});
    t.add(op, "broadcast_both", {}, {in(Shape{2, 1, 5}), in(Shape{3, 1})});
    t.add(op, "scalar_other", attrs({{"other", f64(0.25)}}), {in(Shape{4, 7})});
    t.add(op, "scalar_first", attrs({{"other", f64(-0.5)}, {"scalar_first", i64(1)}}), {in(Shape{2, 3, 5})});
    t.add(op, "scalar_integral", attrs({{"other", f64(1)}}), {in(Shape{5, 3}, -1, 1)});
  }
  for (const char* op : {"logical_and", "logical_or", "logical_xor"}) {
    t.add(op, "same_shape", {}, {mask(Shape{3, 17}), mask(Shape{3, 17})});
    t.add(op, "broadcast_both", {}, {mask(Shape{2, 1, 5}), mask(Shape{3, 1})});
    t.add(op, "constant_row", {}, {mask(Shape{4, 6}), typed_constant(DType::kBool, Shape{6}, 0, 1)});
  }
  t.add("logical_not", "odd", {}, {mask(Shape{3, 7, 5})});
  // all/any: reductions of bool tensors (non-zero floats are true).
  for (const char* op : {"all", "any"}) {
    t.add(op, "dim1", attrs({{"dim", ints({1})}}), {mask(Shape{4, 3, 5})});
    t.add(op, "dim0_keepdim", attrs({{"dim", i64(0)}, {"keepdim", i64(1)}}), {mask(Shape{2, 7})});
    t.add(op, "all_dims", {}, {mask(Shape{3, 2})});
    t.add(op, "hw", attrs({{"dim", ints({2, 3})}}), {mask(Shape{1, 3, 2, 2})});
    t.add(op, "float_input", attrs({{"dim", i64(-1)}}), {in(Shape{3, 4}, -1, 1)});
  }
  t.add("logical_not", "rank0", {}, {mask(Shape{})});
  t.add("where", "same_shape", {}, {mask(Shape{4, 9}), in(Shape{4, 9}), in(Shape{4, 9})});
  t.add("where", "broadcast_all", {}, {mask(Shape{3, 1, 5}), in(Shape{2, 1}), in(Shape{1, 1, 1, 5})});
  t.add("where", "constant_y", {}, {mask(Shape{2, 7}), in(Shape{2, 7}), weight(Shape{})});
  t.add("masked_fill", "same_shape", attrs({{"value", f64(-1.5)}}), {in(Shape{3, 11}), mask(Shape{3, 11})});
  t.add("masked_fill", "causal_neg_inf", attrs({{"value", f64(-INFINITY)}}),
        {in(Shape{2, 3, 5, 5}), typed_constant(DType::kBool, Shape{5, 5}, 0, 1)});
  t.add("masked_fill", "broadcast_mask", attrs({{"value", f64(0.0)}}), {in(Shape{2, 4, 6}), mask(Shape{2, 1, 6})});
  t.add("index_select", "embedding_int64", attrs({{"dim", i64(0)}}),
        {weight(Shape{11, 6}), typed(DType::kInt64, Shape{9}, 0, 10)});
  t.add("index_select", "dim1_int32", attrs({{"dim", i64(1)}}),
        {in(Shape{2, 7, 3}), typed(DType::kInt32, Shape{5}, 0, 6)});
  t.add("index_select", "last_dim_constant_index", attrs({{"dim", i64(-1)}}),
        {in(Shape{3, 8}), typed_constant(DType::kInt64, Shape{4}, 0, 7)});
  t.add("index_select", "int32_values", attrs({{"dim", i64(0)}}),
        {typed(DType::kInt32, Shape{6, 3}, -50, 50), typed(DType::kInt64, Shape{8}, 0, 5)});
  // Integer operators: full-range int32 values, shift amounts in [0, 31], non-zero divisors of
  // both signs; int64 for the reference (TOSA has no int64).
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    t.add(op, "same_shape", {},
          {typed(DType::kInt32, Shape{3, 17}, -2147483648.0, 2147483647.0),
           typed(DType::kInt32, Shape{3, 17}, -2147483648.0, 2147483647.0)});
    t.add(op, "broadcast_constant", {},
          {typed(DType::kInt32, Shape{2, 3, 5}, -1000, 1000), typed_constant(DType::kInt32, Shape{5}, 0, 255)});
    t.add(op, "int64", {},
          {typed(DType::kInt64, Shape{4, 3}, -1e12, 1e12), typed(DType::kInt64, Shape{3}, -1e12, 1e12)});
  }
  t.add("bitwise_not", "int32", {}, {typed(DType::kInt32, Shape{2, 3, 7}, -2147483648.0, 2147483647.0)});
  t.add("bitwise_not", "int8", {}, {typed(DType::kInt8, Shape{9}, -128, 127)});
  for (const char* op : {"bitwise_left_shift", "bitwise_right_shift"}) {
    t.add(op, "tensor_amounts", {},
          {typed(DType::kInt32, Shape{3, 11}, -2147483648.0, 2147483647.0), typed(DType::kInt32, Shape{3, 11}, 0, 31)});
    t.add(op, "constant_amount", {},
          {typed(DType::kInt32, Shape{2, 1, 6}, -100000, 100000), typed_constant(DType::kInt32, Shape{}, 3, 3)});
    t.add(op, "int16", {}, {typed(DType::kInt16, Shape{7}, -32768, 32767), typed(DType::kInt16, Shape{7}, 0, 20)});
  }
  for (const char* op : {"floor_divide", "trunc_divide"}) {
    t.add(op, "positive_divisor", {},
          {typed(DType::kInt32, Shape{3, 13}, -100000, 100000), typed(DType::kInt32, Shape{3, 13}, 1, 9)});
    t.add(op, "negative_divisor", {},
          {typed(DType::kInt32, Shape{2, 4, 5}, -100000, 100000), typed(DType::kInt32, Shape{1, 5}, -9, -1)});
    t.add(op, "constant_divisor", {},
          {typed(DType::kInt32, Shape{17}, -1000, 1000), typed_constant(DType::kInt32, Shape{}, 7, 7)});
    t.add(op, "int64", {}, {typed(DType::kInt64, Shape{6}, -1e12, 1e12), typed(DType::kInt64, Shape{6}, 1, 1000)});
  }
  for (const char* op : {"argmax", "argmin"}) {
    t.add(op, "dim1", attrs({{"dim", i64(1)}}), {in(Shape{3, 17, 5})});
    t.add(op, "last_dim_keepdim", attrs({{"dim", i64(-1)}, {"keepdim", i64(1)}}), {in(Shape{4, 9})});
    t.add(op, "flattened", {}, {in(Shape{3, 4, 5})});
    t.add(op, "dim0", attrs({{"dim", i64(0)}}), {in(Shape{6, 8}, -1, 1)});
  }
  t.add("flip", "last_dim", attrs({{"dims", ints({-1})}}), {in(Shape{3, 7})});
  t.add("flip", "two_dims_nchw", attrs({{"dims", ints({1, 3})}}), {in(Shape{2, 3, 4, 5})});
  t.add("flip", "all_dims_int32", attrs({{"dims", ints({0, 1, 2})}}), {typed(DType::kInt32, Shape{2, 5, 3}, -50, 50)});
  t.add("cumsum", "dim0", attrs({{"dim", i64(0)}}), {in(Shape{7, 3})});
  t.add("cumsum", "last_dim", attrs({{"dim", i64(-1)}}), {in(Shape{2, 3, 9})});
  t.add("cumsum", "long_line", attrs({{"dim", i64(1)}}), {in(Shape{2, 4096}, -1, 1)});
  t.add("cumsum", "rank1", attrs({{"dim", i64(0)}}), {in(Shape{33})});
  t.add("cumsum", "line_1024_middle_dim", attrs({{"dim", i64(1)}}), {in(Shape{2, 1024, 3}, -1, 1)});
}

// int8 operands: graph inputs and constants over the whole int8 range, int32 bias constants.
Operand q8(Shape s) { return Operand{std::move(s), false, {-128, 127}, DType::kInt8}; }
Operand q8_weight(Shape s) { return Operand{std::move(s), true, {-127, 127}, DType::kInt8}; }
Operand q32_bias(Shape s) { return Operand{std::move(s), true, {-3000, 3000}, DType::kInt32}; }
Operand result(DType dtype, Shape s) { return Operand{std::move(s), false, {}, dtype}; }
AttrValue floats(std::vector<double> v) { return AttrValue(std::move(v)); }

// The quantized operators of PyTorch's FX quantization (docs/OPERATORS.md), on int8 operands
// with parameters as PyTorch's observers would give them.
void quantized_cases(Table& t) {
  const auto qconv = [](std::vector<double> weight_scale, int64_t relu) {
    return attrs({{"input_scale", f64(0.05)},
                  {"input_zero_point", i64(-7)},
                  {"weight_scale", floats(std::move(weight_scale))},
                  {"output_scale", f64(0.8)},
                  {"output_zero_point", i64(relu ? -128 : 5)},
                  {"relu", i64(relu)}});
  };
  auto with = [](Attributes a, std::initializer_list<std::pair<const char*, AttrValue>> more) {
    for (const auto& [k, v] : more) a.set(k, v);
    return a;
  };
  t.add_quantized("quantized_conv2d", "pad1_per_tensor", with(qconv({0.01}, 0), {{"padding", i64(1)}}),
                  {q8(Shape{1, 8, 9, 11}), q8_weight(Shape{16, 8, 3, 3}), q32_bias(Shape{16})},
                  result(DType::kInt8, Shape{1, 16, 9, 11}));
  std::vector<double> per_channel;
  for (int i = 0; i < 6; ++i) per_channel.push_back(0.004 + 0.003 * i);
  t.add_quantized("quantized_conv2d", "stride2_per_channel_relu",
                  with(qconv(per_channel, 1), {{"stride", i64(2)}, {"padding", i64(1)}}),
                  {q8(Shape{2, 3, 10, 9}), q8_weight(Shape{6, 3, 3, 3}), q32_bias(Shape{6})},
                  result(DType::kInt8, Shape{2, 6, 5, 5}));
  t.add_quantized("quantized_conv2d", "depthwise_relu",
                  with(qconv({0.02}, 1), {{"groups", i64(5)}, {"padding", i64(1)}}),
                  {q8(Shape{1, 5, 7, 8}), q8_weight(Shape{5, 1, 3, 3}), q32_bias(Shape{5})},
                  result(DType::kInt8, Shape{1, 5, 7, 8}));
  t.add_quantized("quantized_conv2d", "1x1_odd_channels_nobias", qconv({0.03}, 0),
                  {q8(Shape{1, 7, 5, 6}), q8_weight(Shape{5, 7, 1, 1})}, result(DType::kInt8, Shape{1, 5, 5, 6}));
  t.add_quantized("quantized_linear", "2d", qconv({0.01}, 0),
                  {q8(Shape{4, 20}), q8_weight(Shape{10, 20}), q32_bias(Shape{10})},
                  result(DType::kInt8, Shape{4, 10}));
  t.add_quantized("quantized_linear", "relu_per_channel", qconv({0.01, 0.02, 0.005}, 1),
                  {q8(Shape{2, 17}), q8_weight(Shape{3, 17}), q32_bias(Shape{3})}, result(DType::kInt8, Shape{2, 3}));
  t.add_quantized("quantize_per_tensor", "4d", attrs({{"scale", f64(0.05)}, {"zero_point", i64(-3)}}),
                  {in(Shape{1, 3, 5, 7}, -8, 8)}, result(DType::kInt8, Shape{1, 3, 5, 7}));
  t.add_quantized("dequantize_per_tensor", "4d", attrs({{"scale", f64(0.05)}, {"zero_point", i64(4)}}),
                  {q8(Shape{1, 3, 5, 7})}, result(DType::kFloat32, Shape{1, 3, 5, 7}));
  t.add_quantized("requantize", "2d",
                  attrs({{"input_scale", f64(0.05)},
                         {"input_zero_point", i64(3)},
                         {"output_scale", f64(0.07)},
                         {"output_zero_point", i64(-9)}}),
                  {q8(Shape{5, 13})}, result(DType::kInt8, Shape{5, 13}));
  const Attributes binary = attrs({{"input_scale", f64(0.05)},
                                   {"input_zero_point", i64(3)},
                                   {"other_scale", f64(0.03)},
                                   {"other_zero_point", i64(-6)},
                                   {"output_scale", f64(0.09)},
                                   {"output_zero_point", i64(2)}});
  t.add_quantized("quantized_add", "4d", binary, {q8(Shape{1, 4, 5, 6}), q8(Shape{1, 4, 5, 6})},
                  result(DType::kInt8, Shape{1, 4, 5, 6}));
  t.add_quantized("quantized_add", "relu", with(binary, {{"relu", i64(1)}}), {q8(Shape{2, 9}), q8(Shape{2, 9})},
                  result(DType::kInt8, Shape{2, 9}));
  t.add_quantized("quantized_mul", "broadcast", binary, {q8(Shape{1, 4, 5, 6}), q8(Shape{1, 4, 1, 1})},
                  result(DType::kInt8, Shape{1, 4, 5, 6}));
  t.add_quantized("quantized_table", "4d", {}, {q8(Shape{1, 3, 5, 7}), q8_weight(Shape{256})},
                  result(DType::kInt8, Shape{1, 3, 5, 7}));
}

}  // namespace

const std::vector<OpCase>& all_cases() {
  static const std::vector<OpCase> cases = [] {
    Table t;
    for (auto family : {unary_cases, binary_cases, pool_cases, conv_cases, matmul_cases, norm_cases, shape_cases,
                        index_cases, quantized_cases}) {
      family(t);
    }
    return t.take();
  }();
  return cases;
}

// Rows by op family (fp32; shape ops also int32, exact):
//  - exact (data movement, sign, max/min, relu-like clamps, max pools, nearest upsampling,
//    selection and gathers; comparisons, logical operators and arg-reductions, bool or int64): 0
//  - one rounding step (add/sub/mul/div, scalar forms, hard* activations, avg pools): 1e-6 / 1e-6
//  - batch_norm (a rounded scale and shift), bilinear upsampling (four weighted taps): 1e-6 / 1e-5
//  - transcendental functions (GPU exp/log/tanh are correct to a few ulp; gelu's erf
//    approximation is within 1.5e-7): 1e-5 / 1e-5
//  - dot products and reductions (a different summation order): 1e-5 / 1e-4
//  - the quantized operators (int8 results exact against the TOSA reference; dequantize's
//    fp32 result one rounding step)
std::optional<testing::Tolerance> tolerance_for(const std::string& op, DType dtype) {
  struct Row {
    std::vector<const char*> ops;
    DType dtype;
    testing::Tolerance tol;
  };
  static const std::map<std::pair<std::string, DType>, testing::Tolerance> table = [] {
    const std::vector<const char*> shape_ops = {"view",  "reshape", "flatten",   "permute",    "transpose", "cat",
                                                "slice", "squeeze", "unsqueeze", "contiguous", "pad"};
    const std::vector<Row> rows = {
        {shape_ops, DType::kFloat32, {0, 0}},
        {shape_ops, DType::kInt32, {0, 0}},
        {{"neg", "abs", "relu", "relu6", "hardtanh", "clamp", "maximum", "minimum", "amax", "amin", "floor", "ceil",
          "max_pool2d", "adaptive_max_pool2d", "upsample_nearest2d", "where", "masked_fill", "index_select", "flip"},
         DType::kFloat32,
         {0, 0}},
        {{"index_select", "flip"}, DType::kInt32, {0, 0}},
        {{"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
          "floor_divide", "trunc_divide"},
         DType::kInt32,
         {0, 0}},
        {{"bitwise_and", "bitwise_or", "bitwise_xor", "floor_divide", "trunc_divide"}, DType::kInt64, {0, 0}},
        {{"bitwise_not"}, DType::kInt8, {0, 0}},
        {{"bitwise_left_shift", "bitwise_right_shift"}, DType::kInt16, {0, 0}},
        {{"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not", "all", "any"},
         DType::kBool,
         {0, 0}},
        {{"argmax", "argmin"}, DType::kInt64, {0, 0}},
        {{"add", "sub", "mul", "div", "reciprocal", "hardswish", "hardsigmoid", "avg_pool2d", "adaptive_avg_pool2d"},
         DType::kFloat32,
         {1e-6, 1e-6}},
        {{"batch_norm", "upsample_bilinear2d"}, DType::kFloat32, {1e-6, 1e-5}},
        {{"sigmoid", "tanh", "gelu", "silu", "exp", "log", "sqrt", "rsqrt", "pow", "sin", "cos"},
         DType::kFloat32,
         {1e-5, 1e-5}},
        {{"conv2d", "conv3d", "conv_transpose2d", "linear", "matmul", "bmm", "addmm", "sum", "mean", "prod", "softmax",
          "log_softmax", "layer_norm", "cumsum"},
         DType::kFloat32,
         {1e-5, 1e-4}},
        {{"quantize_per_tensor", "quantized_conv2d", "quantized_linear", "requantize", "quantized_add", "quantized_mul",
          "quantized_table"},
         DType::kInt8,
         {0, 0}},
        {{"dequantize_per_tensor"}, DType::kFloat32, {1e-6, 1e-6}},
    };
    std::map<std::pair<std::string, DType>, testing::Tolerance> t;
    for (const Row& row : rows) {
      for (const char* op : row.ops) t[{op, row.dtype}] = row.tol;
    }
    return t;
  }();
  auto it = table.find({op, dtype});
  if (it == table.end()) return std::nullopt;
  return it->second;
}

}  // namespace univk::conformance
