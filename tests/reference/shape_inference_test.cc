// reference::infer_op_shape computes, without running the op, the shape run_op's result has:
// checked on a table of every PyTorch-semantics op (broadcasting, padding, ceil_mode, negative
// dims, 1-d matmul operands); and an op whose run_op fails for shape reasons fails here too.
#include <gtest/gtest.h>

#include "univk/reference/kernels.h"
#include "univk/reference/shape_rules.h"
#include "univk_test.h"

namespace univk::reference {
namespace {

struct Case {
  std::string op;
  Attributes attrs;
  std::vector<Shape> inputs;
};

using ::univk::testing::attrs;

using Ints = std::vector<int64_t>;

std::vector<Case> cases() {
  const Shape img{2, 3, 7, 9};
  std::vector<Case> c;
  for (const char* op : {"sigmoid", "relu", "gelu", "exp", "neg", "contiguous"}) c.push_back({op, {}, {img}});
  c.push_back({"clamp", attrs({{"min", 0.0}}), {img}});
  c.push_back({"add", {}, {img, Shape{3, 1, 9}}});
  c.push_back({"mul", attrs({{"other", 2.0}}), {Shape{5}}});
  c.push_back({"pow", {}, {Shape{4, 1}, Shape{3}}});
  c.push_back({"avg_pool2d", attrs({{"kernel_size", Ints{3, 2}}, {"stride", Ints{2}}, {"padding", Ints{1}}}), {img}});
  c.push_back({"avg_pool2d", attrs({{"kernel_size", Ints{2}}, {"ceil_mode", int64_t{1}}}), {Shape{3, 7, 9}}});
  c.push_back({"max_pool2d",
               attrs({{"kernel_size", Ints{3}}, {"stride", Ints{2}}, {"dilation", Ints{2}}, {"ceil_mode", int64_t{1}}}),
               {img}});
  c.push_back({"adaptive_avg_pool2d", attrs({{"output_size", Ints{1, 3}}}), {img}});
  c.push_back({"adaptive_max_pool2d", attrs({{"output_size", Ints{4, 5}}}), {img}});
  c.push_back({"upsample_nearest2d", attrs({{"output_size", Ints{14, 5}}}), {img}});
  c.push_back(
      {"upsample_bilinear2d", attrs({{"output_size", Ints{3, 18}}, {"align_corners", int64_t{1}}}), {Shape{3, 7, 9}}});
  c.push_back({"conv2d", attrs({{"stride", Ints{2}}, {"padding", Ints{1, 0}}}), {img, Shape{4, 3, 3, 3}, Shape{4}}});
  c.push_back({"conv2d",
               attrs({{"padding", std::string("same")}, {"dilation", Ints{2}}, {"groups", int64_t{3}}}),
               {img, Shape{6, 1, 3, 2}}});
  c.push_back({"conv2d", attrs({{"padding", std::string("valid")}}), {Shape{3, 7, 9}, Shape{2, 3, 2, 2}}});
  c.push_back({"conv_transpose2d",
               attrs({{"stride", Ints{2}}, {"padding", Ints{1}}, {"output_padding", Ints{1}}, {"groups", int64_t{3}}}),
               {img, Shape{3, 2, 3, 3}, Shape{6}}});
  c.push_back({"conv_transpose2d", attrs({{"dilation", Ints{2, 1}}}), {Shape{3, 7, 9}, Shape{3, 4, 2, 2}}});
  c.push_back({"linear", {}, {Shape{2, 5, 4}, Shape{6, 4}, Shape{6}}});
  c.push_back({"matmul", {}, {Shape{4}, Shape{4}}});
  c.push_back({"matmul", {}, {Shape{4}, Shape{2, 4, 3}}});
  c.push_back({"matmul", {}, {Shape{2, 1, 3, 4}, Shape{5, 4, 2}}});
  c.push_back({"matmul", {}, {Shape{3, 4}, Shape{4}}});
  c.push_back({"bmm", {}, {Shape{2, 3, 4}, Shape{2, 4, 5}}});
  c.push_back({"addmm", {}, {Shape{5}, Shape{3, 4}, Shape{4, 5}}});
  c.push_back({"softmax", attrs({{"dim", int64_t{-1}}}), {img}});
  c.push_back({"log_softmax", attrs({{"dim", int64_t{1}}}), {img}});
  c.push_back({"sum", attrs({{"dim", Ints{1, -1}}}), {img}});
  c.push_back({"mean", attrs({{"dim", Ints{2, 3}}, {"keepdim", int64_t{1}}}), {img}});
  c.push_back({"mean", {}, {img}});
  c.push_back({"layer_norm", attrs({{"normalized_shape", Ints{7, 9}}}), {img, Shape{7, 9}, Shape{7, 9}}});
  c.push_back({"batch_norm", {}, {img, Shape{3}, Shape{3}, Shape{3}, Shape{3}}});
  c.push_back({"view", attrs({{"shape", Ints{6, -1}}}), {img}});
  c.push_back({"reshape", attrs({{"shape", Ints{-1}}}), {img}});
  c.push_back({"flatten", attrs({{"start_dim", int64_t{1}}, {"end_dim", int64_t{2}}}), {img}});
  c.push_back({"flatten", {}, {Shape{}}});
  c.push_back({"permute", attrs({{"dims", Ints{0, 3, -3, 2}}}), {img}});
  c.push_back({"transpose", attrs({{"dim0", int64_t{1}}, {"dim1", int64_t{-1}}}), {img}});
  c.push_back({"cat", attrs({{"dim", int64_t{-1}}}), {Shape{2, 3}, Shape{2, 5}, Shape{2, 1}}});
  c.push_back({"slice",
               attrs({{"dim", int64_t{2}}, {"start", int64_t{-5}}, {"end", int64_t{100}}, {"step", int64_t{2}}}),
               {img}});
  c.push_back({"slice", attrs({{"dim", int64_t{3}}, {"start", int64_t{1}}, {"end", int64_t{-1}}}), {img}});
  c.push_back({"pad", attrs({{"pad", Ints{1, 2, 0, 3}}, {"mode", std::string("replicate")}}), {img}});
  c.push_back({"squeeze", {}, {Shape{1, 3, 1, 2}}});
  c.push_back({"squeeze", attrs({{"dim", int64_t{2}}}), {Shape{1, 3, 1, 2}}});
  c.push_back({"unsqueeze", attrs({{"dim", int64_t{-1}}}), {Shape{3, 2}}});
  return c;
}

std::vector<HostTensor> zeros(const std::vector<Shape>& shapes) {
  std::vector<HostTensor> out;
  for (const Shape& s : shapes) out.emplace_back(DType::kFloat32, s);
  return out;
}

TEST(ShapeInference, MatchesTheShapeRunOpComputes) {
  for (const Case& c : cases()) {
    auto ran = run_op(c.op, c.attrs, zeros(c.inputs));
    UNIVK_ASSERT_OK(ran) << c.op;
    auto inferred = infer_op_shape(c.op, c.attrs, c.inputs);
    UNIVK_ASSERT_OK(inferred) << c.op;
    EXPECT_EQ(*inferred, (*ran)[0].shape()) << c.op << " " << c.attrs.to_string();
  }
}

TEST(ShapeInference, EveryRunOpOpHasARule) {
  for (const std::string& op : supported_ops()) {
    auto r = infer_op_shape(op, {}, {});
    EXPECT_NE(r.status().code(), StatusCode::kUnsupported) << op << ": " << r.status().to_string();
  }
  EXPECT_EQ(infer_op_shape("no_such_op", {}, {}).status().code(), StatusCode::kUnsupported);
}

TEST(ShapeInference, ShapesTheOpRefusesAreRefusedToo) {
  const std::vector<Case> bad = {
      {"add", {}, {Shape{2, 3}, Shape{4}}},
      {"mul", {}, {Shape{2, 3}}},
      {"sub", attrs({{"other", 1.0}}), {Shape{2, 3}, Shape{2, 3}}},
      {"linear", {}, {Shape{2, 5}, Shape{4, 6}}},
      {"conv2d", {}, {Shape{1, 3, 4, 4}, Shape{2, 4, 3, 3}}},
      {"conv2d", {}, {Shape{1, 3, 2, 2}, Shape{2, 3, 3, 3}}},
      {"conv_transpose2d", {}, {Shape{1, 3, 4, 4}, Shape{4, 2, 3, 3}}},
      {"conv_transpose2d",
       attrs({{"stride", Ints{2}}, {"output_padding", Ints{2}}}),
       {Shape{1, 2, 3, 3}, Shape{2, 2, 3, 3}}},
      {"conv_transpose2d", attrs({{"padding", Ints{3}}}), {Shape{1, 2, 1, 1}, Shape{2, 2, 3, 3}}},
      {"avg_pool2d", attrs({{"kernel_size", Ints{5}}}), {Shape{1, 1, 3, 3}}},
      {"avg_pool2d", attrs({{"kernel_size", Ints{2}}, {"padding", Ints{2}}}), {Shape{1, 1, 8, 8}}},
      {"matmul", {}, {Shape{2, 3}, Shape{4, 2}}},
      {"view", attrs({{"shape", Ints{5, -1}}}), {Shape{2, 3}}},
      {"permute", attrs({{"dims", Ints{0, 0}}}), {Shape{2, 3}}},
      {"cat", attrs({{"dim", int64_t{0}}}), {Shape{2, 3}, Shape{2, 4}}},
      {"upsample_nearest2d", attrs({{"output_size", Ints{0, 4}}}), {Shape{1, 1, 3, 3}}},
      {"upsample_nearest2d", attrs({{"output_size", Ints{2, 4}}, {"align_corners", int64_t{1}}}), {Shape{1, 3, 3}}},
      {"pad", attrs({{"pad", Ints{3, 0}}, {"mode", std::string("reflect")}}), {Shape{2, 3}}},
      {"softmax", attrs({{"dim", int64_t{2}}}), {Shape{2, 3}}},
      {"layer_norm", attrs({{"normalized_shape", Ints{4}}}), {Shape{2, 3}}},
      {"batch_norm", {}, {Shape{2, 3}, Shape{2}, Shape{3}, Shape{3}, Shape{3}}},
  };
  for (const Case& c : bad) {
    EXPECT_FALSE(run_op(c.op, c.attrs, zeros(c.inputs)).ok()) << c.op << " (the case must be invalid)";
    auto r = infer_op_shape(c.op, c.attrs, c.inputs);
    ASSERT_FALSE(r.ok()) << c.op << " gave " << r->to_string();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
    EXPECT_NE(r.status().message().find(c.op), std::string::npos) << r.status().to_string();
  }
}

}  // namespace
}  // namespace univk::reference
