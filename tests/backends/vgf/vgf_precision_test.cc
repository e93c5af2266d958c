// The `precision` option of the VgfBackend: fp16 rounds the library kernels' operands to fp16
// (accumulating in fp32), checked against the reference on rounded operands; fp32 (the
// default) stays exact; other values are refused.
#include "fp16_rounding.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

// The CONV2D with bias over NHWC graph inputs (input, weight, bias).
TosaGraph conv_graph(const Shape& input, const Shape& weight, const Shape& output) {
  const Attributes conv = conv2d_attrs({1, 1, 1, 1}, {1, 1});
  TosaGraph g;
  const ValueId x = g.add_input({DType::kFloat32, input.dims()}, 0, 0);
  const ValueId w = g.add_input({DType::kFloat32, weight.dims()}, 0, 1);
  const ValueId b = g.add_input({DType::kFloat32, {weight[0]}}, 0, 2);
  g.add_output(g.add_operation(TosaOp::kConv2d, {x, w, b}, conv, {DType::kFloat32, output.dims()}), 0, 3);
  return g;
}

TEST(VgfPrecision, Fp16RoundsTheConvolutionsOperands) {
  const Shape in({2, 7, 6, 16}), weight({8, 3, 3, 16}), out({2, 7, 6, 8});
  const TosaGraph g = conv_graph(in, weight, out);
  // Values with more mantissa bits than fp16 has, so the rounding shows in the result.
  const std::vector<HostTensor> inputs = {random_tensor(DType::kFloat32, in, 11),
                                          random_tensor(DType::kFloat32, weight, 12),
                                          random_tensor(DType::kFloat32, Shape({8}), 13)};
  const std::vector<HostTensor> rounded = {univk::testing::rounded_to_fp16(inputs[0]),
                                           univk::testing::rounded_to_fp16(inputs[1]), inputs[2]};
  const HostTensor exact = ref("CONV2D", conv2d_attrs({1, 1, 1, 1}, {1, 1}, /*for_reference=*/true), inputs);
  const HostTensor fp16_want = ref("CONV2D", conv2d_attrs({1, 1, 1, 1}, {1, 1}, /*for_reference=*/true), rounded);
  for (const char* precision : {"fp32", "fp16"}) {
    auto loaded = load(single_graph_model(g), {{"precision", precision}});
    UNIVK_ASSERT_OK(loaded) << precision;
    auto got = loaded->delegate->execute(inputs);
    UNIVK_ASSERT_OK(got) << precision;
    const bool fp16 = std::string(precision) == "fp16";
    EXPECT_TRUE(tensors_close((*got)[0], fp16 ? fp16_want : exact, {1e-4, 1e-4})) << precision;
    // Random fp32 operands lose bits in fp16 (output errors near 1e-3, against near 1e-6 for
    // another summation order): each mode is far from the other's reference.
    EXPECT_FALSE(tensors_close((*got)[0], fp16 ? exact : fp16_want, {2e-5, 0})) << precision;
  }
}

TEST(VgfPrecision, UnknownPrecisionIsRefused) {
  const TosaGraph g = conv_graph(Shape({1, 4, 4, 2}), Shape({2, 3, 3, 2}), Shape({1, 4, 4, 2}));
  auto loaded = load(single_graph_model(g), {{"precision", "fp8"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find("precision 'fp8'"), std::string::npos) << loaded.status().to_string();
}

}  // namespace
}  // namespace univk::backends::vgf_test
