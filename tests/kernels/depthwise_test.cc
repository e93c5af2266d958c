// depthwise_f32 against the reference conv2d (groups == channels): NCHW and NHWC activations,
// PyTorch and TOSA weight layouts, channel multipliers, stride, dilation, padding, channel
// counts that leave a partial block of 4, narrow outputs, the unrolled and the runtime window,
// vector and gathered access (offsets that break the vector alignment, before planning and
// through add_binding_offsets), and the fused epilogue (bias, residual, relu6/clamp, relu,
// hardswish).
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_runner.h"
#include "univk/kernels/depthwise.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

struct DwCase {
  int64_t n, c, multiplier, h, w, kh, kw, stride, pad, dilation;
};

enum class Layout { kNchw, kNhwc };

int64_t at(const ActivationStrides& s, int64_t n, int64_t c, int64_t y, int64_t x) {
  return n * s.n + c * s.c + y * s.h + x * s.w;
}

struct Options {
  Layout layout = Layout::kNhwc;
  bool tosa_weight = true;
  Epilogue epilogue = {true};
  bool bias_broadcast = false;
  // Element offsets of input, weight, bias, output, residual in their buffers.
  std::array<uint64_t, 5> offsets = {0, 0, 0, 0, 0};
  // Added after planning, as a backend's descriptors do (add_binding_offsets).
  std::array<uint32_t, 5> added = {0, 0, 0, 0, 0};
};

float apply(const Epilogue& e, float v) {
  switch (e.activation) {
    case Activation::kRelu:
      return v < 0 ? 0 : v;
    case Activation::kClamp:
      return v < e.lo ? e.lo : (v > e.hi ? e.hi : v);
    case Activation::kHardswish:
      return v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    default:
      return v;
  }
}

// Returns the planned dispatch's flags (after add_binding_offsets) for the caller's checks.
uint32_t expect_depthwise(const DwCase& c, const Options& o, uint32_t seed) {
  const auto device = testing::test_device();
  EXPECT_NE(device, nullptr);
  if (!device) return 0;
  const int64_t oc = c.c * c.multiplier;
  const HostTensor x = random_tensor(DType::kFloat32, Shape{c.n, c.c, c.h, c.w}, seed);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{oc, 1, c.kh, c.kw}, seed + 1);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{o.bias_broadcast ? 1 : oc}, seed + 2);
  HostTensor full_bias(DType::kFloat32, Shape{oc});
  for (int64_t i = 0; i < oc; ++i) full_bias.data<float>()[i] = b.data<float>()[o.bias_broadcast ? 0 : i];
  auto ref = reference::run_op(
      "conv2d", attrs({{"stride", c.stride}, {"padding", c.pad}, {"dilation", c.dilation}, {"groups", c.c}}),
      std::vector<HostTensor>{x, w, full_bias});
  EXPECT_TRUE(ref.ok()) << ref.status().to_string();
  if (!ref.ok()) return 0;
  const HostTensor& conv = (*ref)[0];
  const int64_t oh = conv.shape()[2], ow = conv.shape()[3];
  const HostTensor residual = random_tensor(DType::kFloat32, conv.shape(), seed + 3);

  DepthwiseProblem p;
  p.batch = c.n, p.channels = c.c, p.multiplier = c.multiplier, p.in_h = c.h, p.in_w = c.w;
  p.out_h = oh, p.out_w = ow;
  p.kernel_h = c.kh, p.kernel_w = c.kw;
  p.stride_h = p.stride_w = c.stride;
  p.dilation_h = p.dilation_w = c.dilation;
  p.pad_top = p.pad_left = c.pad;
  const std::array<int64_t, 4> in_shape = {c.n, c.c, c.h, c.w}, out_shape = {c.n, oc, oh, ow};
  const bool nhwc = o.layout == Layout::kNhwc;
  p.input = nhwc ? ActivationStrides::nhwc(in_shape) : ActivationStrides::nchw(in_shape);
  p.output = nhwc ? ActivationStrides::nhwc(out_shape) : ActivationStrides::nchw(out_shape);
  p.weight = o.tosa_weight ? DepthwiseWeightStrides::hwcm(oc) : DepthwiseWeightStrides::oihw(c.kh, c.kw);
  p.input_offset = o.offsets[0], p.weight_offset = o.offsets[1], p.bias_offset = o.offsets[2];
  p.output_offset = o.offsets[3], p.residual_offset = o.offsets[4];
  p.bias_broadcast = o.bias_broadcast;
  p.epilogue = o.epilogue;
  auto dispatch = plan_depthwise(p, device_traits(device->properties()));
  EXPECT_TRUE(dispatch.ok()) << dispatch.status().to_string();
  if (!dispatch.ok()) return 0;
  EXPECT_TRUE(add_binding_offsets(*dispatch, o.added).ok());

  // Buffers hold each operand at its planned plus added offset.
  auto base = [&](int i) { return o.offsets[i] + o.added[i]; };
  std::vector<float> in(base(0) + x.shape().numel()), weight(base(1) + w.shape().numel());
  std::vector<float> bias(base(2) + b.shape().numel()), res(base(4) + conv.shape().numel());
  std::vector<float> out(base(3) + conv.shape().numel(), -7.0f);
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t ch = 0; ch < c.c; ++ch)
      for (int64_t y = 0; y < c.h; ++y)
        for (int64_t xx = 0; xx < c.w; ++xx)
          in[base(0) + at(p.input, n, ch, y, xx)] = x.data<float>()[((n * c.c + ch) * c.h + y) * c.w + xx];
  for (int64_t ch = 0; ch < oc; ++ch)
    for (int64_t t = 0; t < c.kh * c.kw; ++t)
      weight[base(1) + ch * p.weight.oc + t * p.weight.tap] = w.data<float>()[ch * c.kh * c.kw + t];
  for (int64_t i = 0; i < b.shape().numel(); ++i) bias[base(2) + i] = b.data<float>()[i];
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t ch = 0; ch < oc; ++ch)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx)
          res[base(4) + at(p.output, n, ch, y, xx)] = residual.data<float>()[((n * oc + ch) * oh + y) * ow + xx];
  auto got = testing::run_kernel(device, *dispatch, {in, weight, bias, out, res, {}});
  EXPECT_TRUE(got.ok()) << got.status().to_string();
  if (!got.ok()) return 0;
  if (base(3) > 0) {
    EXPECT_EQ((*got)[base(3) - 1], -7.0f) << "wrote below the output offset";
  }

  HostTensor want = conv;
  HostTensor gathered(DType::kFloat32, conv.shape());
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t ch = 0; ch < oc; ++ch) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          const int64_t i = ((n * oc + ch) * oh + y) * ow + xx;
          float& v = want.data<float>()[i];
          if (!o.epilogue.bias) v -= full_bias.data<float>()[ch];
          if (o.epilogue.residual) v += residual.data<float>()[i];
          v = apply(o.epilogue, v);
          gathered.data<float>()[i] = (*got)[base(3) + at(p.output, n, ch, y, xx)];
        }
      }
    }
  }
  EXPECT_TRUE(univk::testing::tensors_close(gathered, want, {1e-5, 1e-4}))
      << "c " << c.c << " x" << c.multiplier << " " << c.h << "x" << c.w << " k " << c.kh << "x" << c.kw << " stride "
      << c.stride << " pad " << c.pad << " dilation " << c.dilation << " nhwc " << nhwc << " tosa weight "
      << o.tosa_weight;
  for (auto [id, value] : dispatch->specialization)
    if (id == kDwFlagsConstant) return value;
  return 0;
}

const DwCase kCases[] = {
    // n, c, multiplier, h, w, kh, kw, stride, pad, dilation
    {2, 8, 1, 9, 11, 3, 3, 1, 1, 1},  {1, 16, 1, 12, 12, 3, 3, 2, 1, 1},
    {1, 6, 1, 7, 9, 3, 3, 1, 1, 1},   {1, 5, 2, 8, 7, 3, 3, 1, 1, 1},
    {1, 3, 3, 10, 10, 5, 5, 2, 2, 1}, {1, 12, 1, 11, 13, 3, 3, 1, 2, 2},
    {2, 4, 1, 6, 2, 3, 3, 1, 1, 1},   {1, 8, 1, 5, 1, 3, 1, 1, 1, 1},
    {1, 4, 1, 6, 40, 3, 11, 1, 5, 3},  // window 31 wide with 4 columns: walked at runtime
    {1, 7, 1, 5, 16, 2, 4, 3, 0, 1},   // even window, stride 3, no padding
};

// Each case in NCHW with PyTorch's weight (as the VulkanBackend lowers) and NHWC with TOSA's
// (as the VgfBackend does); the other pairings for two cases.
TEST(DepthwiseKernel, EveryLayoutMatchesTheReference) {
  uint32_t seed = 1;
  for (const DwCase& c : kCases) {
    for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
      Options o;
      o.layout = layout;
      o.tosa_weight = layout == Layout::kNhwc;
      expect_depthwise(c, o, seed += 10);
    }
  }
  for (const DwCase& c : {kCases[0], kCases[3]}) {
    for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
      Options o;
      o.layout = layout;
      o.tosa_weight = layout == Layout::kNchw;
      expect_depthwise(c, o, seed += 10);
    }
  }
}

TEST(DepthwiseKernel, VectorAccessOnlyWhereAligned) {
  const DwCase c = {1, 16, 1, 9, 10, 3, 3, 1, 1, 1};
  Options o;
  const uint32_t all = kDwFlagVecIn | kDwFlagVecOut | kDwFlagVecWeight | kDwFlagVecBias;
  EXPECT_EQ(expect_depthwise(c, o, 100) & all, all);
  // Unaligned planned offsets: gathered access for those bindings.
  o.offsets = {1, 2, 3, 5, 0};
  o.epilogue.residual = true;
  EXPECT_EQ(expect_depthwise(c, o, 110) & all, 0u);
  // Offsets added after planning (a backend's descriptor bases) turn vector access off too.
  o.offsets = {0, 0, 0, 0, 0};
  o.added = {4, 1, 8, 0, 2};
  EXPECT_EQ(expect_depthwise(c, o, 120) & all, kDwFlagVecIn | kDwFlagVecBias);
  o.added = {4, 8, 4, 12, 8};
  EXPECT_EQ(expect_depthwise(c, o, 130) & all, all);
  // A channel multiplier gathers the input; NCHW gathers everything but the bias.
  EXPECT_EQ(expect_depthwise({1, 8, 2, 6, 6, 3, 3, 1, 1, 1}, Options{}, 140) & kDwFlagVecIn, 0u);
  Options nchw;
  nchw.layout = Layout::kNchw;
  nchw.tosa_weight = false;
  EXPECT_EQ(expect_depthwise(c, nchw, 150) & all, kDwFlagVecBias);
}

TEST(DepthwiseKernel, FusedEpilogues) {
  const DwCase c = {2, 12, 1, 8, 9, 3, 3, 1, 1, 1};
  const DwCase tail = {1, 6, 1, 7, 7, 3, 3, 2, 1, 1};
  Options o;
  o.epilogue = {true, false, Activation::kClamp, 0.0f, 6.0f};  // relu6
  expect_depthwise(c, o, 500);
  o.epilogue = {true, true, Activation::kClamp, -0.5f, 0.5f};
  expect_depthwise(c, o, 510);
  o.epilogue = {false, true, Activation::kRelu};
  expect_depthwise(c, o, 520);
  o.epilogue = {true, false, Activation::kHardswish};
  o.bias_broadcast = true;
  expect_depthwise(c, o, 530);
  Options nchw;
  nchw.layout = Layout::kNchw;
  nchw.tosa_weight = false;
  nchw.epilogue = {true, true, Activation::kClamp, 0.0f, 6.0f};
  expect_depthwise(tail, nchw, 540);
  nchw.epilogue = {true, false, Activation::kHardswish};
  nchw.bias_broadcast = true;
  expect_depthwise(tail, nchw, 550);
}

TEST(DepthwisePlanner, RefusesBadProblems) {
  DepthwiseProblem p;
  p.channels = 0;
  EXPECT_EQ(plan_depthwise(p, DeviceTraits{}).status().code(), StatusCode::kInvalidArgument);
  p.channels = 4;
  p.stride_w = 0;
  EXPECT_EQ(plan_depthwise(p, DeviceTraits{}).status().code(), StatusCode::kInvalidArgument);
  p.stride_w = 70000;
  const Status status = plan_depthwise(p, DeviceTraits{}).status();
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("stride"), std::string::npos) << status.to_string();
  p.stride_w = 1;
  p.input = ActivationStrides::nhwc({1, 4, 1, 1});
  p.input_offset = UINT32_MAX;
  EXPECT_EQ(plan_depthwise(p, DeviceTraits{}).status().code(), StatusCode::kUnsupported);
}

TEST(DepthwisePlanner, LargeGridsUseTwoDimensions) {
  DepthwiseProblem p;
  p.batch = 64, p.channels = 96, p.in_h = p.in_w = p.out_h = p.out_w = 112;
  p.kernel_h = p.kernel_w = 3, p.pad_top = p.pad_left = 1;
  p.input = ActivationStrides::nhwc({64, 96, 112, 112});
  p.output = p.input;
  p.weight = DepthwiseWeightStrides::hwcm(96);
  auto d = plan_depthwise(p, DeviceTraits{});
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  // 64 * 112 * 28 * 24 invocations in groups of 64.
  const uint64_t groups = uint64_t(d->groups[0]) * d->groups[1];
  EXPECT_GE(groups * 64, 64ull * 112 * 28 * 24);
  EXPECT_LE(d->groups[0], 65535u);
  EXPECT_GT(d->groups[1], 1u);
}

}  // namespace
}  // namespace univk::kernels
