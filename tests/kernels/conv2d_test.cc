// conv2d_f32 against the reference conv2d: NCHW and NHWC activations, PyTorch and TOSA weight
// layouts, stride, dilation, padding, groups, every tiling, and the fused epilogue; split-K the
// same way (each recording run twice); the planner's split-K choices for ResNet's batch-1 shapes.
#include <gtest/gtest.h>

#include <algorithm>

#include "fp16_rounding.h"
#include "kernel_runner.h"
#include "univk/kernels/conv2d.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

struct ConvCase {
  int64_t n, c, h, w, oc, k, stride, pad, dilation, groups;
  // Offsets multiples of 4 (vectorised tilings may load vectors, the pointwise kernel also store
  // them); HWIO weights (output channels contiguous) instead of the layout's; the FLAGS vector
  // bits (kFlagVecA 64, kFlagVecB 128; the pointwise kernel's input 64, output 128) a vectorised
  // or pointwise tiling must get.
  bool aligned = false, hwio = false;
  uint32_t vec_flags = 0;
};

// FLAGS (specialization constant 7) of a dispatch.
uint32_t flags_of(const KernelDispatch& d) {
  for (auto [id, value] : d.specialization) {
    if (id == 7) return value;
  }
  return 0;
}

enum class Layout { kNchw, kNhwc };

// Element offset of logical NCHW index (n, c, y, x) under `s`.
int64_t at(const ActivationStrides& s, int64_t n, int64_t c, int64_t y, int64_t x) {
  return n * s.n + c * s.c + y * s.h + x * s.w;
}

// With `split_k` forced (0: the planner's choice), the recording submitted `runs` times, the
// device's workgroup count limit on y lowered to `max_groups_y` when nonzero, and `precision`
// (fp16: the reference convolves the input and weight rounded to fp16).
void expect_conv(const ConvCase& c, Layout layout, bool tosa_weight, const Tiling& tiling, const Epilogue& epilogue,
                 uint32_t seed, uint32_t split_k = 0, int runs = 1, uint32_t max_groups_y = 0,
                 Precision precision = Precision::kFp32) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  const int64_t icg = c.c / c.groups;
  const HostTensor x = random_tensor(DType::kFloat32, Shape{c.n, c.c, c.h, c.w}, seed);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{c.oc, icg, c.k, c.k}, seed + 1);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{c.oc}, seed + 2);
  const bool fp16 = testing::rounds_to_fp16(tiling, precision);
  auto ref = reference::run_op(
      "conv2d", attrs({{"stride", c.stride}, {"padding", c.pad}, {"dilation", c.dilation}, {"groups", c.groups}}),
      std::vector<HostTensor>{fp16 ? univk::testing::rounded_to_fp16(x) : x,
                              fp16 ? univk::testing::rounded_to_fp16(w) : w, b});
  ASSERT_TRUE(ref.ok()) << ref.status().to_string();
  const HostTensor& conv = (*ref)[0];
  const int64_t oh = conv.shape()[2], ow = conv.shape()[3];
  const HostTensor residual = random_tensor(DType::kFloat32, conv.shape(), seed + 3);

  Conv2dProblem p;
  p.batch = c.n, p.in_channels = c.c, p.in_h = c.h, p.in_w = c.w;
  p.out_channels = c.oc, p.out_h = oh, p.out_w = ow;
  p.kernel_h = p.kernel_w = c.k;
  p.stride_h = p.stride_w = c.stride;
  p.dilation_h = p.dilation_w = c.dilation;
  p.pad_top = p.pad_left = c.pad;
  p.groups = c.groups;
  const std::array<int64_t, 4> in_shape = {c.n, c.c, c.h, c.w}, out_shape = {c.n, c.oc, oh, ow};
  p.input = layout == Layout::kNchw ? ActivationStrides::nchw(in_shape) : ActivationStrides::nhwc(in_shape);
  p.output = layout == Layout::kNchw ? ActivationStrides::nchw(out_shape) : ActivationStrides::nhwc(out_shape);
  p.weight = tosa_weight ? WeightStrides::ohwi(icg, c.k, c.k) : WeightStrides::oihw(icg, c.k, c.k);
  if (c.hwio) p.weight = {1, c.oc, icg * c.oc};
  p.input_offset = c.aligned ? 4 : 2, p.output_offset = c.aligned ? 4 : 1, p.residual_offset = c.aligned ? 8 : 3;
  p.epilogue = epilogue;
  p.split_k = split_k;
  DeviceTraits traits = device_traits(*device, precision);
  if (max_groups_y != 0) traits.max_group_count[1] = max_groups_y;
  auto dispatch = plan_conv2d(p, traits, tiling);
  ASSERT_TRUE(dispatch.ok()) << dispatch.status().to_string();
  EXPECT_LE(dispatch->groups[1], traits.max_group_count[1]);
  // A forced split holds when K has the slices for it; the older cooperative-matrix core never
  // splits (tiling.cc).
  if (split_k > 1 && icg * c.k * c.k > int64_t{tiling.bk}) {
    EXPECT_EQ(dispatch->splits > 1u, !tiling.coopmat || tiling.vec);
  }
  if (tiling.vec) {
    const Kernel vec_kernel = tiling.tm == 8 && tiling.tn == 8 ? Kernel::kConv2dVec8F32 : Kernel::kConv2dVecF32;
    EXPECT_EQ(dispatch->kernel, tiling.coopmat ? Kernel::kConv2dCoopmatVecF16 : vec_kernel);
    EXPECT_EQ(flags_of(*dispatch) & 192u, c.vec_flags)
        << "c " << c.c << " groups " << c.groups << " nhwc " << (layout == Layout::kNhwc);
  }
  if (tiling.pointwise) {
    EXPECT_EQ(dispatch->kernel, Kernel::kConv2dPointwiseF32);
    EXPECT_EQ(flags_of(*dispatch) & 192u, c.vec_flags) << "c " << c.c << " oc " << c.oc;
  }
  if (tiling.stem) {
    EXPECT_EQ(dispatch->kernel, Kernel::kConv2dStemF32);
    EXPECT_EQ(flags_of(*dispatch) & 128u, c.vec_flags) << "c " << c.c << " oc " << c.oc;
  }

  std::vector<float> in(p.input_offset + x.shape().numel()), weight(w.shape().numel());
  std::vector<float> res(p.residual_offset + conv.shape().numel());
  std::vector<float> out(p.output_offset + conv.shape().numel(), -7.0f);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t ch = 0; ch < c.c; ++ch) {
      for (int64_t y = 0; y < c.h; ++y) {
        for (int64_t xx = 0; xx < c.w; ++xx) {
          in[p.input_offset + at(p.input, n, ch, y, xx)] = x.data<float>()[((n * c.c + ch) * c.h + y) * c.w + xx];
        }
      }
    }
  }
  for (int64_t o = 0; o < c.oc; ++o) {
    for (int64_t i = 0; i < icg; ++i) {
      for (int64_t t = 0; t < c.k * c.k; ++t) {
        weight[o * p.weight.oc + i * p.weight.ic + t * p.weight.tap] = w.data<float>()[(o * icg + i) * c.k * c.k + t];
      }
    }
  }
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t o = 0; o < c.oc; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          res[p.residual_offset + at(p.output, n, o, y, xx)] =
              residual.data<float>()[((n * c.oc + o) * oh + y) * ow + xx];
        }
      }
    }
  }
  const std::vector<float> bias(b.data<float>().begin(), b.data<float>().end());
  auto got = testing::run_kernel(device, *dispatch, {in, weight, bias, out, res, {}}, runs);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ((*got)[0], -7.0f) << "wrote below the output offset";

  // The reference conv has the bias; without one in the epilogue, subtract it again.
  HostTensor want = conv;
  HostTensor gathered(DType::kFloat32, conv.shape());
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t o = 0; o < c.oc; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          const int64_t i = ((n * c.oc + o) * oh + y) * ow + xx;
          float& v = want.data<float>()[i];
          if (!epilogue.bias) v -= b.data<float>()[o];
          if (epilogue.residual) v += residual.data<float>()[i];
          if (epilogue.activation == Activation::kRelu) v = v < 0 ? 0 : v;
          if (epilogue.activation == Activation::kClamp) v = std::clamp(v, epilogue.lo, epilogue.hi);
          gathered.data<float>()[i] = (*got)[p.output_offset + at(p.output, n, o, y, xx)];
        }
      }
    }
  }
  // Rounding grows with K (and another summation order): the tolerance with it.
  const double atol = (tiling.coopmat ? 1e-4 : 1e-5) * std::max<double>(1.0, double(icg * c.k * c.k) / 128);
  EXPECT_TRUE(univk::testing::tensors_close(gathered, want, {atol, 1e-4}))
      << "c " << c.c << " oc " << c.oc << " k " << c.k << " stride " << c.stride << " groups " << c.groups << " nhwc "
      << (layout == Layout::kNhwc) << " tosa weight " << tosa_weight << " tiling " << tiling.bm << "x" << tiling.bn
      << "x" << tiling.bk << "/" << tiling.tm << "x" << tiling.tn << (tiling.direct ? "d" : "")
      << (tiling.coopmat ? "c" : "") << (tiling.vec ? "v" : "") << (tiling.lean ? "l" : "")
      << (tiling.pointwise ? "p" : "") << (tiling.stem ? "stem" : "") << " hwio " << c.hwio << " splits "
      << dispatch->splits;
}

const ConvCase kCases[] = {
    // n, c, h, w, oc, k, stride, pad, dilation, groups
    {2, 8, 9, 11, 12, 3, 1, 1, 1, 1},
    {1, 3, 17, 15, 10, 7, 2, 3, 1, 1},
    {1, 32, 6, 5, 40, 1, 1, 0, 1, 1},
    {1, 16, 8, 8, 24, 3, 2, 1, 1, 2},
    {1, 6, 10, 9, 5, 3, 1, 2, 2, 1},
    {1, 16, 7, 7, 33, 3, 1, 1, 1, 1},
    {1, 8, 5, 6, 8, 3, 1, 1, 1, 8},
    // K = 270 with channels no slice divides: past conv2d.glsl's K table unless split-K
    // shortens the ranges.
    {1, 30, 6, 7, 9, 3, 1, 1, 1, 1},
};

TEST(Conv2dKernel, EveryLayoutAndTilingMatchesTheReference) {
  uint32_t seed = 1;
  for (const Tiling& tiling : gemm_tilings()) {
    for (const ConvCase& c : kCases) {
      for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
        expect_conv(c, layout, /*tosa_weight=*/layout == Layout::kNhwc, tiling, {true}, seed += 10);
      }
    }
  }
}

TEST(Conv2dKernel, EpilogueBiasResidualRelu) {
  const Tiling tiling = gemm_tilings()[2];
  expect_conv({2, 16, 9, 9, 20, 3, 1, 1, 1, 1}, Layout::kNhwc, true, tiling, {false, false}, 501);
  expect_conv({2, 16, 9, 9, 20, 3, 1, 1, 1, 1}, Layout::kNhwc, true, tiling, {true, true, Activation::kRelu}, 502);
  expect_conv({1, 8, 9, 9, 20, 1, 1, 0, 1, 1}, Layout::kNchw, false, tiling, {true, true, Activation::kRelu}, 503);
}

TEST(Conv2dKernel, Fp16RoundsOperandsAndAccumulatesInFp32) {
  // The cooperative-matrix tilings where the device has them, else a staged and a direct FMA
  // tiling with the same rounding.
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  std::vector<Tiling> tilings = {gemm_tilings()[2], gemm_tilings()[5]};
  if (device_traits(*device, Precision::kFp16).cooperative_matrix_f16) {
    tilings.assign(coopmat_tilings().begin(), coopmat_tilings().end());
  }
  uint32_t seed = 700;
  for (const Tiling& tiling : tilings) {
    for (const ConvCase& c : {kCases[0], kCases[3], kCases[4]}) {
      for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
        expect_conv(c, layout, layout == Layout::kNhwc, tiling, {true, true, Activation::kRelu}, seed += 10, 0, 1, 0,
                    Precision::kFp16);
      }
    }
    expect_conv({1, 64, 5, 5, 20, 3, 1, 1, 1, 1}, Layout::kNhwc, true, tiling, {true}, seed += 10, 3, 2, 0,
                Precision::kFp16);
  }
}

TEST(Conv2dKernel, RowTilesPastTheYLimitFoldIntoX) {
  // 2*9*11 = 198 output positions are 7 row tiles of 32: 3 workgroup rows on y, x covering 3
  // rows of column tiles, 2 workgroups past the last tile.
  expect_conv({2, 8, 9, 11, 12, 3, 1, 1, 1, 1}, Layout::kNhwc, true, {32, 32, 16, 2, 2},
              {true, true, Activation::kRelu}, 601, 0, 1, 3);
  expect_conv({1, 16, 8, 8, 24, 3, 2, 1, 1, 2}, Layout::kNchw, false, {32, 32, 16, 4, 2}, {true}, 602, 2, 1, 1);
}

// Split-K (forced): K = 9*C/groups with and without whole BK slices per tap (the aligned
// path), batches, groups, stride, dilation.
const ConvCase kSplitCases[] = {
    // n, c, h, w, oc, k, stride, pad, dilation, groups
    {2, 8, 9, 11, 12, 3, 1, 1, 1, 1},   // K 72
    {1, 16, 8, 8, 24, 3, 2, 1, 1, 2},   // groups 2, K 72
    {1, 64, 5, 5, 20, 3, 1, 1, 1, 1},   // K 576, aligned
    {2, 32, 6, 7, 40, 3, 1, 2, 2, 2},   // groups 2, dilation 2, K 144, aligned
    {1, 3, 17, 15, 10, 7, 2, 3, 1, 1},  // K 147
};

TEST(Conv2dKernel, SplitKEveryLayoutAndTilingMatchesTheReference) {
  uint32_t seed = 3000;
  const uint32_t splits[] = {3, 4, 5, 6, 9};
  for (const Tiling& tiling : gemm_tilings()) {
    for (size_t i = 0; i < std::size(kSplitCases); ++i) {
      for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
        expect_conv(kSplitCases[i], layout, /*tosa_weight=*/layout == Layout::kNhwc, tiling, {true}, seed += 10,
                    splits[i], /*runs=*/2);
      }
    }
  }
}

TEST(Conv2dKernel, SplitKEpilogues) {
  uint32_t seed = 4000;
  for (const Tiling tiling : {gemm_tilings()[2], gemm_tilings()[6]}) {  // staged and direct
    expect_conv({2, 16, 9, 9, 20, 3, 1, 1, 1, 1}, Layout::kNhwc, true, tiling, {false, false}, seed += 10, 4, 2);
    expect_conv({2, 16, 9, 9, 20, 3, 1, 1, 1, 1}, Layout::kNhwc, true, tiling, {true, true, Activation::kRelu},
                seed += 10, 4, 2);
    expect_conv({1, 40, 5, 5, 20, 3, 1, 1, 1, 2}, Layout::kNchw, false, tiling, {true, true, Activation::kRelu},
                seed += 10, 7, 2);
  }
}

// The vectorised core. NHWC with TOSA weights and C/groups a multiple of BK (16; 8 for the BK-8
// tilings): vector loads of input and weight channels; HWIO weights: of output channels; NCHW,
// PyTorch weights, odd channel counts or unaligned offsets: scalar loads (the slice's tap still
// decoded once per slice when C/groups is a multiple of BK).
struct VecConvCase {
  ConvCase c;
  Layout layout;
  bool tosa_weight;
};
const VecConvCase kVecCases[] = {
    // n, c, h, w, oc, k, stride, pad, dilation, groups, aligned, hwio, vec flags
    {{2, 16, 9, 11, 12, 3, 1, 1, 1, 1, true, false, 192}, Layout::kNhwc, true},
    {{1, 32, 6, 5, 40, 1, 1, 0, 1, 1, true, false, 192}, Layout::kNhwc, true},
    {{1, 32, 8, 8, 24, 3, 2, 1, 1, 2, true, false, 192}, Layout::kNhwc, true},
    {{1, 16, 10, 9, 8, 3, 1, 2, 2, 1, true, true, 192}, Layout::kNhwc, true},
    {{1, 16, 10, 9, 12, 3, 1, 1, 1, 1, false, true, 128}, Layout::kNhwc, true},
    {{2, 16, 9, 11, 12, 3, 1, 1, 1, 1, true, false, 0}, Layout::kNchw, false},
    {{1, 3, 17, 15, 10, 7, 2, 3, 1, 1, true, false, 0}, Layout::kNhwc, true},
    {{1, 12, 6, 7, 8, 3, 1, 1, 1, 1, true, false, 0}, Layout::kNhwc, true},
};

// Every case on an 8x8 tiling (compiled-in sizes) and a 4x4 one (specialised sizes), a
// vectorised and a scalar case on the others (each pipeline costs seconds on lavapipe).
TEST(Conv2dKernel, VecTilingsMatchTheReference) {
  uint32_t seed = 5000;
  for (const Tiling& tiling : testing::fitting(vec_tilings())) {
    const bool all = tiling == vec_tilings()[0] || tiling == vec_tilings()[4] || tiling.direct;
    for (const VecConvCase& v : kVecCases) {
      if (all || &v == &kVecCases[0] || &v == &kVecCases[5]) {
        expect_conv(v.c, v.layout, v.tosa_weight, tiling, {true}, seed += 10);
      }
    }
  }
}

TEST(Conv2dKernel, VecTilingsSplitKAndEpilogues) {
  uint32_t seed = 5500;
  for (const Tiling& tiling : testing::fitting(vec_tilings())) {
    // K 576 in 5 ranges, aligned and vectorised.
    expect_conv({1, 64, 5, 5, 20, 3, 1, 1, 1, 1, true, false, 192}, Layout::kNhwc, true, tiling,
                {true, true, Activation::kRelu}, seed += 10, 5, 2);
  }
  // K 144 NCHW in 3 (scalar loads, aligned taps).
  expect_conv({2, 32, 6, 7, 40, 3, 1, 2, 2, 2, false, false, 0}, Layout::kNchw, false, vec_tilings()[0], {true},
              seed += 10, 3, 2);
  const Tiling tiling = vec_tilings()[4];
  expect_conv(kVecCases[0].c, Layout::kNhwc, true, tiling, {false, true, Activation::kRelu}, seed += 10);
  expect_conv(kVecCases[0].c, Layout::kNhwc, true, tiling, {true}, seed += 10, 0, 1, 0, Precision::kFp16);
}

// The pointwise kernel (1x1 convolutions without padding or groups). NHWC with TOSA weights and
// aligned offsets: vector loads and stores; then the element paths: channel counts that are not
// multiples of 4, unaligned offsets, NCHW with PyTorch weights; HWIO weights (staged along N),
// stride 2, K over several staged chunks (32 channels per chunk for 128-column tiles; the last
// case also with K not a multiple of 4), output positions and channels that are not whole
// tiles.
const VecConvCase kPointwiseCases[] = {
    // n, c, h, w, oc, k, stride, pad, dilation, groups, aligned, hwio, vec flags
    {{2, 16, 9, 11, 24, 1, 1, 0, 1, 1, true, false, 192}, Layout::kNhwc, true},
    {{1, 24, 7, 7, 144, 1, 1, 0, 1, 1, true, false, 192}, Layout::kNhwc, true},
    {{1, 72, 5, 6, 20, 1, 1, 0, 1, 1, true, false, 192}, Layout::kNhwc, true},
    {{2, 8, 9, 9, 12, 1, 2, 0, 1, 1, true, true, 192}, Layout::kNhwc, true},
    {{1, 6, 5, 7, 10, 1, 1, 0, 1, 1, true, false, 0}, Layout::kNhwc, true},
    {{1, 16, 5, 5, 12, 1, 1, 0, 1, 1, false, false, 0}, Layout::kNhwc, true},
    {{2, 12, 6, 5, 8, 1, 1, 0, 1, 1, true, false, 0}, Layout::kNchw, false},
    {{1, 70, 5, 6, 20, 1, 1, 0, 1, 1, true, false, 128}, Layout::kNhwc, true},
};

// Every case on the widest and the narrowest tiling, two on the others (each pipeline costs
// a second or more on lavapipe).
TEST(Conv2dKernel, PointwiseTilingsMatchTheReference) {
  uint32_t seed = 5800;
  for (const Tiling& tiling : testing::fitting(pointwise_tilings())) {
    const bool all = tiling == pointwise_tilings()[0] || tiling == pointwise_tilings()[4];
    for (const VecConvCase& v : kPointwiseCases) {
      if (all || &v == &kPointwiseCases[1] || &v == &kPointwiseCases[4]) {
        expect_conv(v.c, v.layout, v.tosa_weight, tiling, {true}, seed += 10);
      }
    }
  }
}

TEST(Conv2dKernel, PointwiseEpilogues) {
  uint32_t seed = 5900;
  const Tiling tiling = pointwise_tilings()[2];
  const Epilogue relu6 = {true, true, Activation::kClamp, 0.0f, 6.0f};
  for (const VecConvCase& v : {kPointwiseCases[0], kPointwiseCases[4], kPointwiseCases[6]}) {
    expect_conv(v.c, v.layout, v.tosa_weight, tiling, relu6, seed += 10);
    expect_conv(v.c, v.layout, v.tosa_weight, tiling, {false, true, Activation::kRelu}, seed += 10);
  }
}

TEST(Conv2dKernel, PointwiseRowTilesPastTheYLimitFoldIntoX) {
  // 2*9*11 = 198 output positions are 4 row tiles of 64 (64x64 tiling): 2 workgroup rows on y,
  // x covering 2 rows of column tiles.
  expect_conv(kPointwiseCases[0].c, Layout::kNhwc, true, pointwise_tilings()[3], {true, true, Activation::kRelu}, 5950,
              0, 1, 2);
}

TEST(Conv2dKernel, PointwiseRefusesWhatItDoesNotCompute) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  const DeviceTraits traits = device_traits(*device, Precision::kFp32);
  Conv2dProblem p;
  p.in_channels = 8, p.out_channels = 8, p.in_h = p.in_w = p.out_h = p.out_w = 4;
  p.input = ActivationStrides::nhwc({1, 8, 4, 4});
  p.output = ActivationStrides::nhwc({1, 8, 4, 4});
  p.weight = WeightStrides::ohwi(8, 1, 1);
  ASSERT_TRUE(plan_conv2d(p, traits, pointwise_tilings()[0]).ok());
  Conv2dProblem q = p;
  q.kernel_h = q.kernel_w = 3, q.pad_top = q.pad_left = 1, q.weight = WeightStrides::ohwi(8, 3, 3);
  EXPECT_EQ(plan_conv2d(q, traits, pointwise_tilings()[0]).status().code(), StatusCode::kUnsupported);
  q = p;
  q.groups = 2;
  EXPECT_EQ(plan_conv2d(q, traits, pointwise_tilings()[0]).status().code(), StatusCode::kUnsupported);
  q = p;
  q.stride_h = 2;  // output rows 2 and 3 would read input rows 4 and 6, past the input
  EXPECT_EQ(plan_conv2d(q, traits, pointwise_tilings()[0]).status().code(), StatusCode::kUnsupported);
  Tiling other = pointwise_tilings()[0];
  other.bm = 48;
  EXPECT_EQ(plan_conv2d(p, traits, other).status().code(), StatusCode::kInvalidArgument);
  // fp16 on a device without cooperative matrices rounds operands: not this kernel's.
  DeviceTraits fp16 = traits;
  fp16.precision = Precision::kFp16, fp16.cooperative_matrix_f16 = false;
  EXPECT_EQ(plan_conv2d(p, fp16, pointwise_tilings()[0]).status().code(), StatusCode::kUnsupported);
}

// The stem kernel (few input channels, no groups). ResNet's stem in small: NCHW with PyTorch's
// weights, 7x7 stride 2, 70 output channels (a partial block of channels), unaligned offsets; on
// a device with 32 KiB of shared memory (lavapipe) its 64-channel tilings stage the weight 4
// kernel rows at a time. MobileNetV2's: NHWC with TOSA weights, aligned (16-byte stores), 3x3
// stride 2. One channel with dilation 2; 4 channels with HWIO weights (staged along the
// channels), 5x5; 2 channels to 6 (scalar stores). Output sizes are no whole blocks.
const VecConvCase kStemCases[] = {
    // n, c, h, w, oc, k, stride, pad, dilation, groups, aligned, hwio, vec flags (128: stores)
    {{2, 3, 23, 37, 70, 7, 2, 3, 1, 1, false, false, 0}, Layout::kNchw, false},
    {{2, 3, 21, 19, 32, 3, 2, 1, 1, 1, true, false, 128}, Layout::kNhwc, true},
    {{1, 1, 11, 13, 12, 3, 1, 3, 2, 1, true, false, 128}, Layout::kNhwc, true},
    {{1, 4, 13, 18, 20, 5, 1, 2, 1, 1, true, true, 128}, Layout::kNhwc, true},
    {{1, 2, 9, 10, 6, 3, 1, 1, 1, 1, true, false, 0}, Layout::kNchw, false},
};

// Every case on the planner's two tilings, two on the others (each pipeline costs a second or
// more on lavapipe).
TEST(Conv2dKernel, StemTilingsMatchTheReference) {
  uint32_t seed = 6100;
  for (const Tiling& tiling : testing::fitting(stem_tilings())) {
    const bool all = tiling == stem_tilings()[0] || tiling == stem_tilings()[1];
    for (const VecConvCase& v : kStemCases) {
      if (all || &v == &kStemCases[0] || &v == &kStemCases[3]) {
        expect_conv(v.c, v.layout, v.tosa_weight, tiling, {true}, seed += 10);
      }
    }
  }
}

TEST(Conv2dKernel, StemEpilogues) {
  uint32_t seed = 6300;
  const Epilogue relu6 = {true, true, Activation::kClamp, 0.0f, 6.0f};
  for (const VecConvCase& v : {kStemCases[0], kStemCases[1]}) {
    expect_conv(v.c, v.layout, v.tosa_weight, stem_tilings()[1], relu6, seed += 10);
    expect_conv(v.c, v.layout, v.tosa_weight, stem_tilings()[1], {false, true, Activation::kRelu}, seed += 10);
  }
  expect_conv(kStemCases[2].c, kStemCases[2].layout, true, stem_tilings()[0], {false, false, Activation::kRelu},
              seed += 10);
}

TEST(Conv2dKernel, StemRefusesWhatItDoesNotCompute) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  const DeviceTraits traits = device_traits(*device, Precision::kFp32);
  Conv2dProblem p;
  p.in_channels = 3, p.out_channels = 8, p.in_h = p.in_w = p.out_h = p.out_w = 8;
  p.kernel_h = p.kernel_w = 3, p.pad_top = p.pad_left = 1;
  p.input = ActivationStrides::nhwc({1, 3, 8, 8});
  p.output = ActivationStrides::nhwc({1, 8, 8, 8});
  p.weight = WeightStrides::ohwi(3, 3, 3);
  ASSERT_TRUE(plan_conv2d(p, traits, stem_tilings()[0]).ok());
  Conv2dProblem q = p;
  q.in_channels = 6, q.out_channels = 6, q.groups = 3, q.weight = WeightStrides::ohwi(2, 3, 3);
  q.input = ActivationStrides::nhwc({1, 6, 8, 8}), q.output = ActivationStrides::nhwc({1, 6, 8, 8});
  EXPECT_EQ(plan_conv2d(q, traits, stem_tilings()[0]).status().code(), StatusCode::kUnsupported);
  q = p;
  q.in_channels = 5, q.weight = WeightStrides::ohwi(5, 3, 3), q.input = ActivationStrides::nhwc({1, 5, 8, 8});
  EXPECT_EQ(plan_conv2d(q, traits, stem_tilings()[0]).status().code(), StatusCode::kUnsupported);
  q = p;
  // 4 positions under a 31-wide window: 34 window columns per invocation.
  q.kernel_w = 31, q.out_w = 1, q.pad_left = 12, q.weight = WeightStrides::ohwi(3, 3, 31);
  auto refused = plan_conv2d(q, traits, stem_tilings()[0]);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().to_string().find("span"), std::string::npos) << refused.status().to_string();
  Tiling other = stem_tilings()[0];
  other.bm = 48;
  EXPECT_EQ(plan_conv2d(p, traits, other).status().code(), StatusCode::kInvalidArgument);
  DeviceTraits fp16 = traits;
  fp16.precision = Precision::kFp16, fp16.cooperative_matrix_f16 = false;
  EXPECT_EQ(plan_conv2d(p, fp16, stem_tilings()[0]).status().code(), StatusCode::kUnsupported);
  // Too little shared memory for the window and one kernel row of the weight: named.
  DeviceTraits small = traits;
  small.max_shared_bytes = 1024;
  refused = plan_conv2d(p, small, stem_tilings()[0]);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().to_string().find("shared memory"), std::string::npos) << refused.status().to_string();
}

// The cooperative-matrix core on vectorised loads (devices with NV cooperative matrices, the
// H200; skipped elsewhere). One pipeline per tiling: NHWC, TOSA weights, C a multiple of the
// 32-deep slice (16-byte loads, one tap per slice), output positions and channels not multiples
// of the tile. Then, on the 128-row tilings the planner takes (8 subgroups, and 16 where the
// device allows 512 invocations), the other paths: NCHW with PyTorch weights (A loaded along M,
// scalar), HWIO weights (B along N), channels that are not whole slices (a tap per element),
// groups, stride and dilation, an epilogue with a residual.
TEST(Conv2dKernel, CoopmatVecTilingsMatchTheReference) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  if (!device_traits(*device, Precision::kFp16).cooperative_matrix_f16) {
    GTEST_SKIP() << "the device lacks VK_NV_cooperative_matrix with the 16x16x16 fp16 shape, shaderFloat16, the "
                    "Vulkan memory model or subgroups of 32, which coopmat_vec_tilings() need";
  }
  uint32_t seed = 5700;
  const Precision fp16 = Precision::kFp16;
  for (const Tiling& tiling : coopmat_vec_tilings()) {
    expect_conv({2, 32, 9, 11, 40, 3, 1, 1, 1, 1, true, false, 192}, Layout::kNhwc, true, tiling, {true}, seed += 10, 0,
                1, 0, fp16);
  }
  const std::vector<Tiling> planned = testing::planned_coopmat_vec_tilings();
  const VecConvCase paths[] = {
      // n, c, h, w, oc, k, stride, pad, dilation, groups, aligned, hwio, vec flags
      {{2, 32, 9, 11, 12, 3, 1, 1, 1, 1, true, false, 0}, Layout::kNchw, false},
      {{1, 32, 10, 9, 24, 3, 1, 2, 2, 1, true, true, 192}, Layout::kNhwc, true},
      {{1, 24, 8, 8, 20, 3, 2, 1, 1, 1, true, false, 0}, Layout::kNhwc, true},
      {{1, 64, 8, 8, 48, 3, 2, 1, 1, 2, false, false, 128}, Layout::kNhwc, true},
      // A 3-channel stem (channels no slice divides, both layouts) and K = 270.
      {{1, 3, 17, 15, 10, 7, 2, 3, 1, 1, false, false, 0}, Layout::kNchw, false},
      {{1, 3, 17, 15, 10, 7, 2, 3, 1, 1, false, false, 0}, Layout::kNhwc, true},
      {{1, 30, 6, 7, 9, 3, 1, 1, 1, 1, false, false, 0}, Layout::kNhwc, true},
  };
  for (const Tiling& tiling : planned) {
    for (const VecConvCase& v : paths)
      expect_conv(v.c, v.layout, v.tosa_weight, tiling, {true}, seed += 10, 0, 1, 0, fp16);
    expect_conv({2, 32, 9, 11, 40, 3, 1, 1, 1, 1, true, false, 192}, Layout::kNhwc, true, tiling,
                {true, true, Activation::kRelu}, seed += 10, 0, 1, 0, fp16);
  }
  // Split-K (forced; the second pass sums the fragments' partial tiles), each recording
  // submitted twice: every tiling on K 576, then NCHW with PyTorch weights and an epilogue.
  for (const Tiling& tiling : coopmat_vec_tilings()) {
    expect_conv({2, 64, 9, 11, 40, 3, 1, 1, 1, 1, true, false, 192}, Layout::kNhwc, true, tiling, {true}, seed += 10, 3,
                /*runs=*/2, 0, fp16);
  }
  for (const Tiling& tiling : planned) {
    expect_conv({2, 32, 9, 11, 12, 3, 1, 1, 1, 1, true, false, 0}, Layout::kNchw, false, tiling,
                {true, true, Activation::kRelu}, seed += 10, 4, /*runs=*/2, 0, fp16);
  }
}

// A large GPU's limits.
DeviceTraits gpu() {
  DeviceTraits traits;
  traits.max_shared_bytes = 49152;
  traits.max_workgroup_invocations = 1024;
  return traits;
}

// A 3x3 same-padded NHWC convolution c -> oc at hw x hw, TOSA weights.
Conv2dProblem conv3x3(int64_t batch, int64_t c, int64_t hw, int64_t oc) {
  Conv2dProblem p;
  p.batch = batch, p.in_channels = c, p.in_h = p.in_w = hw;
  p.out_channels = oc, p.out_h = p.out_w = hw;
  p.kernel_h = p.kernel_w = 3, p.pad_top = p.pad_left = 1;
  p.input = ActivationStrides::nhwc({batch, c, hw, hw});
  p.output = ActivationStrides::nhwc({batch, oc, hw, hw});
  p.weight = WeightStrides::ohwi(c, 3, 3);
  p.epilogue = {true, false, Activation::kRelu};
  return p;
}

TEST(Conv2dPlanner, SplitsKForResNetsBatch1Convolutions) {
  // Small grids with vector loads along K take the vectorised 32x64x16/4x4v. 256 -> 256 at
  // 14x14: M 196, N 256, K 2304: 28 tiles of 32x64; 9 ranges of 256.
  const Tiling small_grid{32, 64, 16, 4, 4, false, false, true};
  auto d = plan_conv2d(conv3x3(1, 256, 14, 256), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, small_grid);
  EXPECT_EQ(d->kernel, Kernel::kConv2dVecF32);
  EXPECT_EQ(d->vector_access.size(), 3u);  // input, weight and output
  EXPECT_EQ(d->splits, 9u);
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{4, 7, 9}));
  // 512 -> 512 at 7x7: M 49, N 512, K 4608: 16 tiles; 16 ranges (the cap) of 288.
  d = plan_conv2d(conv3x3(1, 512, 7, 512), gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, small_grid);
  EXPECT_EQ(d->splits, 16u);
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{8, 2, 16}));
  EXPECT_EQ(d->scratch_bytes, 16u * 16 * 32 * 64 * 4);  // 16 tiles of 32x64, 16 ranges
  // Without vector loads along K (NCHW input), or with input channels not a multiple of its
  // slice of 16 (24), the scalar 32x32x16/2x2: 56 tiles, 9 ranges.
  Conv2dProblem nchw = conv3x3(1, 256, 14, 256);
  nchw.input = ActivationStrides::nchw({1, 256, 14, 14});
  d = plan_conv2d(nchw, gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, gemm_tilings()[3]);
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{8, 7, 9}));
  EXPECT_EQ(plan_conv2d(conv3x3(1, 24, 56, 256), gpu())->tiling, gemm_tilings()[3]);

  // No split: a CPU implementation, batch 32 (enough tiles), a short K.
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  d = plan_conv2d(conv3x3(1, 512, 7, 512), cpu);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);
  EXPECT_EQ(d->scratch_bytes, 0u);
  d = plan_conv2d(conv3x3(32, 128, 28, 128), gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);
  d = plan_conv2d(conv3x3(1, 16, 7, 512), gpu());  // K 144
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);
}

TEST(Conv2dPlanner, LargeConvolutionsTakeTheVectorised8x8Tilings) {
  // ResNet18's batch-32 3x3 convolutions (tiling.cc's measurements): 64 -> 64 at 56x56 takes
  // 128x64 (N is 64); 128 -> 128 at 28x28 too (392 workgroups, under the 512 that 128x128
  // wants); 512 -> 512 at 7x7 (K 4608, 104 workgroups of 128x64) 128x128x16/8x4v split in 10.
  auto d = plan_conv2d(conv3x3(32, 64, 56, 64), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[1]);
  EXPECT_EQ(d->kernel, Kernel::kConv2dVec8F32);
  d = plan_conv2d(conv3x3(32, 128, 28, 128), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[1]);
  d = plan_conv2d(conv3x3(32, 512, 7, 512), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[7]);
  EXPECT_EQ(d->kernel, Kernel::kConv2dVecF32);
  EXPECT_EQ(d->splits, 10u);
  // 256 -> 256 at 14x14 (K 2304, 98 tiles of 128x128) likewise, split in 6.
  d = plan_conv2d(conv3x3(32, 256, 14, 256), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[7]);
  EXPECT_EQ(d->splits, 6u);
  // 128 -> 256 at 14x14 (K 1152: the GEMM of ResNet18's stride-2 entry into its third stage)
  // too, split in 4.
  d = plan_conv2d(conv3x3(32, 128, 14, 256), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[7]);
  EXPECT_EQ(d->splits, 4u);
  // The same grid with K under 1152 (a 3x3 over 107 channels: K 963) keeps 128x64x8/8x8v,
  // split.
  d = plan_conv2d(conv3x3(32, 107, 7, 512), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[1]);
  EXPECT_GT(d->splits, 1u);
  // Batch 1 (a grid under 32 tiles of 128x64) takes the small-grid 4x4 one, a short K with a
  // large grid the scalar tilings.
  d = plan_conv2d(conv3x3(1, 64, 56, 64), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[5]);
  d = plan_conv2d(conv3x3(32, 16, 56, 64), gpu());  // K 144
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_FALSE(d->tiling.vec);
}

// The names logs (VgfBackend and VulkanBackend at debug level) and univk-kernel-bench give a plan.
// Specialization constant `id` of a dispatch, or `absent`.
uint32_t constant_of(const KernelDispatch& d, uint32_t id, uint32_t absent) {
  for (auto [i, value] : d.specialization) {
    if (i == id) return value;
  }
  return absent;
}

TEST(Conv2dPlanner, ChannelsNoSliceDividesGetTheKTable) {
  // ResNet's batch-32 stem: 3 channels, 7x7 stride 2, NCHW with PyTorch's weights.
  Conv2dProblem stem;
  stem.batch = 32, stem.in_channels = 3, stem.in_h = stem.in_w = 224, stem.out_channels = 64;
  stem.out_h = stem.out_w = 112, stem.kernel_h = stem.kernel_w = 7, stem.stride_h = stem.stride_w = 2;
  stem.pad_top = stem.pad_left = 3;
  stem.input = ActivationStrides::nchw({32, 3, 224, 224});
  stem.output = ActivationStrides::nchw({32, 64, 112, 112});
  stem.weight = WeightStrides::oihw(3, 7, 7);
  // On the GEMM-shaped kernel (GPUs take the stem kernel: below).
  auto d = plan_conv2d(stem, gpu(), gemm_tilings()[1]);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(constant_of(*d, 10, 1), 256u) << describe(*d);
  // Whole slices of channels decode a tap per slice instead: no table, no shared memory for it.
  d = plan_conv2d(conv3x3(32, 64, 56, 64), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(constant_of(*d, 10, 1), 1u) << describe(*d);
  // A device with no room for it beside the tiling's tiles keeps the divisions.
  DeviceTraits tight = gpu();
  tight.max_shared_bytes = 10240;  // 128x128x8/8x4 needs 8256 bytes, the table 3072
  d = plan_conv2d(stem, tight, gemm_tilings()[0]);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(constant_of(*d, 10, 1), 1u) << describe(*d);
}

TEST(Conv2dPlanner, DescribeNamesTheKernelTheTilingAndScalarLoads) {
  EXPECT_EQ(tiling_label(coopmat_vec_tilings()[7]), "128x128x16/8x8cv");
  EXPECT_EQ(tiling_label(pointwise_tilings()[0]), "256x16x4/4x4p");
  auto d = plan_conv2d(conv3x3(32, 512, 7, 512), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(plan_label(*d), "128x128x16/8x4v s10");
  EXPECT_EQ(describe(*d), "conv2d_vec_f32 128x128x16/8x4v s10");
  // An input offset of one element leaves the input's 16-byte loads unaligned: turned off.
  const std::vector<uint32_t> unaligned_input = {1, 0, 0, 0, 0};
  ASSERT_TRUE(add_binding_offsets(*d, unaligned_input).ok());
  EXPECT_EQ(describe(*d), "conv2d_vec_f32 128x128x16/8x4v s10, scalar loads of bindings 0");
}

// A 1x1 NHWC convolution c -> oc at hw x hw, TOSA weights, relu6 (MobileNetV2's expansions).
Conv2dProblem conv1x1(int64_t batch, int64_t c, int64_t hw, int64_t oc) {
  Conv2dProblem p = conv3x3(batch, c, hw, oc);
  p.kernel_h = p.kernel_w = 1, p.pad_top = p.pad_left = 0;
  p.weight = WeightStrides::ohwi(c, 1, 1);
  p.epilogue = {true, false, Activation::kClamp, 0.0f, 6.0f};
  return p;
}

TEST(Conv2dPlanner, Fp16TakesCooperativeMatricesFromK256OnLargeGrids) {
  DeviceTraits device = gpu();
  device.cooperative_matrix_f16 = true;
  device.precision = Precision::kFp16;
  // 256 -> 256 at 14x14, batch 32: 128x128 as 16 subgroups (98 workgroups, at least
  // kCoopmatWave's 96; 512 invocations past the convolutions' cap of 256), unsplit; 512 -> 512
  // at 7x7 (K 4608): 128x128 on 52 workgroups, split in two. A device with at most 256
  // invocations per workgroup gets the same tile as 8 subgroups.
  auto d = plan_conv2d(conv3x3(32, 256, 14, 256), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kConv2dCoopmatVecF16);
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[8]);
  EXPECT_EQ(d->tiling.invocations(), 512u);
  EXPECT_EQ(d->splits, 1u);
  d = plan_conv2d(conv3x3(32, 512, 7, 512), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[8]);
  EXPECT_EQ(d->splits, 2u);
  EXPECT_EQ(plan_label(*d), "128x128x32/8x4cv s2");
  DeviceTraits small = device;
  small.max_workgroup_invocations = 256;
  for (const Conv2dProblem& p : {conv3x3(32, 256, 14, 256), conv3x3(32, 512, 7, 512)}) {
    d = plan_conv2d(p, small);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->tiling, coopmat_vec_tilings()[0]);
  }
  // K under 2048 on a small grid: the tiling with the most workgroups, split in two (960 -> 160
  // at 7x7: 64x64, 75 workgroups); 1024 -> 256 at 14x14 (98 workgroups of 128x128) unsplit.
  d = plan_conv2d(conv1x1(32, 960, 7, 160), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[4]);
  EXPECT_EQ(d->splits, 2u);
  d = plan_conv2d(conv1x1(32, 1024, 14, 256), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->splits, 1u);
  // 128 -> 128 at 28x28: 196 tiles of 128x128, at least kCoopmatManyTiles' 192: slices of 16.
  d = plan_conv2d(conv3x3(32, 128, 28, 128), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[7]);
  EXPECT_EQ(d->tiling.bk, 16u);
  // 64 -> 64 at 56x56: the 128x64 tile (784 workgroups) as 16 subgroups.
  d = plan_conv2d(conv3x3(32, 64, 56, 64), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[11]);
  EXPECT_EQ(plan_label(*d), "128x64x32/4x4cv");
  // From K = 256: 1x1 320 -> 1280 at 7x7 on 128x128 (130 workgroups); K = 192 (192 -> 32 at
  // 28x28) keeps the FMA kernel, in fp32 on this device.
  d = plan_conv2d(conv1x1(32, 320, 7, 1280), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kConv2dCoopmatVecF16);
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[8]);
  EXPECT_EQ(d->splits, 1u);
  d = plan_conv2d(conv1x1(32, 192, 28, 32), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kConv2dF32);
  // Batch 1: the FMA kernel (vectorised, small grid) with split-K, in fp32 on this device.
  d = plan_conv2d(conv3x3(1, 256, 14, 256), device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kConv2dVecF32);
  EXPECT_GT(d->splits, 1u);
  EXPECT_EQ(flags_of(*d) & 32u, 0u);
}

TEST(Conv2dPlanner, ShortK1x1ConvolutionsTakeThePointwiseKernel) {
  // MobileNetV2's expansions and projections with K up to 144 (batch 32 and 1), vector access.
  for (const Conv2dProblem& p : {conv1x1(32, 24, 56, 144), conv1x1(32, 144, 56, 24), conv1x1(32, 16, 112, 96),
                                 conv1x1(32, 96, 14, 576), conv1x1(1, 24, 56, 144)}) {
    auto d = plan_conv2d(p, gpu());
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->kernel, Kernel::kConv2dPointwiseF32) << p.in_channels << " -> " << p.out_channels;
    EXPECT_EQ(d->tiling, pointwise_tilings()[0]) << p.in_channels << " -> " << p.out_channels;
    EXPECT_EQ(flags_of(*d) & 192u, 192u);
  }
  // 144 -> 24 at 56x56: 100352 positions in 392 tiles of 256, 2 column tiles of 16.
  auto d = plan_conv2d(conv1x1(32, 144, 56, 24), gpu());
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{2, 392, 1}));
  // Not taken: a longer K, a 3x3 window, NCHW, a CPU implementation, fp16 rounding on the FMA
  // kernels.
  EXPECT_NE(plan_conv2d(conv1x1(32, 160, 7, 960), gpu())->kernel, Kernel::kConv2dPointwiseF32);
  Conv2dProblem split = conv1x1(32, 24, 56, 144);
  split.split_k = 2;  // forced split-K, which this kernel does not have
  EXPECT_NE(plan_conv2d(split, gpu())->kernel, Kernel::kConv2dPointwiseF32);
  EXPECT_NE(plan_conv2d(conv3x3(32, 24, 56, 144), gpu())->kernel, Kernel::kConv2dPointwiseF32);
  Conv2dProblem nchw = conv1x1(32, 24, 56, 144);
  nchw.input = ActivationStrides::nchw({32, 24, 56, 56});
  EXPECT_NE(plan_conv2d(nchw, gpu())->kernel, Kernel::kConv2dPointwiseF32);
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  EXPECT_NE(plan_conv2d(conv1x1(32, 24, 56, 144), cpu)->kernel, Kernel::kConv2dPointwiseF32);
  DeviceTraits fp16 = gpu();
  fp16.precision = Precision::kFp16;
  EXPECT_NE(plan_conv2d(conv1x1(32, 24, 56, 144), fp16)->kernel, Kernel::kConv2dPointwiseF32);
  fp16.cooperative_matrix_f16 = true;
  EXPECT_EQ(plan_conv2d(conv1x1(32, 24, 56, 144), fp16)->kernel, Kernel::kConv2dPointwiseF32);
}

// A stem: c -> oc channels at hw x hw in, k x k stride 2, NCHW input and PyTorch weights in,
// NHWC out (the VgfBackend's first convolution), relu.
Conv2dProblem stem_conv(int64_t batch, int64_t c, int64_t hw, int64_t oc, int64_t k) {
  Conv2dProblem p;
  p.batch = batch, p.in_channels = c, p.in_h = p.in_w = hw, p.out_channels = oc;
  p.out_h = p.out_w = hw / 2, p.kernel_h = p.kernel_w = k, p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = k / 2;
  p.input = ActivationStrides::nchw({batch, c, hw, hw});
  p.output = ActivationStrides::nhwc({batch, oc, hw / 2, hw / 2});
  p.weight = WeightStrides::oihw(c, k, k);
  p.epilogue = {true, false, Activation::kRelu};
  return p;
}

TEST(Conv2dPlanner, FewInputChannelsTakeTheStemKernel) {
  // ResNet's stem (64 channels): the 64-channel blocks, its whole weight staged at once beside
  // the window with 48 KiB (21 x 37 x 3 floats and 147 x 64); 16-byte stores; 3 blocks per
  // workgroup (3136 blocks, about 1024 workgroups).
  auto d = plan_conv2d(stem_conv(32, 3, 224, 64, 7), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kConv2dStemF32) << describe(*d);
  EXPECT_EQ(d->tiling, stem_tilings()[0]);
  EXPECT_EQ(describe(*d), "conv2d_stem_f32 128x64x16/4x8stem");
  EXPECT_EQ(constant_of(*d, 14, 0), 7u);
  EXPECT_EQ(flags_of(*d) & 128u, 128u);
  EXPECT_EQ(constant_of(*d, 15, 0), 3u);
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{33, 1, 32}));
  // With 32 KiB, 4 kernel rows at a time.
  DeviceTraits smaller = gpu();
  smaller.max_shared_bytes = 32768;
  d = plan_conv2d(stem_conv(32, 3, 224, 64, 7), smaller);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(constant_of(*d, 14, 0), 4u);
  // MobileNetV2's (32 channels): the 32-channel blocks.
  d = plan_conv2d(stem_conv(1, 3, 224, 32, 3), gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, stem_tilings()[1]);
  // On a CPU implementation, the 8x8 tiles of 64 channels for ResNet's, the GPUs' 32-channel
  // blocks for MobileNetV2's (both measured on lavapipe).
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  d = plan_conv2d(stem_conv(1, 3, 64, 64, 7), cpu);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(describe(*d), "conv2d_stem_f32 256x64x16/8x8stem");
  d = plan_conv2d(stem_conv(1, 3, 64, 32, 3), cpu);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, stem_tilings()[1]);
  // Not taken: more channels, groups, forced split-K, fp16 rounding on the FMA kernels (a CPU
  // implementation's included), too little shared memory.
  EXPECT_NE(plan_conv2d(stem_conv(1, 8, 32, 32, 3), gpu())->kernel, Kernel::kConv2dStemF32);
  Conv2dProblem grouped = stem_conv(1, 4, 32, 32, 3);
  grouped.groups = 2, grouped.weight = WeightStrides::oihw(2, 3, 3);
  EXPECT_NE(plan_conv2d(grouped, gpu())->kernel, Kernel::kConv2dStemF32);
  DeviceTraits cpu_fp16 = cpu;
  cpu_fp16.precision = Precision::kFp16;
  EXPECT_NE(plan_conv2d(stem_conv(1, 3, 64, 64, 7), cpu_fp16)->kernel, Kernel::kConv2dStemF32);
  Conv2dProblem split = stem_conv(1, 3, 224, 64, 7);
  split.split_k = 2;
  EXPECT_NE(plan_conv2d(split, gpu())->kernel, Kernel::kConv2dStemF32);
  DeviceTraits fp16 = gpu();
  fp16.precision = Precision::kFp16;
  EXPECT_NE(plan_conv2d(stem_conv(32, 3, 224, 64, 7), fp16)->kernel, Kernel::kConv2dStemF32);
  fp16.cooperative_matrix_f16 = true;
  EXPECT_EQ(plan_conv2d(stem_conv(32, 3, 224, 64, 7), fp16)->kernel, Kernel::kConv2dStemF32);
  DeviceTraits tiny = gpu();
  tiny.max_shared_bytes = 8192;  // the window alone is 9324 bytes
  d = plan_conv2d(stem_conv(32, 3, 224, 64, 7), tiny);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_NE(d->kernel, Kernel::kConv2dStemF32);
}

TEST(Conv2dPlanner, CpuImplementationsWeighTheDirectTilings) {
  // NHWC input and TOSA weights with input channels in multiples of 8 load as vectors along K:
  // the direct tiling of fewest padded loads (tiling.cc's cpu_direct_cost). MobileNetV2 at
  // 64x64: 96 -> 576 at 4x4 (16 rows), 24 -> 144 at 16x16 (144 columns: 64x16 wastes none).
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  cpu.cpu_threads = 2;
  auto d = plan_conv2d(conv1x1(1, 96, 4, 576), cpu);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, (Tiling{16, 64, 8, 8, 8, true, false, true}));
  EXPECT_EQ(d->kernel, Kernel::kConv2dVec8F32);
  EXPECT_EQ(d->vector_access.size(), 2u);  // input and weight (no vector stores on 8x8)
  d = plan_conv2d(conv1x1(1, 24, 16, 144), cpu);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, (Tiling{64, 16, 8, 8, 8, true, false, true}));
  d = plan_conv2d(conv3x3(1, 512, 2, 512), cpu);  // 4 rows
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, (Tiling{8, 128, 8, 8, 8, true, false, true}));
  // Not weighed: channels not a multiple of 8, NCHW input, PyTorch's weight layout: the
  // vectorised core's staged 8x8 tiling.
  EXPECT_FALSE(plan_conv2d(conv1x1(1, 12, 16, 144), cpu)->tiling.direct);
  Conv2dProblem nchw = conv1x1(1, 24, 16, 144);
  nchw.input = ActivationStrides::nchw({1, 24, 16, 16});
  EXPECT_FALSE(plan_conv2d(nchw, cpu)->tiling.direct);
  Conv2dProblem oihw = conv3x3(1, 24, 16, 144);
  oihw.weight = WeightStrides::oihw(24, 3, 3);
  EXPECT_FALSE(plan_conv2d(oihw, cpu)->tiling.direct);
}

TEST(Conv2dPlanner, RefusesWhatTheKernelCannotAddress) {
  Conv2dProblem p;
  p.in_channels = 4, p.out_channels = 6, p.groups = 4;
  EXPECT_EQ(plan_conv2d(p, DeviceTraits{}).status().code(), StatusCode::kInvalidArgument);
  p.groups = 1;
  p.stride_h = 70000;
  const Status status = plan_conv2d(p, DeviceTraits{}).status();
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("stride"), std::string::npos) << status.to_string();
  // Products past 64 bits are refused, not overflowed.
  p.stride_h = 1;
  p.batch = p.out_h = p.out_w = UINT32_MAX;
  const Status positions = plan_conv2d(p, DeviceTraits{}).status();
  EXPECT_EQ(positions.code(), StatusCode::kUnsupported);
  EXPECT_NE(positions.message().find("output positions"), std::string::npos) << positions.to_string();
  p.batch = p.out_h = p.out_w = 1;
  p.in_channels = p.out_channels = p.kernel_h = p.kernel_w = UINT32_MAX;
  const Status reduction = plan_conv2d(p, DeviceTraits{}).status();
  EXPECT_EQ(reduction.code(), StatusCode::kUnsupported);
  EXPECT_NE(reduction.message().find("reduction size"), std::string::npos) << reduction.to_string();
}

}  // namespace
}  // namespace univk::kernels
