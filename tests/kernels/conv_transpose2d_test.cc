// The transposed convolution kernel (conv_transpose2d.h) on the device against the reference:
// PyTorch's layouts (NCHW, weight [C, OC/groups, KH, KW]) with groups, stride, dilation, padding
// and a clamp epilogue; TOSA's (NHWC, weight OHWI) with TRANSPOSE_CONV2D's signed out_pad and a
// broadcast bias; and a grouped problem split along whole groups (split.h).
#include <gtest/gtest.h>

#include "kernel_runner.h"
#include "univk/kernels/conv_transpose2d.h"
#include "univk/kernels/split.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

std::vector<float> values(const HostTensor& t) { return {t.data<float>().begin(), t.data<float>().end()}; }

void expect_near(const std::vector<float>& got, const HostTensor& want) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.shape().numel());
  for (int64_t i = 0; i < want.shape().numel(); ++i) {
    ASSERT_NEAR(got[i], want.data<float>()[i], 1e-5 + 1e-5 * std::abs(want.data<float>()[i])) << i;
  }
}

// [1, 4, 5, 3] -> groups 2, stride (2, 3), dilation (1, 2), padding (1, 0), output_padding (1, 2).
ConvTranspose2dProblem pytorch_problem(int64_t out_h, int64_t out_w) {
  ConvTranspose2dProblem p;
  p.batch = 1, p.in_channels = 4, p.in_h = 5, p.in_w = 3;
  p.out_channels = 6, p.out_h = out_h, p.out_w = out_w;
  p.kernel_h = 3, p.kernel_w = 2, p.stride_h = 2, p.stride_w = 3, p.dilation_h = 1, p.dilation_w = 2;
  p.pad_top = 1, p.pad_left = 0;
  p.groups = 2;
  p.input = ActivationStrides::nchw({1, 4, 5, 3});
  p.output = ActivationStrides::nchw({1, 6, out_h, out_w});
  p.weight = ConvTransposeWeightStrides::iohw(3, 3, 2);
  p.epilogue = {true, false, Activation::kClamp, -0.5f, 0.5f};
  return p;
}

TEST(ConvTranspose2dKernel, PytorchLayoutWithGroupsDilationAndClamp) {
  const HostTensor x = random_tensor(DType::kFloat32, Shape{1, 4, 5, 3}, 1);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{4, 3, 3, 2}, 2);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{6}, 3);
  const Attributes a = attrs({{"groups", int64_t{2}},
                              {"stride", std::vector<int64_t>{2, 3}},
                              {"dilation", std::vector<int64_t>{1, 2}},
                              {"padding", std::vector<int64_t>{1, 0}},
                              {"output_padding", std::vector<int64_t>{1, 2}}});
  auto conv = reference::run_op("conv_transpose2d", a, std::vector<HostTensor>{x, w, b});
  ASSERT_TRUE(conv.ok()) << conv.status().to_string();
  const Shape& out = (*conv)[0].shape();
  auto want = reference::run_op("clamp", attrs({{"min", -0.5}, {"max", 0.5}}), std::vector<HostTensor>{(*conv)[0]});
  ASSERT_TRUE(want.ok());
  const auto& device = testing::test_device();
  auto d = plan_conv_transpose2d(pytorch_problem(out[2], out[3]), device_traits(device->properties()));
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  auto got = testing::run_kernel(device, *d,
                                 {values(x), values(w), values(b), std::vector<float>(out.numel(), -7.0f), {}, {}});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  expect_near(*got, (*want)[0]);
}

TEST(ConvTranspose2dKernel, TosaLayoutWithSignedOutPad) {
  // [2, 4, 3, 3] NHWC, weight [5, 3, 2, 3], stride (2, 1), out_pad [-1, 2, 1, 0].
  const HostTensor x = random_tensor(DType::kFloat32, Shape{2, 4, 3, 3}, 4);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{5, 3, 2, 3}, 5);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{1}, 6);
  Attributes a;
  a.set("out_pad", std::vector<int64_t>{-1, 2, 1, 0});
  a.set("stride", std::vector<int64_t>{2, 1});
  auto want = reference::run_tosa("TRANSPOSE_CONV2D", a, std::vector<HostTensor>{x, w, b});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  const Shape& out = (*want)[0].shape();
  ASSERT_EQ(out, (Shape{2, 10, 5, 5}));
  ConvTranspose2dProblem p;
  p.batch = 2, p.in_channels = 3, p.in_h = 4, p.in_w = 3;
  p.out_channels = 5, p.out_h = 10, p.out_w = 5;
  p.kernel_h = 3, p.kernel_w = 2, p.stride_h = 2, p.stride_w = 1;
  p.pad_top = 1, p.pad_left = -1;
  p.input = ActivationStrides::nhwc({2, 3, 4, 3});
  p.output = ActivationStrides::nhwc({2, 5, 10, 5});
  p.weight = ConvTransposeWeightStrides::ohwi(3, 3, 2);
  p.bias_broadcast = true;
  p.epilogue.bias = true;
  const auto& device = testing::test_device();
  auto d = plan_conv_transpose2d(p, device_traits(device->properties()));
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  auto got = testing::run_kernel(device, *d,
                                 {values(x), values(w), values(b), std::vector<float>(out.numel(), -7.0f), {}, {}});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  expect_near(*got, (*want)[0]);
}

TEST(ConvTranspose2dKernel, SplitsAlongWholeGroups) {
  // 4 groups of 2 -> 3 channels over [2, 8, 6, 6]: stride 2, k 3 -> output [2, 12, 13, 13] (8112
  // bytes per image); 3 KiB bindings take one group (2028 bytes) of one image.
  const int64_t groups = 4;
  const HostTensor x = random_tensor(DType::kFloat32, Shape{2, 8, 6, 6}, 7);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{8, 3, 3, 3}, 8);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{12}, 9);
  auto want = reference::run_op("conv_transpose2d", attrs({{"groups", groups}, {"stride", int64_t{2}}}),
                                std::vector<HostTensor>{x, w, b});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  ConvTranspose2dProblem p;
  p.batch = 2, p.in_channels = 8, p.in_h = p.in_w = 6;
  p.out_channels = 12, p.out_h = p.out_w = 13;
  p.kernel_h = p.kernel_w = 3, p.stride_h = p.stride_w = 2;
  p.groups = groups;
  p.input = ActivationStrides::nchw({2, 8, 6, 6});
  p.output = ActivationStrides::nchw({2, 12, 13, 13});
  p.weight = ConvTransposeWeightStrides::iohw(3, 3, 3);
  p.epilogue.bias = true;
  DeviceTraits limited;
  limited.max_binding_bytes = 3 << 10;
  limited.binding_alignment = 16;
  auto pieces = split_problem(p, limited);
  ASSERT_TRUE(pieces.ok()) << pieces.status().to_string();
  EXPECT_EQ(pieces->size(), 2u * 4u);
  const auto& device = testing::test_device();
  std::vector<std::vector<float>> operands = {
      values(x), values(w), values(b), std::vector<float>(2 * 12 * 13 * 13, -7.0f), {0.0f}};
  for (const ProblemPiece& piece : *pieces) {
    auto d = plan(piece.problem, device_traits(device->properties()));
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    std::vector<std::vector<float>> bindings;
    for (uint32_t i = 0; i < kOperandBindings; ++i) {
      const ElementWindow win = piece.windows[i];
      ASSERT_LE(win.end, operands[i].size());
      EXPECT_LE((win.end - win.begin) * 4, limited.max_binding_bytes);
      bindings.emplace_back(operands[i].begin() + static_cast<int64_t>(win.begin),
                            operands[i].begin() + static_cast<int64_t>(win.end));
    }
    bindings.emplace_back();
    auto got = testing::run_kernel(device, *d, bindings);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    std::copy(got->begin(), got->end(), operands[3].begin() + static_cast<int64_t>(piece.windows[3].begin));
  }
  expect_near(operands[3], (*want)[0]);
}

TEST(ConvTranspose2dKernel, RefusesBadProblems) {
  ConvTranspose2dProblem p = pytorch_problem(12, 10);
  p.groups = 3;  // 4 input channels
  EXPECT_EQ(plan_conv_transpose2d(p, DeviceTraits{}).status().code(), StatusCode::kInvalidArgument);
  p = pytorch_problem(12, 10);
  p.epilogue.residual = true;
  EXPECT_EQ(plan_conv_transpose2d(p, DeviceTraits{}).status().code(), StatusCode::kInvalidArgument);
  p = pytorch_problem(12, 10);
  p.stride_h = 1 << 16;
  EXPECT_EQ(plan_conv_transpose2d(p, DeviceTraits{}).status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace univk::kernels
