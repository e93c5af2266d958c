// Large operands (split.h): problems over a small artificial binding limit cut into pieces whose
// windows fit, each piece run on the device over its windows alone, the assembled output
// against the reference (a linear layer split along its columns, a batched GEMM along the batch
// and rows, a convolution along the batch and its output channels, a grouped one along whole
// groups); and the errors when no split fits.
#include <gtest/gtest.h>

#include "kernel_runner.h"
#include "univk/kernels/split.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

// Runs every piece over copies of its windows of `operands` (binding order, the output at 3)
// and returns the output operand after all of them; checks each window fits `device`.
std::vector<float> run_pieces(const std::vector<ProblemPiece>& pieces, std::vector<std::vector<float>> operands,
                              const DeviceTraits& device) {
  const auto gpu = testing::test_device();
  std::vector<float>& out = operands[3];
  for (const ProblemPiece& piece : pieces) {
    auto d = plan(piece.problem, device_traits(gpu->properties()));
    EXPECT_TRUE(d.ok()) << d.status().to_string();
    if (!d.ok()) return {};
    std::vector<std::vector<float>> bindings;
    for (uint32_t i = 0; i < kOperandBindings; ++i) {
      const ElementWindow w = piece.windows[i];
      EXPECT_LE(w.end, operands[i].size());
      EXPECT_LE((w.end - w.begin) * 4, device.max_binding_bytes);
      bindings.emplace_back(operands[i].begin() + static_cast<int64_t>(w.begin),
                            operands[i].begin() + static_cast<int64_t>(w.end));
    }
    bindings.emplace_back();  // scratch
    auto got = testing::run_kernel(gpu, *d, bindings);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    if (!got.ok()) return {};
    std::copy(got->begin(), got->end(), out.begin() + static_cast<int64_t>(piece.windows[3].begin));
  }
  return out;
}

void expect_near(const std::vector<float>& got, const HostTensor& want, size_t offset = 0) {
  ASSERT_GE(got.size(), offset + want.shape().numel());
  for (int64_t i = 0; i < want.shape().numel(); ++i) {
    ASSERT_NEAR(got[offset + i], want.data<float>()[i], 1e-4 + 1e-4 * std::abs(want.data<float>()[i])) << i;
  }
}

DeviceTraits limited(uint64_t bytes) {
  DeviceTraits t;
  t.max_binding_bytes = bytes;
  t.binding_alignment = 16;
  return t;
}

TEST(SplitGemm, LinearSplitsAlongColumnsWithBiasAndResidual) {
  // out = relu(x @ W^T + bias + residual): W [300, 200] is 240000 bytes; 64 KiB bindings hold
  // 81 of its rows, so 4 pieces of 75 columns (64-rounding does not fit).
  const int64_t m = 3, k = 200, n = 300;
  const HostTensor x = random_tensor(DType::kFloat32, Shape{m, k}, 1);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{n, k}, 2);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{n}, 3);
  const HostTensor r = random_tensor(DType::kFloat32, Shape{m, n}, 4);
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a = {0, 0, k, 1};
  p.b = {0, 0, 1, k};
  p.bias = {0, 0, 0, 1};
  p.out = {5, 0, n, 1};  // a leading offset: windows count from the binding's start
  p.residual_offset = 0;
  p.epilogue = {true, true, Activation::kRelu};
  const DeviceTraits device = limited(64 << 10);
  auto pieces = split_problem(p, device);
  ASSERT_TRUE(pieces.ok()) << pieces.status().to_string();
  ASSERT_EQ(pieces->size(), 4u);
  EXPECT_EQ(std::get<GemmProblem>((*pieces)[0].problem).n, 75);
  EXPECT_EQ((*pieces)[1].windows[1], (ElementWindow{75 * k, 150 * k}));
  EXPECT_EQ((*pieces)[1].windows[3].begin, 5u + 75);

  auto values = [](const HostTensor& t) { return std::vector<float>(t.data<float>().begin(), t.data<float>().end()); };
  const std::vector<float> got =
      run_pieces(*pieces, {values(x), values(w), values(b), std::vector<float>(5 + m * n, -7.0f), values(r)}, device);
  auto lin = reference::run_op("linear", {}, std::vector<HostTensor>{x, w, b});
  ASSERT_TRUE(lin.ok());
  auto sum = reference::run_op("add", {}, std::vector<HostTensor>{(*lin)[0], r});
  ASSERT_TRUE(sum.ok());
  auto want = reference::run_op("relu", {}, std::vector<HostTensor>{(*sum)[0]});
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(got[0], -7.0f);
  expect_near(got, (*want)[0], 5);
}

TEST(SplitGemm, BatchedSplitsAlongBatchThenRows) {
  // A [4, 150, 40] is 24000 bytes per batch: 16 KiB bindings hold 102 of its rows, so one
  // batch in 2 pieces of 75 rows.
  const int64_t batch = 4, m = 150, k = 40, n = 20;
  const HostTensor a = random_tensor(DType::kFloat32, Shape{batch, m, k}, 5);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{batch, k, n}, 6);
  GemmProblem p;
  p.batch = batch, p.m = m, p.n = n, p.k = k;
  p.a = {0, m * k, k, 1};
  p.b = {0, k * n, n, 1};
  p.out = {0, m * n, n, 1};
  const DeviceTraits device = limited(16 << 10);
  auto pieces = split_problem(p, device);
  ASSERT_TRUE(pieces.ok()) << pieces.status().to_string();
  EXPECT_EQ(pieces->size(), 4u * 2u);
  auto values = [](const HostTensor& t) { return std::vector<float>(t.data<float>().begin(), t.data<float>().end()); };
  const std::vector<float> got =
      run_pieces(*pieces, {values(a), values(b), {0.0f}, std::vector<float>(batch * m * n, -7.0f), {0.0f}}, device);
  auto want = reference::run_op("matmul", {}, std::vector<HostTensor>{a, b});
  ASSERT_TRUE(want.ok());
  expect_near(got, (*want)[0]);
}

struct ConvSplitCase {
  int64_t n, c, hw, oc, groups;
  uint64_t limit;
  size_t pieces;
};

void expect_conv_split(const ConvSplitCase& c) {
  const int64_t icg = c.c / c.groups, k = 3;
  const HostTensor x = random_tensor(DType::kFloat32, Shape{c.n, c.c, c.hw, c.hw}, 7);
  const HostTensor w = random_tensor(DType::kFloat32, Shape{c.oc, icg, k, k}, 8);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{c.oc}, 9);
  Conv2dProblem p;
  p.batch = c.n, p.in_channels = c.c, p.in_h = p.in_w = c.hw;
  p.out_channels = c.oc, p.out_h = p.out_w = c.hw;
  p.kernel_h = p.kernel_w = k;
  p.pad_top = p.pad_left = 1;
  p.groups = c.groups;
  p.input = ActivationStrides::nchw({c.n, c.c, c.hw, c.hw});
  p.output = ActivationStrides::nchw({c.n, c.oc, c.hw, c.hw});
  p.weight = WeightStrides::oihw(icg, k, k);
  p.epilogue = {true, false, Activation::kClamp, 0.0f, 6.0f};
  const DeviceTraits device = limited(c.limit);
  auto pieces = split_problem(p, device);
  ASSERT_TRUE(pieces.ok()) << pieces.status().to_string();
  EXPECT_EQ(pieces->size(), c.pieces);
  auto values = [](const HostTensor& t) { return std::vector<float>(t.data<float>().begin(), t.data<float>().end()); };
  const std::vector<float> got = run_pieces(
      *pieces, {values(x), values(w), values(b), std::vector<float>(c.n * c.oc * c.hw * c.hw, -7.0f), {0.0f}}, device);
  auto conv = reference::run_op("conv2d", attrs({{"padding", int64_t{1}}, {"groups", c.groups}}),
                                std::vector<HostTensor>{x, w, b});
  ASSERT_TRUE(conv.ok());
  auto want = reference::run_op("clamp", attrs({{"min", 0.0}, {"max", 6.0}}), std::vector<HostTensor>{(*conv)[0]});
  ASSERT_TRUE(want.ok());
  expect_near(got, (*want)[0]);
}

TEST(SplitConv, SplitsAlongBatchThenOutputChannels) {
  // Output [3, 40, 10, 10] is 48000 bytes, one image 16000: 8 KiB bindings take one image and
  // 20 channels (8000 bytes) of it; the weight (40 x 8 x 9 floats) is 11520 bytes.
  expect_conv_split({3, 8, 10, 40, 1, 8 << 10, 3 * 2});
}

TEST(SplitConv, GroupedSplitsAlongWholeGroups) {
  // 4 groups of 4 -> 8 channels; the output [2, 32, 8, 8] is 16 KiB, one image 8 KiB: 6 KiB
  // bindings take 2 groups (4 KiB) of one image.
  expect_conv_split({2, 16, 8, 32, 4, 6 << 10, 2 * 2});
}

TEST(SplitErrors, NoSplitFits) {
  GemmProblem p;
  p.m = 2, p.n = 8, p.k = 4096;  // one row of A is 16 KiB
  p.a = {0, 0, 4096, 1};
  p.b = {0, 0, 8, 1};
  p.out = {0, 0, 8, 1};
  Status s = split_problem(p, limited(8 << 10)).status();
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("gemm A"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("binding limit of 8192"), std::string::npos) << s.to_string();

  // Fits, but in more pieces than the library allows.
  p.k = 1, p.m = 1 << 20, p.a.row = 1;
  p.b.row = 8;
  s = split_problem(p, limited(64)).status();
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("dispatches"), std::string::npos) << s.to_string();

  EXPECT_EQ(split_problem(Problem{}, DeviceTraits{}).status().code(), StatusCode::kInvalidArgument);
}

TEST(SplitPlanner, WholeProblemIsOnePieceWithItsSpans) {
  GemmProblem p;
  p.m = 4, p.n = 6, p.k = 5;
  p.a = {2, 0, 5, 1};
  p.b = {0, 0, 6, 1};
  p.out = {0, 0, 6, 1};
  auto pieces = split_problem(p, DeviceTraits{});
  ASSERT_TRUE(pieces.ok());
  ASSERT_EQ(pieces->size(), 1u);
  EXPECT_EQ((*pieces)[0].windows[0], (ElementWindow{2, 22}));
  EXPECT_EQ((*pieces)[0].windows[2], (ElementWindow{0, 1}));  // no bias: one element
  EXPECT_EQ(std::get<GemmProblem>((*pieces)[0].problem).a.offset, 0u);
}

}  // namespace
}  // namespace univk::kernels
