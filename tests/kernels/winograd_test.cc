// Winograd F(2x2, 3x3) and F(4x4, 3x3) (winograd.h): the weight transform on the host, the input
// transform, the batched GEMM and the output transform run one after the other on the test
// device, against the reference conv2d: NCHW and NHWC, output sizes that leave partial tiles,
// padding 0 to 2, batches, offsets, and the epilogue (bias, broadcast bias, residual,
// activations). Then the choice rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernel_runner.h"
#include "univk/kernels/winograd.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

struct WinogradCase {
  int64_t n, c, h, w, oc, pad;  // pad: top and bottom, and left and right unless pad_w says otherwise
  bool nhwc = true, tosa_weight = true;
  Epilogue epilogue;
  bool bias_broadcast = false;
  int64_t pad_w = -1;  // left and right padding; -1: pad
};

int64_t pad_w_of(const WinogradCase& c) { return c.pad_w < 0 ? c.pad : c.pad_w; }

int64_t at(const ActivationStrides& s, int64_t n, int64_t c, int64_t y, int64_t x) {
  return n * s.n + c * s.c + y * s.h + x * s.w;
}

// NHWC, TOSA weight, no epilogue.
WinogradCase plain(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t pad) {
  WinogradCase wc;
  wc.n = n, wc.c = c, wc.h = h, wc.w = w, wc.oc = oc, wc.pad = pad;
  return wc;
}

Conv2dProblem problem_of(const WinogradCase& c, int64_t oh, int64_t ow) {
  Conv2dProblem p;
  p.batch = c.n, p.in_channels = c.c, p.in_h = c.h, p.in_w = c.w;
  p.out_channels = c.oc, p.out_h = oh, p.out_w = ow;
  p.kernel_h = p.kernel_w = 3;
  p.pad_top = c.pad;
  p.pad_left = pad_w_of(c);
  const std::array<int64_t, 4> in_shape = {c.n, c.c, c.h, c.w}, out_shape = {c.n, c.oc, oh, ow};
  p.input = c.nhwc ? ActivationStrides::nhwc(in_shape) : ActivationStrides::nchw(in_shape);
  p.output = c.nhwc ? ActivationStrides::nhwc(out_shape) : ActivationStrides::nchw(out_shape);
  p.weight = c.tosa_weight ? WeightStrides::ohwi(c.c, 3, 3) : WeightStrides::oihw(c.c, 3, 3);
  p.input_offset = 3, p.weight_offset = 5, p.bias_offset = 2, p.output_offset = 1, p.residual_offset = 4;
  p.epilogue = c.epilogue;
  p.bias_broadcast = c.bias_broadcast;
  return p;
}

// Returns the largest error relative to the largest output magnitude.
double expect_winograd(const WinogradCase& c, int64_t tile, uint32_t seed) {
  const auto device = testing::test_device();
  if (device == nullptr) {
    ADD_FAILURE() << "no test device";
    return 0;
  }
  const HostTensor x = random_tensor(DType::kFloat32, Shape{c.n, c.c, c.h, c.w}, seed);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{c.oc, c.c, 3, 3}, seed + 1);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{c.bias_broadcast ? 1 : c.oc}, seed + 2);
  auto ref = reference::run_op("conv2d", attrs({{"stride", 1}, {"padding", std::vector<int64_t>{c.pad, pad_w_of(c)}}}),
                               std::vector<HostTensor>{x, w, HostTensor(DType::kFloat32, Shape{c.oc})});
  if (!ref.ok()) {
    ADD_FAILURE() << ref.status().to_string();
    return 0;
  }
  const HostTensor& conv = (*ref)[0];  // without bias: the epilogue below adds it
  const int64_t oh = conv.shape()[2], ow = conv.shape()[3];
  const HostTensor residual = random_tensor(DType::kFloat32, conv.shape(), seed + 3);
  const Conv2dProblem p = problem_of(c, oh, ow);

  DeviceTraits traits = device_traits(*device, Precision::kFp32);
  auto plan = plan_winograd(p, traits, tile);
  if (!plan.ok()) {
    ADD_FAILURE() << plan.status().to_string();
    return 0;
  }
  EXPECT_EQ(plan->tiles, c.n * ((oh + tile - 1) / tile) * ((ow + tile - 1) / tile));

  std::vector<float> in(p.input_offset + x.shape().numel()), weight(p.weight_offset + w.shape().numel());
  std::vector<float> bias(p.bias_offset + b.shape().numel());
  std::vector<float> res(p.residual_offset + conv.shape().numel());
  std::vector<float> out(p.output_offset + conv.shape().numel(), -7.0f);
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t ch = 0; ch < c.c; ++ch)
      for (int64_t y = 0; y < c.h; ++y)
        for (int64_t xx = 0; xx < c.w; ++xx)
          in[p.input_offset + at(p.input, n, ch, y, xx)] = x.data<float>()[((n * c.c + ch) * c.h + y) * c.w + xx];
  for (int64_t o = 0; o < c.oc; ++o)
    for (int64_t i = 0; i < c.c; ++i)
      for (int64_t t = 0; t < 9; ++t)
        weight[p.weight_offset + o * p.weight.oc + i * p.weight.ic + t * p.weight.tap] =
            w.data<float>()[(o * c.c + i) * 9 + t];
  std::copy(b.data<float>().begin(), b.data<float>().end(), bias.begin() + int64_t(p.bias_offset));
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx)
          res[p.residual_offset + at(p.output, n, o, y, xx)] =
              residual.data<float>()[((n * c.oc + o) * oh + y) * ow + xx];

  auto u = winograd_weights(p, weight, tile);
  if (!u.ok() || u->size() != plan->u_elements) {
    ADD_FAILURE() << "U: " << u.status().to_string();
    return 0;
  }
  auto v = testing::run_kernel(device, plan->input_transform,
                               {in, {}, {}, std::vector<float>(plan->v_elements, -3.0f), {}, {}});
  if (!v.ok()) {
    ADD_FAILURE() << v.status().to_string();
    return 0;
  }
  auto m = testing::run_kernel(device, plan->gemm, {*v, *u, {}, std::vector<float>(plan->m_elements), {}, {}});
  if (!m.ok()) {
    ADD_FAILURE() << m.status().to_string();
    return 0;
  }
  auto got = testing::run_kernel(device, plan->output_transform, {*m, {}, bias, out, res, {}});
  if (!got.ok()) {
    ADD_FAILURE() << got.status().to_string();
    return 0;
  }
  EXPECT_EQ((*got)[0], -7.0f) << "wrote below the output offset";

  HostTensor want = conv, gathered(DType::kFloat32, conv.shape());
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t o = 0; o < c.oc; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          const int64_t i = ((n * c.oc + o) * oh + y) * ow + xx;
          float& value = want.data<float>()[i];
          if (c.epilogue.bias) value += b.data<float>()[c.bias_broadcast ? 0 : o];
          if (c.epilogue.residual) value += residual.data<float>()[i];
          if (c.epilogue.activation == Activation::kRelu) value = std::max(value, 0.0f);
          if (c.epilogue.activation == Activation::kClamp) value = std::clamp(value, c.epilogue.lo, c.epilogue.hi);
          gathered.data<float>()[i] = (*got)[p.output_offset + at(p.output, n, o, y, xx)];
        }
      }
    }
  }
  double error = 0, magnitude = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    error = std::max<double>(error, std::abs(gathered.data<float>()[i] - want.data<float>()[i]));
    magnitude = std::max<double>(magnitude, std::abs(want.data<float>()[i]));
  }
  // F(4x4)'s larger transform coefficients: a larger rounding error (winograd.h, Numerics); on an
  // H100 one element of the 64-channel case was 6.0e-4 off, where lavapipe's stayed under 4.5e-4.
  const double atol = (tile == 4 ? 2e-4 : 1e-5) * std::max<double>(1.0, double(c.c * 9) / 128);
  EXPECT_TRUE(univk::testing::tensors_close(gathered, want, {atol, 1e-4}))
      << "tile " << tile << " c " << c.c << " oc " << c.oc << " " << c.h << "x" << c.w << " pad " << c.pad << " nhwc "
      << c.nhwc;
  return magnitude > 0 ? error / magnitude : error;
}

Epilogue with(bool bias, bool residual, Activation activation = Activation::kNone, float lo = 0, float hi = 0) {
  Epilogue e;
  e.bias = bias;
  e.residual = residual;
  e.activation = activation;
  e.lo = lo, e.hi = hi;
  return e;
}

TEST(WinogradKernel, MatchesTheReferenceConvolution) {
  const WinogradCase cases[] = {
      // n, c, h, w, oc, pad
      {1, 8, 8, 8, 16, 1, true, true, with(true, false)},
      {2, 5, 9, 7, 6, 1, true, true, with(true, true, Activation::kRelu)},  // odd sizes: partial tiles
      {1, 16, 6, 11, 12, 0, false, false, with(true, false, Activation::kClamp, -0.5f, 0.5f)},
      {1, 3, 5, 5, 4, 2, true, false, with(false, true)},  // padding 2: an output larger than the input
      {3, 12, 4, 4, 9, 1, false, true, with(true, true), true},
      {1, 64, 14, 14, 32, 1, true, true, with(true, false, Activation::kRelu)},
      {1, 4, 3, 3, 4, 0, true, true, with(false, false)},  // one output, one partial tile
      {2, 8, 13, 10, 8, 1, true, true, with(true, true)},  // 13 rows: the last 4x4 tile has 1 valid row
      // Padding 0 rows, 2 columns (and the other way): top and left told apart.
      {1, 8, 9, 6, 8, 0, true, true, with(true, false), false, 2},
      {1, 8, 6, 9, 8, 2, false, true, with(true, false), false, 0},
  };
  for (int64_t tile : {2, 4}) {
    uint32_t seed = 100;
    for (const auto& c : cases) expect_winograd(c, tile, seed += 10);
  }
}

// The documented error (winograd.h): F(4x4) against F(2x2) on a 64-channel convolution.
TEST(WinogradKernel, FourByFourTilesRoundMoreThanTwoByTwo) {
  const WinogradCase c = plain(1, 64, 16, 16, 64, 1);
  const double f2 = expect_winograd(c, 2, 300), f4 = expect_winograd(c, 4, 300);
  EXPECT_LT(f2, 2e-6);
  EXPECT_LT(f4, 2e-5);
  EXPECT_GT(f4, f2);
  std::printf("largest error / largest output: F(2x2) %.2g, F(4x4) %.2g\n", f2, f4);
}

TEST(WinogradKernel, WeightTransformIsGgGt) {
  // One 3x3 kernel of ones: U = G 1 G^T, rows of G summing to 1, 1.5, 0.5, 1.
  Conv2dProblem p = problem_of(plain(1, 1, 4, 4, 1, 1), 4, 4);
  p.weight_offset = 0;
  const std::vector<float> ones(9, 1.0f);
  auto u = winograd_weights(p, ones, 2);
  ASSERT_TRUE(u.ok()) << u.status().to_string();
  const float sums[4] = {1.0f, 1.5f, 0.5f, 1.0f};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_FLOAT_EQ((*u)[size_t(i * 4 + j)], sums[i] * sums[j]) << i << "," << j;
  // F(4x4): G's rows sum to 1/4, -1/2, -1/6, 7/24, 1/8, 1.
  auto u4 = winograd_weights(p, ones, 4);
  ASSERT_TRUE(u4.ok()) << u4.status().to_string();
  const float sums4[6] = {0.25f, -0.5f, -1.0f / 6, 7.0f / 24, 0.125f, 1.0f};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_FLOAT_EQ((*u4)[size_t(i * 6 + j)], sums4[i] * sums4[j]) << i << "," << j;
  EXPECT_FALSE(winograd_weights(p, std::span<const float>(ones).first(8), 2).ok()) << "a weight too short";
  EXPECT_FALSE(winograd_weights(p, ones, 3).ok()) << "3x3 output tiles";
}

TEST(WinogradPlanner, ChoosesWinogradWhereItIsMeasuredToWin) {
  DeviceTraits cpu, gpu;
  cpu.cpu = true;
  const Conv2dProblem resnet = problem_of(plain(1, 64, 16, 16, 64, 1), 16, 16);
  EXPECT_EQ(winograd_tile(resnet, cpu), 2);
  // GPUs: 2x2 tiles for 1024 to 3136 output positions and 512 channels in and out (ResNet's last
  // stage at batch 32).
  const Conv2dProblem last_stage = problem_of(plain(32, 512, 7, 7, 512, 1), 7, 7);
  EXPECT_EQ(winograd_tile(last_stage, gpu), 2);
  EXPECT_EQ(winograd_tile(resnet, gpu), std::nullopt) << "256 positions, 64 channels";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 512, 7, 7, 512, 1), 7, 7), gpu), std::nullopt) << "49 positions";
  EXPECT_EQ(winograd_tile(problem_of(plain(32, 512, 14, 14, 512, 1), 14, 14), gpu), std::nullopt) << "6272 positions";
  EXPECT_EQ(winograd_tile(problem_of(plain(32, 256, 7, 7, 512, 1), 7, 7), gpu), std::nullopt) << "256 channels in";
  gpu.winograd = Winograd::kF2;
  EXPECT_EQ(winograd_tile(resnet, gpu), 2);
  gpu.winograd = Winograd::kF4;
  EXPECT_EQ(winograd_tile(resnet, gpu), 4);
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 64, 2, 2, 64, 1), 2, 2), gpu), 4) << "forced, whatever the size";
  cpu.winograd = Winograd::kOff;
  EXPECT_EQ(winograd_tile(resnet, cpu), std::nullopt);
  cpu.winograd = Winograd::kAuto;
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 4, 16, 16, 64, 1), 16, 16), cpu), std::nullopt) << "few channels";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 64, 7, 7, 64, 1), 7, 7), cpu), 2) << "16 tiles";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 64, 6, 6, 64, 1), 6, 6), cpu), std::nullopt) << "9 tiles";
  cpu.precision = gpu.precision = Precision::kFp16;
  gpu.winograd = Winograd::kAuto;
  EXPECT_EQ(winograd_tile(resnet, cpu), 4) << "fp16: 16 tiles of 4x4";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 64, 8, 8, 64, 1), 8, 8), cpu), 2) << "fp16: 4 of 4x4, 16 of 2x2";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 64, 4, 4, 64, 1), 4, 4), cpu), std::nullopt) << "fp16: 4 of 2x2";
  EXPECT_EQ(winograd_tile(last_stage, gpu), 2) << "fp16 on GPUs: 2x2 tiles as under fp32";
  EXPECT_EQ(winograd_tile(resnet, gpu), std::nullopt);
  cpu.precision = gpu.precision = Precision::kFp32;
  gpu.winograd = Winograd::kF4;

  Conv2dProblem strided = resnet;
  strided.stride_h = strided.stride_w = 2;
  strided.out_h = strided.out_w = 8;
  Conv2dProblem dilated = resnet;
  dilated.dilation_h = dilated.dilation_w = 2;
  dilated.out_h = dilated.out_w = 14;
  Conv2dProblem grouped = resnet;
  grouped.groups = 2;
  grouped.weight = WeightStrides::ohwi(32, 3, 3);
  Conv2dProblem five = resnet;
  five.kernel_h = five.kernel_w = 5;
  for (const Conv2dProblem& p : {strided, dilated, grouped, five}) {
    EXPECT_FALSE(winograd_computes(p));
    EXPECT_EQ(winograd_tile(p, gpu), std::nullopt);
    EXPECT_FALSE(plan_winograd(p, gpu, 2).ok());
  }
  EXPECT_FALSE(plan_winograd(resnet, gpu, 6).ok()) << "6x6 output tiles";
  // Each of V, M and U past a 128 KiB binding limit on its own (F(2x2), 16 x 16 outputs: 64
  // tiles): the implicit GEMM.
  gpu.winograd = Winograd::kF2;
  gpu.max_binding_bytes = 128 << 10;
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 16, 16, 16, 16, 1), 16, 16), gpu), 2) << "V, M 64 KiB, U 16 KiB";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 48, 16, 16, 8, 1), 16, 16), gpu), std::nullopt) << "V 192 KiB";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 8, 16, 16, 48, 1), 16, 16), gpu), std::nullopt) << "M 192 KiB";
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 96, 2, 2, 96, 1), 2, 2), gpu), std::nullopt) << "U 576 KiB";
  gpu.max_binding_bytes = 256 << 10;
  EXPECT_EQ(winograd_tile(problem_of(plain(1, 64, 2, 2, 64, 1), 2, 2), gpu), 2) << "U 256 KiB, limit raised";
}

TEST(WinogradPlanner, SizesItsOperands) {
  const Conv2dProblem p = problem_of({2, 8, 7, 9, 16, 1, true, true, with(true, true)}, 7, 9);
  auto plan = plan_winograd(p, DeviceTraits{}, 2);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->tiles_h, 4);
  EXPECT_EQ(plan->tiles_w, 5);
  EXPECT_EQ(plan->tiles, 40);
  EXPECT_EQ(plan->v_elements, 16u * 40 * 8);
  EXPECT_EQ(plan->m_elements, 16u * 40 * 16);
  EXPECT_EQ(plan->u_elements, 16u * 8 * 16);
  EXPECT_EQ(plan->gemm_problem.batch, 16);
  auto four = plan_winograd(p, DeviceTraits{}, 4);
  ASSERT_TRUE(four.ok()) << four.status().to_string();
  EXPECT_EQ(four->tiles, 2 * 2 * 3);
  EXPECT_EQ(four->points, 36);
  EXPECT_EQ(four->v_elements, 36u * 12 * 8);
  EXPECT_EQ(plan->input_transform.output_binding, 3u);
  EXPECT_EQ(plan->output_transform.used_bindings, 0b11101u);  // M, bias, output, residual
}

}  // namespace
}  // namespace univk::kernels
