// univk_ops: the parsed attributes and derived geometry of the PyTorch-semantics operators, the
// one op table (every run_op op has a rule), and the limits every user of the rules enforces.
#include <gtest/gtest.h>

#include "univk/ops/torch_ops.h"
#include "univk/reference/kernels.h"
#include "univk/reference/shape_rules.h"
#include "univk_test.h"
#if UNIVK_TEST_VULKAN_LOWERING
#include "univk/backends/vulkan/compute_graph.h"
#endif

namespace univk::ops {
namespace {

using Ints = std::vector<int64_t>;

using ::univk::testing::attrs;

TEST(TorchOps, TheOpTableIsRunOpsTable) {
  EXPECT_EQ(known_ops(), reference::supported_ops());
  EXPECT_FALSE(is_known_op("no_such_op"));
  EXPECT_EQ(infer_shape("no_such_op", {}, {}).status().code(), StatusCode::kUnsupported);
}

TEST(TorchOps, PoolDefaultsFollowPyTorch) {
  const std::vector<Shape> in = {Shape{2, 3, 9, 8}};
  auto p = pool2d("avg_pool2d", attrs({{"kernel_size", int64_t{3}}, {"padding", Ints{1, 0}}}), in);
  UNIVK_ASSERT_OK(p);
  EXPECT_EQ(p->stride[0], 3);  // stride defaults to kernel_size
  EXPECT_EQ(p->stride[1], 3);
  EXPECT_TRUE(p->count_include_pad);
  EXPECT_EQ(p->in.count, 6);
  EXPECT_EQ(p->output, (Shape{2, 3, 3, 2}));
  auto empty_stride = pool2d("max_pool2d", attrs({{"kernel_size", Ints{2}}, {"stride", Ints{}}}), in);
  UNIVK_ASSERT_OK(empty_stride);
  EXPECT_EQ(empty_stride->stride[1], 2);
  auto dilated = pool2d("avg_pool2d", attrs({{"kernel_size", Ints{2}}, {"dilation", Ints{2}}}), in);
  EXPECT_EQ(dilated.status().code(), StatusCode::kInvalidArgument);
}

TEST(TorchOps, ConvSamePaddingPutsTheOddPadAfter) {
  auto c = conv2d(attrs({{"padding", std::string("same")}, {"dilation", Ints{1, 2}}}),
                  std::vector<Shape>{Shape{3, 7, 9}, Shape{4, 3, 2, 2}});
  UNIVK_ASSERT_OK(c);
  EXPECT_FALSE(c->batched);
  EXPECT_EQ(c->pad_top, 0);
  EXPECT_EQ(c->pad_bottom, 1);
  EXPECT_EQ(c->pad_left, 1);
  EXPECT_EQ(c->pad_right, 1);
  EXPECT_EQ(c->output, (Shape{4, 7, 9}));
}

TEST(TorchOps, ReduceKeepsTheAttributeOrder) {
  auto r = reduce(attrs({{"dim", Ints{-1, 1}}, {"keepdim", int64_t{1}}}), std::vector<Shape>{Shape{2, 3, 4}});
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(r->dims, (Ints{2, 1}));
  EXPECT_EQ(r->count, 12);
  EXPECT_EQ(r->output, (Shape{2, 1, 1}));
  auto all = reduce({}, std::vector<Shape>{Shape{2, 3}});
  UNIVK_ASSERT_OK(all);
  EXPECT_EQ(all->dims, (Ints{0, 1}));
  EXPECT_EQ(all->output, Shape{});
}

TEST(TorchOps, ErrorsNameTheOpAndTheAttribute) {
  struct Bad {
    std::string op;
    Attributes attrs;
    std::vector<Shape> inputs;
    std::string mentions;
  };
  const Shape img{1, 2, 8, 8};
  const std::vector<Bad> bad = {
      {"avg_pool2d", {}, {img}, "kernel_size"},
      {"max_pool2d", attrs({{"kernel_size", Ints{2}}, {"stride", Ints{0}}}), {img}, "stride"},
      {"conv2d", attrs({{"groups", int64_t{3}}}), {img, Shape{2, 2, 3, 3}}, "groups"},
      {"conv2d", attrs({{"padding", std::string("full")}}), {img, Shape{2, 2, 3, 3}}, "padding"},
      {"gelu", attrs({{"approximate", std::string("fast")}}), {img}, "approximate"},
      {"mul", attrs({{"alpha", 2.0}}), {img, img}, "alpha"},
      {"sum", attrs({{"dim", Ints{1, -3}}}), {img}, "dim"},
      {"slice", attrs({{"step", int64_t{-1}}}), {img}, "step"},
      {"flatten", attrs({{"start_dim", int64_t{3}}, {"end_dim", int64_t{1}}}), {img}, "start_dim"},
  };
  for (const Bad& b : bad) {
    auto r = infer_shape(b.op, b.attrs, b.inputs);
    ASSERT_FALSE(r.ok()) << b.op;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
    EXPECT_NE(r.status().message().find(b.op), std::string::npos) << r.status().to_string();
    EXPECT_NE(r.status().message().find(b.mentions), std::string::npos) << r.status().to_string();
  }
}

// Window attributes above 2^31 are refused by the rules, so by every user of them: the shape
// inference, the reference kernels and the VulkanBackend lowering (which did not check before).
TEST(TorchOps, WindowAttributesAboveTwoToThe31AreRefusedEverywhere) {
  const int64_t big = kMaxWindowAttr + 1;
  struct Case {
    std::string op;
    Attributes attrs;
    std::vector<Shape> inputs;
  };
  const std::vector<Case> cases = {
      {"max_pool2d", attrs({{"kernel_size", Ints{2}}, {"stride", Ints{big}}}), {Shape{1, 1, 4, 4}}},
      {"avg_pool2d", attrs({{"kernel_size", Ints{2}}, {"stride", Ints{1, big}}}), {Shape{1, 1, 4, 4}}},
      {"max_pool2d", attrs({{"kernel_size", Ints{2}}, {"dilation", Ints{big}}}), {Shape{1, 1, 4, 4}}},
      {"conv2d", attrs({{"stride", Ints{big}}}), {Shape{1, 1, 4, 4}, Shape{1, 1, 2, 2}}},
      {"conv2d", attrs({{"padding", Ints{big, 0}}}), {Shape{1, 1, 4, 4}, Shape{1, 1, 2, 2}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + c.attrs.to_string());
    auto shape = reference::infer_op_shape(c.op, c.attrs, c.inputs);
    ASSERT_FALSE(shape.ok());
    EXPECT_EQ(shape.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(shape.status().message().find("2^31"), std::string::npos) << shape.status().to_string();
    std::vector<HostTensor> tensors;
    for (const Shape& s : c.inputs) tensors.emplace_back(DType::kFloat32, s);
    auto ran = reference::run_op(c.op, c.attrs, tensors);
    ASSERT_FALSE(ran.ok());
    EXPECT_NE(ran.status().message().find("2^31"), std::string::npos) << ran.status().to_string();
#if UNIVK_TEST_VULKAN_LOWERING
    std::vector<backends::ComputeTensorType> types;
    for (const Shape& s : c.inputs) types.push_back({DType::kFloat32, s});
    Status lowered = backends::vulkan_backend_check(c.op, c.attrs, types);
    EXPECT_EQ(lowered.code(), StatusCode::kInvalidArgument) << lowered.to_string();
    EXPECT_NE(lowered.message().find("2^31"), std::string::npos) << lowered.to_string();
#endif
  }
}

}  // namespace
}  // namespace univk::ops
