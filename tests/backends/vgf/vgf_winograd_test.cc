// The `winograd` option of the VgfBackend: a 3x3 stride-1 CONV2D with a constant weight runs as
// Winograd F(m x m, 3x3)'s three dispatches (kernels/winograd.h) with the fused epilogue, against
// the reference; what Winograd does not compute (a weight that is a graph input, a stride of 2,
// operands past the binding limit) stays on the implicit GEMM; unknown values are refused.
#include "vgf_plan_util.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

struct Conv {
  ValueId value;
  HostTensor reference;
};

// A 3x3 convolution of `x` (NHWC, c -> oc channels) with a constant weight and bias; at stride 2
// the input's height and width must be even.
Conv add_conv(TosaGraph& g, ValueId x, const HostTensor& in, int64_t oc, int64_t stride, uint32_t seed) {
  const auto& s = in.shape().dims();
  const HostTensor w = random_tensor(DType::kFloat32, Shape({oc, 3, 3, s[3]}), seed);
  const HostTensor b = random_tensor(DType::kFloat32, Shape({oc}), seed + 1);
  const ValueId wv = g.add_constant({DType::kFloat32, w.shape().dims()}, bytes_of(w));
  const ValueId bv = g.add_constant({DType::kFloat32, b.shape().dims()}, bytes_of(b));
  // Same padding at stride 1; at stride 2 (even sizes) top and left only, as TOSA's exact
  // division asks.
  const std::vector<int64_t> pad = stride == 1 ? std::vector<int64_t>{1, 1, 1, 1} : std::vector<int64_t>{1, 0, 1, 0};
  const Attributes attrs = conv2d_attrs(pad, {stride, stride});
  const int64_t oh = (s[1] - 1) / stride + 1, ow = (s[2] - 1) / stride + 1;
  return {g.add_operation(TosaOp::kConv2d, {x, wv, bv}, attrs, {DType::kFloat32, {s[0], oh, ow, oc}}),
          ref("CONV2D", conv2d_attrs(pad, {stride, stride}, /*for_reference=*/true), {in, w, b})};
}

// ResNet's basic block tail: conv(x) + skip, then relu.
struct Block {
  TosaGraph graph;
  std::vector<HostTensor> inputs;
  HostTensor want;
};

Block residual_block(const Shape& shape, int64_t oc, uint32_t seed) {
  Block b;
  const HostTensor in = random_tensor(DType::kFloat32, shape, seed);
  const HostTensor skip = random_tensor(DType::kFloat32, Shape({shape[0], shape[1], shape[2], oc}), seed + 1);
  const ValueId x = b.graph.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
  const ValueId r = b.graph.add_input({DType::kFloat32, skip.shape().dims()}, 0, 1);
  const Conv conv = add_conv(b.graph, x, in, oc, 1, seed + 2);
  const TosaTensorType t{DType::kFloat32, skip.shape().dims()};
  const ValueId sum = b.graph.add_operation(TosaOp::kAdd, {conv.value, r}, {}, t);
  b.graph.add_output(b.graph.add_operation(TosaOp::kClamp, {sum}, clamp_attrs(0, INFINITY), t), 0, 2);
  b.inputs = {in, skip};
  b.want = ref("CLAMP", clamp_attrs(0, INFINITY), {ref("ADD", {}, {conv.reference, skip})});
  return b;
}

TEST(VgfWinograd, ResidualBlockRunsAsThreeDispatches) {
  const Block b = residual_block(Shape({2, 9, 7, 16}), 24, 1);
  // 9 x 7 outputs: partial tiles of 2x2 and of 4x4. F(4x4) rounds more (kernels/winograd.h):
  // its tolerance is 10 times the others'.
  for (const char* mode : {"f2", "f4", "off"}) {
    auto got = run(b.graph, b.inputs, {{"winograd", mode}});
    UNIVK_ASSERT_OK(got) << mode;
    const double tolerance = std::string(mode) == "f4" ? 1e-3 : 1e-4;
    EXPECT_TRUE(tensors_close(got->out, b.want, {tolerance, tolerance})) << mode;
    EXPECT_EQ(got->dispatches, std::string(mode) == "off" ? 1u : 3u) << mode;
  }
}

TEST(VgfWinograd, ChainedConvolutionsRunBackToBack) {
  // Two Winograd convolutions back to back: the second reads what the first's output transform
  // wrote, each with V and M values of its own in the segment's arena.
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 12, 10, 8}), 20);
  const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
  const Conv first = add_conv(g, x, in, 16, 1, 21);
  const Conv second = add_conv(g, first.value, first.reference, 8, 1, 23);
  g.add_output(second.value, 0, 1);
  auto got = run(g, {in}, {{"winograd", "f2"}});
  UNIVK_ASSERT_OK(got);
  EXPECT_EQ(got->dispatches, 6u);
  EXPECT_TRUE(tensors_close(got->out, second.reference, {1e-4, 1e-4}));
}

TEST(VgfWinograd, WhatItDoesNotComputeStaysOnTheImplicitGemm) {
  // A stride of 2.
  {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 8, 8, 8}), 30);
    const Conv conv = add_conv(g, g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0), in, 8, 2, 31);
    g.add_output(conv.value, 0, 1);
    auto got = run(g, {in}, {{"winograd", "f2"}});
    UNIVK_ASSERT_OK(got);
    EXPECT_EQ(got->dispatches, 1u);
    EXPECT_TRUE(tensors_close(got->out, conv.reference, {1e-4, 1e-4}));
  }
  // A weight that is a graph input: nothing to transform at load.
  {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 6, 6, 8}), 32);
    const HostTensor w = random_tensor(DType::kFloat32, Shape({8, 3, 3, 8}), 33);
    const HostTensor bias = random_tensor(DType::kFloat32, Shape({8}), 34);
    const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
    const ValueId wv = g.add_input({DType::kFloat32, w.shape().dims()}, 0, 1);
    const ValueId bv = g.add_constant({DType::kFloat32, {8}}, bytes_of(bias));
    g.add_output(g.add_operation(TosaOp::kConv2d, {x, wv, bv}, conv2d_attrs({1, 1, 1, 1}, {1, 1}),
                                 {DType::kFloat32, {1, 6, 6, 8}}),
                 0, 2);
    auto got = run(g, {in, w}, {{"winograd", "f2"}});
    UNIVK_ASSERT_OK(got);
    EXPECT_EQ(got->dispatches, 1u);
    const HostTensor want = ref("CONV2D", conv2d_attrs({1, 1, 1, 1}, {1, 1}, true), {in, w, bias});
    EXPECT_TRUE(tensors_close(got->out, want, {1e-4, 1e-4}));
  }
  // The transformed input (16 x 20 tiles x 16 channels x 4 bytes = 20 KiB) past the binding
  // limit, its other operands within it (M 10 KiB, U 8 KiB): the implicit GEMM.
  {
    const Block b = residual_block(Shape({1, 8, 10, 16}), 8, 40);
    auto got = run(b.graph, b.inputs, {{"winograd", "f2"}, {"max_binding_bytes", "16384"}});
    UNIVK_ASSERT_OK(got);
    EXPECT_TRUE(tensors_close(got->out, b.want, {1e-4, 1e-4}));
    EXPECT_EQ(got->dispatches, 1u);
  }
}

TEST(VgfWinograd, UnknownValueIsRefused) {
  const Block b = residual_block(Shape({1, 4, 4, 8}), 8, 50);
  auto loaded = load(single_graph_model(b.graph), {{"winograd", "maybe"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find("winograd 'maybe'"), std::string::npos) << loaded.status().to_string();
}

}  // namespace
}  // namespace univk::backends::vgf_test
