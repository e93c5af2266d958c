// Winograd F(2x2, 3x3) (winograd.h): the weight transform on the host, the input transform, the
// batched GEMM and the output transform run one after the other on the test device, against the
// reference conv2d: NCHW and NHWC, odd output sizes (partial tiles), padding 0 to 2, batches,
// offsets, and the epilogue (bias, broadcast bias, residual, activations). Then the choice rule.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernel_runner.h"
#include "univk/kernels/winograd.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

struct WinogradCase {
  int64_t n, c, h, w, oc, pad;
  bool nhwc = true, tosa_weight = true;
  Epilogue epilogue;
  bool bias_broadcast = false;
};

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
  p.pad_top = p.pad_left = c.pad;
  const std::array<int64_t, 4> in_shape = {c.n, c.c, c.h, c.w}, out_shape = {c.n, c.oc, oh, ow};
  p.input = c.nhwc ? ActivationStrides::nhwc(in_shape) : ActivationStrides::nchw(in_shape);
  p.output = c.nhwc ? ActivationStrides::nhwc(out_shape) : ActivationStrides::nchw(out_shape);
  p.weight = c.tosa_weight ? WeightStrides::ohwi(c.c, 3, 3) : WeightStrides::oihw(c.c, 3, 3);
  p.input_offset = 3, p.weight_offset = 5, p.bias_offset = 2, p.output_offset = 1, p.residual_offset = 4;
  p.epilogue = c.epilogue;
  p.bias_broadcast = c.bias_broadcast;
  return p;
}

void expect_winograd(const WinogradCase& c, uint32_t seed) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  const HostTensor x = random_tensor(DType::kFloat32, Shape{c.n, c.c, c.h, c.w}, seed);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{c.oc, c.c, 3, 3}, seed + 1);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{c.bias_broadcast ? 1 : c.oc}, seed + 2);
  auto ref = reference::run_op("conv2d", attrs({{"stride", 1}, {"padding", c.pad}}),
                               std::vector<HostTensor>{x, w, HostTensor(DType::kFloat32, Shape{c.oc})});
  ASSERT_TRUE(ref.ok()) << ref.status().to_string();
  const HostTensor& conv = (*ref)[0];  // without bias: the epilogue below adds it
  const int64_t oh = conv.shape()[2], ow = conv.shape()[3];
  const HostTensor residual = random_tensor(DType::kFloat32, conv.shape(), seed + 3);
  const Conv2dProblem p = problem_of(c, oh, ow);

  DeviceTraits traits = device_traits(*device, Precision::kFp32);
  auto plan = plan_winograd(p, traits);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->tiles, c.n * ((oh + 1) / 2) * ((ow + 1) / 2));

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

  auto u = winograd_weights(p, weight);
  ASSERT_TRUE(u.ok()) << u.status().to_string();
  ASSERT_EQ(u->size(), plan->u_elements);
  auto v = testing::run_kernel(device, plan->input_transform,
                               {in, {}, {}, std::vector<float>(plan->v_elements, -3.0f), {}, {}});
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  auto m = testing::run_kernel(device, plan->gemm, {*v, *u, {}, std::vector<float>(plan->m_elements), {}, {}});
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  auto got = testing::run_kernel(device, plan->output_transform, {*m, {}, bias, out, res, {}});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
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
  const double atol = 1e-5 * std::max<double>(1.0, double(c.c * 9) / 128);
  EXPECT_TRUE(univk::testing::tensors_close(gathered, want, {atol, 1e-4}))
      << "c " << c.c << " oc " << c.oc << " " << c.h << "x" << c.w << " pad " << c.pad << " nhwc " << c.nhwc;
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
  };
  uint32_t seed = 100;
  for (const auto& c : cases) expect_winograd(c, seed += 10);
}

TEST(WinogradKernel, WeightTransformIsGgGt) {
  // One 3x3 kernel of ones: U = G 1 G^T, rows of G summing to 1, 1.5, 0.5, 1.
  Conv2dProblem p = problem_of(plain(1, 1, 4, 4, 1, 1), 4, 4);
  p.weight_offset = 0;
  const std::vector<float> ones(9, 1.0f);
  auto u = winograd_weights(p, ones);
  ASSERT_TRUE(u.ok()) << u.status().to_string();
  const float sums[4] = {1.0f, 1.5f, 0.5f, 1.0f};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_FLOAT_EQ((*u)[size_t(i * 4 + j)], sums[i] * sums[j]) << i << "," << j;
  EXPECT_FALSE(winograd_weights(p, std::span<const float>(ones).first(8)).ok()) << "a weight too short";
}

TEST(WinogradPlanner, ChoosesWinogradWhereItIsMeasuredToWin) {
  DeviceTraits cpu, gpu;
  cpu.cpu = true;
  const Conv2dProblem resnet = problem_of(plain(1, 64, 16, 16, 64, 1), 16, 16);
  EXPECT_TRUE(winograd_chosen(resnet, cpu));
  EXPECT_FALSE(winograd_chosen(resnet, gpu)) << "GPUs keep the implicit GEMM until measured";
  gpu.winograd = Winograd::kOn;
  EXPECT_TRUE(winograd_chosen(resnet, gpu));
  cpu.winograd = Winograd::kOff;
  EXPECT_FALSE(winograd_chosen(resnet, cpu));
  cpu.winograd = Winograd::kAuto;
  EXPECT_FALSE(winograd_chosen(problem_of(plain(1, 4, 16, 16, 64, 1), 16, 16), cpu)) << "few input channels";
  EXPECT_TRUE(winograd_chosen(problem_of(plain(1, 64, 8, 8, 64, 1), 8, 8), cpu)) << "16 tiles";
  EXPECT_FALSE(winograd_chosen(problem_of(plain(1, 64, 6, 6, 64, 1), 6, 6), cpu)) << "9 tiles";

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
    EXPECT_FALSE(winograd_chosen(p, gpu));
    EXPECT_FALSE(plan_winograd(p, gpu).ok());
  }
  // V of 16 x 64 tiles x 64 channels = 256 KiB: past a 128 KiB binding limit, the implicit GEMM.
  gpu.max_binding_bytes = 128 << 10;
  EXPECT_FALSE(winograd_chosen(resnet, gpu));
}

TEST(WinogradPlanner, SizesItsOperands) {
  const Conv2dProblem p = problem_of({2, 8, 7, 9, 16, 1, true, true, with(true, true)}, 7, 9);
  auto plan = plan_winograd(p, DeviceTraits{});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->tiles_h, 4);
  EXPECT_EQ(plan->tiles_w, 5);
  EXPECT_EQ(plan->tiles, 40);
  EXPECT_EQ(plan->v_elements, 16u * 40 * 8);
  EXPECT_EQ(plan->m_elements, 16u * 40 * 16);
  EXPECT_EQ(plan->u_elements, 16u * 8 * 16);
  EXPECT_EQ(plan->gemm_problem.batch, 16);
  EXPECT_EQ(plan->input_transform.output_binding, 3u);
  EXPECT_EQ(plan->output_transform.used_bindings, 0b11101u);  // M, bias, output, residual
}

}  // namespace
}  // namespace univk::kernels
