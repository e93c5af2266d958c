// The reference kernels of TOSA REVERSE, SCATTER, CONV3D, FFT2D and RFFT2D and of PyTorch flip
// and conv3d: hand-computed values, identities with the 2-d kernels and with each other, and the
// spec's REQUIREs as errors.
#include <cmath>

#include "test_util.h"

namespace univk::reference::testing {
namespace {

using Ts = std::vector<HostTensor>;

TEST(VolumeOps, ReverseByHand) {
  HostTensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(tosa1("REVERSE", attrs({{"axis", int64_t{1}}}), {x})), (std::vector<float>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(values(tosa1("REVERSE", attrs({{"axis", int64_t{0}}}), {x})), (std::vector<float>{4, 5, 6, 1, 2, 3}));
  EXPECT_FALSE(run_tosa("REVERSE", attrs({{"axis", int64_t{2}}}), Ts{x}).ok());
  // flip over several dims is REVERSE along each.
  HostTensor y = random_tensor({2, 3, 4}, 1);
  HostTensor both =
      tosa1("REVERSE", attrs({{"axis", int64_t{2}}}), {tosa1("REVERSE", attrs({{"axis", int64_t{0}}}), {y})});
  EXPECT_EQ(values(run1("flip", attrs({{"dims", I{-1, 0}}}), {y})), values(both));
  EXPECT_FALSE(run_op("flip", attrs({{"dims", I{1, -2}}}), Ts{y}).ok());  // dim 1 twice
}

TEST(VolumeOps, ScatterReplacesRowsAndRefusesRepeatedIndices) {
  HostTensor values_in = tensor({1, 4, 2}, {0, 0, 1, 1, 2, 2, 3, 3});
  HostTensor input = tensor({1, 2, 2}, {10, 11, 20, 21});
  HostTensor out = tosa1("SCATTER", {}, {values_in, typed<int32_t>(DType::kInt32, {1, 2}, {3, 0}), input});
  EXPECT_EQ(values(out), (std::vector<float>{20, 21, 1, 1, 2, 2, 10, 11}));
  auto repeated = run_tosa("SCATTER", {}, Ts{values_in, typed<int32_t>(DType::kInt32, {1, 2}, {1, 1}), input});
  ASSERT_FALSE(repeated.ok());
  EXPECT_NE(repeated.status().message().find("distinct"), std::string::npos) << repeated.status().message();
  auto outside = run_tosa("SCATTER", {}, Ts{values_in, typed<int32_t>(DType::kInt32, {1, 2}, {4, 0}), input});
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("outside [0, 4)"), std::string::npos);
}

// A CONV3D of depth 1 with a depth-1 kernel is CONV2D; PyTorch's conv3d likewise conv2d.
TEST(VolumeOps, Conv3dOfDepthOneIsConv2d) {
  HostTensor x2 = random_tensor({2, 5, 6, 3}, 2), w2 = random_tensor({4, 3, 2, 3}, 3), b = random_tensor({4}, 4);
  Attributes a2 = attrs({{"pad", I{1, 1, 1, 1}}, {"stride", I{2, 1}}, {"dilation", I{1, 2}}});
  HostTensor want = tosa1("CONV2D", a2, {x2, w2, b});
  auto x3 = x2.reshaped(Shape{2, 1, 5, 6, 3});
  auto w3 = w2.reshaped(Shape{4, 1, 3, 2, 3});
  ASSERT_TRUE(x3.ok() && w3.ok());
  Attributes a3 = attrs({{"pad", I{0, 0, 1, 1, 1, 1}}, {"stride", I{1, 2, 1}}, {"dilation", I{3, 1, 2}}});
  HostTensor got = tosa1("CONV3D", a3, {*x3, *w3, b});
  ASSERT_EQ(want.shape(), (Shape{2, 3, 6, 4}));
  ASSERT_EQ(got.shape(), (Shape{2, 1, 3, 6, 4}));
  EXPECT_TRUE(::univk::testing::tensors_close(*got.reshaped(want.shape()), want, {1e-6, 1e-6}));

  HostTensor n2 = random_tensor({1, 3, 5, 4}, 5), k2 = random_tensor({2, 3, 3, 3}, 6);
  HostTensor pt_want = run1("conv2d", attrs({{"padding", int64_t{1}}}), {n2, k2});
  HostTensor pt_got = run1("conv3d", attrs({{"padding", I{0, 1, 1}}}),
                           {*n2.reshaped(Shape{1, 3, 1, 5, 4}), *k2.reshaped(Shape{2, 3, 1, 3, 3})});
  ASSERT_EQ(pt_got.shape(), (Shape{1, 2, 1, 5, 4}));
  EXPECT_TRUE(::univk::testing::tensors_close(*pt_got.reshaped(pt_want.shape()), pt_want, {1e-6, 1e-6}));
}

TEST(VolumeOps, Conv3dInt8UsesZeroPoints) {
  // One tap: (x - in_zp) * (w - w_zp) + bias.
  HostTensor x = typed<int8_t>(DType::kInt8, {1, 1, 1, 1, 1}, {7});
  HostTensor w = typed<int8_t>(DType::kInt8, {1, 1, 1, 1, 1}, {-3});
  HostTensor b = typed<int32_t>(DType::kInt32, {1}, {100});
  Attributes a = attrs({{"input_zp", int64_t{2}}, {"weight_zp", int64_t{-1}}, {"acc_type", int64_t{1}}});
  EXPECT_EQ(typed_values<int32_t>(tosa1("CONV3D", a, {x, w, b}))[0], (7 - 2) * (-3 + 1) + 100);
}

// The inverse transform of the forward one gives H*W times the input (TOSA does not scale), and
// RFFT2D is FFT2D's first W/2+1 columns of a real input.
TEST(VolumeOps, FftRoundTripAndRfft) {
  HostTensor re = random_tensor({2, 4, 8}, 7), im = random_tensor({2, 4, 8}, 8);
  auto forward = run_tosa("FFT2D", attrs({{"inverse", int64_t{0}}}), Ts{re, im});
  UNIVK_ASSERT_OK(forward);
  ASSERT_EQ(forward->size(), 2u);
  auto back = run_tosa("FFT2D", attrs({{"inverse", int64_t{1}}}), Ts{(*forward)[0], (*forward)[1]});
  UNIVK_ASSERT_OK(back);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_NEAR(values((*back)[0])[i], 32.0f * values(re)[i], 1e-4f);
    EXPECT_NEAR(values((*back)[1])[i], 32.0f * values(im)[i], 1e-4f);
  }
  // A constant input has all its energy at frequency 0.
  HostTensor ones = tensor({1, 2, 4}, std::vector<float>(8, 1.0f));
  auto dc = run_tosa("RFFT2D", {}, Ts{ones});
  UNIVK_ASSERT_OK(dc);
  EXPECT_EQ((*dc)[0].shape(), (Shape{1, 2, 3}));
  EXPECT_NEAR(values((*dc)[0])[0], 8.0f, 1e-6f);
  for (size_t i = 1; i < 6; ++i) EXPECT_NEAR(values((*dc)[0])[i], 0.0f, 1e-6f);

  HostTensor zeros(DType::kFloat32, Shape{2, 4, 8});
  auto full = run_tosa("FFT2D", {}, Ts{re, zeros});
  auto half = run_tosa("RFFT2D", {}, Ts{re});
  UNIVK_ASSERT_OK(full);
  UNIVK_ASSERT_OK(half);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t y = 0; y < 4; ++y) {
      for (int64_t x = 0; x < 5; ++x) {
        for (size_t r = 0; r < 2; ++r) {
          EXPECT_NEAR(values((*half)[r])[static_cast<size_t>((n * 4 + y) * 5 + x)],
                      values((*full)[r])[static_cast<size_t>((n * 4 + y) * 8 + x)], 1e-6f);
        }
      }
    }
  }
  EXPECT_FALSE(run_tosa("RFFT2D", {}, Ts{random_tensor({1, 3, 4}, 9)}).ok());  // H not a power of two
}

}  // namespace
}  // namespace univk::reference::testing
