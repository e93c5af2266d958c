// Every VulkanBackend operator against univk::reference::run_op on random inputs, several
// shapes each (odd sizes, broadcasting, padding and ceil_mode cases), in the style of ggml's
// test-backend-ops: one table of cases, tolerances stated per operator family below.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "backend_test_util.h"
#include "univk/reference/kernels.h"

namespace univk::backends::testing {
namespace {

// Tolerances: |got - want| <= atol + rtol * |want|.
//  - exact arithmetic (shape ops, neg/abs/relu/clamp/max/min, pooling max): 0
//  - one rounding step (add/sub/mul/div, scalar forms, avg pools, batch_norm): 1e-6 / 1e-6
//  - transcendental functions (exp, log, tanh, sigmoid, gelu, silu, pow, sqrt, rsqrt): 1e-5 / 1e-5
//    (GPU exp/log are correct to a few ulp; gelu's erf approximation is within 1.5e-7)
//  - dot products (conv2d, linear, matmul, bmm, addmm): 1e-5 / 1e-4 (different summation order)
//  - reductions (sum, mean, softmax, log_softmax, layer_norm): 1e-5 / 1e-4
struct Tolerance {
  double atol, rtol;
};
Tolerance tolerance_of(const std::string& op) {
  static const std::map<std::string, Tolerance> kTable = {
      {"neg", {0, 0}}, {"abs", {0, 0}}, {"relu", {0, 0}}, {"relu6", {0, 0}}, {"hardtanh", {0, 0}},
      {"clamp", {0, 0}}, {"maximum", {0, 0}}, {"minimum", {0, 0}}, {"max_pool2d", {0, 0}},
      {"view", {0, 0}}, {"reshape", {0, 0}}, {"flatten", {0, 0}}, {"permute", {0, 0}}, {"transpose", {0, 0}},
      {"cat", {0, 0}}, {"slice", {0, 0}}, {"squeeze", {0, 0}}, {"unsqueeze", {0, 0}}, {"contiguous", {0, 0}},
      {"add", {1e-6, 1e-6}}, {"sub", {1e-6, 1e-6}}, {"mul", {1e-6, 1e-6}}, {"div", {1e-6, 1e-6}},
      {"reciprocal", {1e-6, 1e-6}}, {"hardswish", {1e-6, 1e-6}}, {"hardsigmoid", {1e-6, 1e-6}},
      {"avg_pool2d", {1e-6, 1e-6}}, {"adaptive_avg_pool2d", {1e-6, 1e-6}}, {"batch_norm", {1e-6, 1e-5}},
      {"conv2d", {1e-5, 1e-4}}, {"linear", {1e-5, 1e-4}}, {"matmul", {1e-5, 1e-4}}, {"bmm", {1e-5, 1e-4}},
      {"addmm", {1e-5, 1e-4}}, {"sum", {1e-5, 1e-4}}, {"mean", {1e-5, 1e-4}}, {"softmax", {1e-5, 1e-4}},
      {"log_softmax", {1e-5, 1e-4}}, {"layer_norm", {1e-5, 1e-4}}};
  auto it = kTable.find(op);
  return it != kTable.end() ? it->second : Tolerance{1e-5, 1e-5};
}

struct OpCase {
  std::string label;
  std::string op;
  Attributes attrs;
  std::vector<Shape> shapes;
  float lo = -2.0f, hi = 2.0f;  // input value range
  uint32_t constant_mask = 0;   // bit i: input i is a graph constant instead of a graph input
};

Attributes attrs(std::initializer_list<std::pair<const char*, AttrValue>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}
using I = std::vector<int64_t>;
AttrValue i64(int64_t v) { return AttrValue(v); }
AttrValue f64(double v) { return AttrValue(v); }

std::vector<OpCase> unary_cases() {
  std::vector<OpCase> cases;
  for (const char* op : {"sigmoid", "tanh", "relu", "relu6", "gelu", "silu", "hardswish", "hardsigmoid", "exp", "neg",
                         "abs", "reciprocal"}) {
    cases.push_back({std::string(op) + "_1d", op, {}, {Shape{7}}, -8.0f, 8.0f});
    cases.push_back({std::string(op) + "_4d", op, {}, {Shape{2, 3, 5, 17}}, -8.0f, 8.0f});
    // 4 elements per invocation (element count a multiple of 4).
    cases.push_back({std::string(op) + "_vec4", op, {}, {Shape{2, 3, 4, 17}}, -8.0f, 8.0f});
  }
  for (const char* op : {"log", "sqrt", "rsqrt"}) {
    cases.push_back({std::string(op) + "_3d", op, {}, {Shape{3, 5, 17}}, 0.05f, 5.0f});
    cases.push_back({std::string(op) + "_vec4", op, {}, {Shape{3, 4, 17}}, 0.05f, 5.0f});
  }
  cases.push_back({"gelu_tanh", "gelu", attrs({{"approximate", AttrValue(std::string("tanh"))}}), {Shape{3, 67}}, -6, 6});
  cases.push_back({"hardtanh_custom", "hardtanh", attrs({{"min_val", f64(-0.5)}, {"max_val", f64(1.5)}}), {Shape{41}}});
  cases.push_back({"clamp_both", "clamp", attrs({{"min", f64(-0.25)}, {"max", f64(0.75)}}), {Shape{5, 9}}});
  cases.push_back({"clamp_min", "clamp", attrs({{"min", f64(0.1)}}), {Shape{5, 9}}});
  cases.push_back({"clamp_max", "clamp", attrs({{"max", i64(1)}}), {Shape{5, 9}}});
  return cases;
}

std::vector<OpCase> binary_cases() {
  std::vector<OpCase> cases;
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    const std::string s(op);
    cases.push_back({s + "_same", op, {}, {Shape{3, 17}, Shape{3, 17}}});
    cases.push_back({s + "_bcast", op, {}, {Shape{2, 1, 5}, Shape{3, 1}}});
    cases.push_back({s + "_row", op, {}, {Shape{4, 6, 5}, Shape{5}}});
    cases.push_back({s + "_scalar_tensor", op, {}, {Shape{}, Shape{3, 2}}});
    cases.push_back({s + "_other", op, attrs({{"other", f64(0.75)}}), {Shape{4, 7}}});
    cases.push_back({s + "_other_first", op, attrs({{"other", f64(-1.5)}, {"scalar_first", i64(1)}}), {Shape{4, 7}}});
  }
  // Keep divisors away from zero: re-range the div cases.
  for (OpCase& c : cases) {
    if (c.op == "div") c.lo = 0.5f, c.hi = 2.0f;
  }
  cases.push_back({"add_alpha", "add", attrs({{"alpha", f64(-2.5)}}), {Shape{2, 3, 4}, Shape{3, 1}}});
  cases.push_back({"sub_alpha", "sub", attrs({{"alpha", f64(0.5)}}), {Shape{5, 1, 3}, Shape{1, 4, 3}}});
  cases.push_back({"add_alpha_other", "add", attrs({{"alpha", f64(3)}, {"other", f64(0.5)}}), {Shape{9}}});
  cases.push_back({"sub_alpha_other_first", "sub",
                   attrs({{"alpha", f64(2)}, {"other", f64(0.5)}, {"scalar_first", i64(1)}}), {Shape{9}}});
  cases.push_back({"pow_tensors", "pow", {}, {Shape{3, 8}, Shape{8}}, 0.1f, 3.0f});
  cases.push_back({"pow_square", "pow", attrs({{"other", f64(2)}}), {Shape{3, 8}}, -3.0f, 3.0f});
  cases.push_back({"pow_cube", "pow", attrs({{"other", f64(3)}}), {Shape{3, 8}}, -3.0f, 3.0f});
  cases.push_back({"pow_half", "pow", attrs({{"other", f64(0.5)}}), {Shape{3, 8}}, 0.0f, 3.0f});
  cases.push_back({"pow_other_first", "pow", attrs({{"other", f64(2.0)}, {"scalar_first", i64(1)}}), {Shape{11}}});
  cases.push_back({"div_other3_first", "div", attrs({{"other", f64(3.0)}, {"scalar_first", i64(1)}}), {Shape{11}}, 0.5f,
                   2.0f});
  cases.push_back({"add_6d_bcast", "add", {}, {Shape{2, 1, 3, 1, 2, 1}, Shape{1, 4, 1, 5, 1, 3}}});
  return cases;
}

std::vector<OpCase> pool_cases() {
  std::vector<OpCase> c;
  c.push_back({"avg_k2", "avg_pool2d", attrs({{"kernel_size", AttrValue(I{2, 2})}}), {Shape{1, 3, 8, 8}}});
  c.push_back({"avg_k3_s2_p1", "avg_pool2d",
               attrs({{"kernel_size", i64(3)}, {"stride", i64(2)}, {"padding", i64(1)}}), {Shape{2, 3, 7, 9}}});
  c.push_back({"avg_exclude_pad_ceil", "avg_pool2d",
               attrs({{"kernel_size", i64(3)}, {"stride", i64(2)}, {"padding", i64(1)}, {"ceil_mode", i64(1)},
                      {"count_include_pad", i64(0)}}),
               {Shape{1, 2, 8, 11}}});
  c.push_back({"avg_ceil_include_pad", "avg_pool2d",
               attrs({{"kernel_size", AttrValue(I{3, 2})}, {"stride", AttrValue(I{2, 3})}, {"padding", AttrValue(I{1, 1})},
                      {"ceil_mode", i64(1)}}),
               {Shape{1, 2, 10, 9}}});
  c.push_back({"avg_divisor_override", "avg_pool2d",
               attrs({{"kernel_size", i64(2)}, {"padding", i64(1)}, {"divisor_override", i64(3)}}), {Shape{3, 5, 5}}});
  c.push_back({"max_k2", "max_pool2d", attrs({{"kernel_size", i64(2)}}), {Shape{1, 3, 8, 8}}});
  c.push_back({"max_k3_s2_p1_ceil", "max_pool2d",
               attrs({{"kernel_size", i64(3)}, {"stride", i64(2)}, {"padding", i64(1)}, {"ceil_mode", i64(1)}}),
               {Shape{2, 3, 10, 7}}});
  c.push_back({"max_dilation", "max_pool2d",
               attrs({{"kernel_size", i64(3)}, {"stride", i64(1)}, {"padding", i64(2)}, {"dilation", i64(2)}}),
               {Shape{1, 2, 9, 8}}});
  c.push_back({"max_unbatched", "max_pool2d", attrs({{"kernel_size", AttrValue(I{2, 3})}}), {Shape{3, 7, 7}}});
  c.push_back({"adaptive_3x2", "adaptive_avg_pool2d", attrs({{"output_size", AttrValue(I{3, 2})}}), {Shape{1, 3, 7, 5}}});
  c.push_back({"adaptive_1", "adaptive_avg_pool2d", attrs({{"output_size", i64(1)}}), {Shape{2, 4, 8, 8}}});
  c.push_back({"adaptive_up", "adaptive_avg_pool2d", attrs({{"output_size", AttrValue(I{5, 6})}}), {Shape{2, 3, 4}}});
  return c;
}

std::vector<OpCase> conv_cases() {
  std::vector<OpCase> c;
  c.push_back({"conv_basic_bias", "conv2d", attrs({{"stride", i64(2)}, {"padding", i64(1)}}),
               {Shape{1, 3, 9, 7}, Shape{4, 3, 3, 3}, Shape{4}}, -1, 1, 0b110});
  c.push_back({"conv_nobias_dilation", "conv2d", attrs({{"dilation", i64(2)}, {"padding", AttrValue(I{2, 1})}}),
               {Shape{2, 2, 8, 9}, Shape{3, 2, 3, 2}}, -1, 1, 0b10});
  c.push_back({"conv_groups", "conv2d", attrs({{"groups", i64(2)}, {"padding", i64(1)}}),
               {Shape{1, 4, 6, 6}, Shape{6, 2, 3, 3}, Shape{6}}});
  c.push_back({"conv_depthwise", "conv2d", attrs({{"groups", i64(4)}, {"stride", i64(2)}, {"padding", i64(1)}}),
               {Shape{2, 4, 8, 8}, Shape{4, 1, 3, 3}, Shape{4}}, -1, 1, 0b110});
  c.push_back({"conv_same", "conv2d", attrs({{"padding", AttrValue(std::string("same"))}}),
               {Shape{1, 3, 7, 6}, Shape{2, 3, 4, 3}}});
  c.push_back({"conv_groups_channel_blocks", "conv2d", attrs({{"groups", i64(2)}, {"stride", i64(2)}}),
               {Shape{2, 6, 9, 8}, Shape{10, 3, 2, 3}, Shape{10}}});
  c.push_back({"conv_unbatched", "conv2d", attrs({{"stride", AttrValue(I{1, 2})}}),
               {Shape{3, 6, 7}, Shape{5, 3, 1, 3}, Shape{5}}});
  return c;
}

std::vector<OpCase> matmul_cases() {
  std::vector<OpCase> c;
  c.push_back({"linear_bias", "linear", {}, {Shape{3, 5}, Shape{7, 5}, Shape{7}}, -1, 1, 0b110});
  c.push_back({"linear_3d_nobias", "linear", {}, {Shape{2, 3, 37}, Shape{33, 37}}});
  c.push_back({"matmul_2d", "matmul", {}, {Shape{4, 5}, Shape{5, 3}}});
  c.push_back({"matmul_large_tiles", "matmul", {}, {Shape{67, 45}, Shape{45, 35}}});
  c.push_back({"matmul_batched_shared_rhs", "matmul", {}, {Shape{2, 3, 4, 5}, Shape{5, 6}}});
  c.push_back({"matmul_batched", "matmul", {}, {Shape{2, 4, 5}, Shape{2, 5, 3}}});
  c.push_back({"matmul_bcast_lhs", "matmul", {}, {Shape{4, 5}, Shape{3, 5, 2}}});
  c.push_back({"matmul_vec_mat", "matmul", {}, {Shape{5}, Shape{5, 3}}});
  c.push_back({"matmul_mat_vec", "matmul", {}, {Shape{3, 5}, Shape{5}}});
  c.push_back({"matmul_dot", "matmul", {}, {Shape{6}, Shape{6}}});
  c.push_back({"bmm", "bmm", {}, {Shape{3, 4, 19}, Shape{3, 19, 33}}});
  c.push_back({"addmm_row_bias", "addmm", {}, {Shape{3}, Shape{4, 5}, Shape{5, 3}}});
  c.push_back({"addmm_alpha_beta", "addmm", attrs({{"alpha", f64(0.5)}, {"beta", f64(2)}}),
               {Shape{4, 1}, Shape{4, 5}, Shape{5, 3}}});
  c.push_back({"addmm_beta0", "addmm", attrs({{"beta", f64(0)}}), {Shape{4, 3}, Shape{4, 5}, Shape{5, 3}}});
  return c;
}

std::vector<OpCase> norm_cases() {
  std::vector<OpCase> c;
  for (const char* op : {"softmax", "log_softmax"}) {
    const std::string s(op);
    c.push_back({s + "_last", op, attrs({{"dim", i64(-1)}}), {Shape{3, 4, 5}}, -5, 5});
    c.push_back({s + "_mid", op, attrs({{"dim", i64(1)}}), {Shape{3, 4, 5}}, -5, 5});
    c.push_back({s + "_first", op, attrs({{"dim", i64(0)}}), {Shape{3, 4, 5}}, -5, 5});
    c.push_back({s + "_long", op, attrs({{"dim", i64(1)}}), {Shape{2, 300}}, -5, 5});
  }
  for (const char* op : {"sum", "mean"}) {
    const std::string s(op);
    c.push_back({s + "_dim1", op, attrs({{"dim", AttrValue(I{1})}}), {Shape{3, 4, 5}}});
    c.push_back({s + "_dims02_keep", op, attrs({{"dim", AttrValue(I{0, 2})}, {"keepdim", i64(1)}}), {Shape{3, 4, 5}}});
    c.push_back({s + "_all", op, {}, {Shape{3, 4, 5}}});
    c.push_back({s + "_neg_long", op, attrs({{"dim", i64(-1)}}), {Shape{3, 500}}});
    c.push_back({s + "_hw", op, attrs({{"dim", AttrValue(I{-2, -1})}, {"keepdim", i64(1)}}), {Shape{2, 3, 9, 11}}});
  }
  c.push_back({"layer_norm_affine", "layer_norm", attrs({{"normalized_shape", AttrValue(I{8})}}),
               {Shape{2, 3, 8}, Shape{8}, Shape{8}}, -2, 2, 0b110});
  c.push_back({"layer_norm_2d_plain", "layer_norm", attrs({{"normalized_shape", AttrValue(I{6, 50})}, {"eps", f64(1e-3)}}),
               {Shape{4, 6, 50}}});
  c.push_back({"layer_norm_weight_only", "layer_norm", attrs({{"normalized_shape", AttrValue(I{5})}}),
               {Shape{7, 5}, Shape{5}}});
  c.push_back({"batch_norm_4d", "batch_norm", attrs({{"eps", f64(1e-3)}}),
               {Shape{2, 3, 4, 5}, Shape{3}, Shape{3}, Shape{3}, Shape{3}}, 0.1f, 2.0f, 0b11110});
  c.push_back({"batch_norm_2d", "batch_norm", {}, {Shape{4, 3}, Shape{3}, Shape{3}, Shape{3}, Shape{3}}, 0.1f, 2.0f});
  return c;
}

std::vector<OpCase> shape_cases() {
  std::vector<OpCase> c;
  c.push_back({"view", "view", attrs({{"shape", AttrValue(I{6, -1})}}), {Shape{2, 3, 4}}});
  c.push_back({"reshape", "reshape", attrs({{"shape", AttrValue(I{4, 1, 6})}}), {Shape{2, 3, 4}}});
  c.push_back({"flatten", "flatten", attrs({{"start_dim", i64(1)}}), {Shape{2, 3, 4, 5}}});
  c.push_back({"squeeze_all", "squeeze", {}, {Shape{1, 3, 1, 4}}});
  c.push_back({"squeeze_dim", "squeeze", attrs({{"dim", i64(2)}}), {Shape{1, 3, 1, 4}}});
  c.push_back({"unsqueeze", "unsqueeze", attrs({{"dim", i64(-1)}}), {Shape{3, 4}}});
  c.push_back({"contiguous", "contiguous", {}, {Shape{3, 5}}});
  c.push_back({"permute_nhwc", "permute", attrs({{"dims", AttrValue(I{0, 2, 3, 1})}}), {Shape{2, 3, 4, 5}}});
  c.push_back({"permute_neg", "permute", attrs({{"dims", AttrValue(I{-1, 0, 1})}}), {Shape{3, 5, 7}}});
  c.push_back({"transpose", "transpose", attrs({{"dim0", i64(0)}, {"dim1", i64(-1)}}), {Shape{3, 4, 5}}});
  c.push_back({"cat_dim1", "cat", attrs({{"dim", i64(1)}}), {Shape{2, 3, 4}, Shape{2, 1, 4}, Shape{2, 5, 4}}});
  c.push_back({"cat_dim0_const", "cat", {}, {Shape{2, 3}, Shape{4, 3}}, -2, 2, 0b10});
  c.push_back({"cat_last", "cat", attrs({{"dim", i64(-1)}}), {Shape{3, 2}, Shape{3, 7}}});
  c.push_back({"slice_step", "slice", attrs({{"dim", i64(1)}, {"start", i64(1)}, {"end", i64(8)}, {"step", i64(3)}}),
               {Shape{2, 9, 3}}});
  c.push_back({"slice_negative", "slice", attrs({{"dim", i64(-1)}, {"start", i64(-4)}, {"end", i64(-1)}}),
               {Shape{3, 6}}});
  c.push_back({"slice_clamped", "slice", attrs({{"start", i64(1)}, {"end", i64(100)}}), {Shape{4, 2}}});
  return c;
}

std::vector<OpCase> all_cases() {
  std::vector<OpCase> all;
  for (auto family : {unary_cases, binary_cases, pool_cases, conv_cases, matmul_cases, norm_cases, shape_cases}) {
    for (OpCase& c : family()) all.push_back(std::move(c));
  }
  return all;
}

class VulkanOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(VulkanOpTest, MatchesReference) {
  const OpCase& c = GetParam();
  std::mt19937 rng(1234);
  std::vector<HostTensor> inputs;
  for (const Shape& s : c.shapes) inputs.push_back(random_tensor(rng, s, c.lo, c.hi));
  auto expected = reference::run_op(c.op, c.attrs, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();

  ComputeGraph graph;
  std::vector<HostTensor> graph_inputs;
  ComputeOp op{c.op, c.attrs, {}, {}};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool constant = (c.constant_mask >> i) & 1u;
    op.inputs.push_back(static_cast<uint32_t>(graph.values.size()));
    if (!constant) {
      graph.inputs.push_back(static_cast<uint32_t>(graph.values.size()));
      graph_inputs.push_back(inputs[i]);
    }
    graph.values.push_back(value_of(inputs[i], constant));
  }
  op.outputs.push_back(static_cast<uint32_t>(graph.values.size()));
  graph.outputs.push_back(op.outputs[0]);
  graph.values.push_back(value_of((*expected)[0], false));
  graph.ops.push_back(op);

  std::vector<ComputeTensorType> types;
  for (const HostTensor& t : inputs) types.push_back({t.dtype(), t.shape()});
  ComputeTensorType inferred;
  ASSERT_TRUE(vulkan_backend_check(c.op, c.attrs, types, &inferred).ok());
  EXPECT_EQ(inferred.shape, (*expected)[0].shape());

  auto result = run_graph(graph, graph_inputs);
  ASSERT_TRUE(result.ok()) << result.status().to_string();
  ASSERT_EQ(result->outputs.size(), 1u);
  const Tolerance tol = tolerance_of(c.op);
  EXPECT_TRUE(close(result->outputs[0], (*expected)[0], tol.atol, tol.rtol));
}

INSTANTIATE_TEST_SUITE_P(AllOps, VulkanOpTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.label; });

// Every operator the backend advertises has at least one case above.
TEST(VulkanOpCoverage, EveryOperatorIsTested) {
  std::set<std::string> tested;
  for (const OpCase& c : all_cases()) tested.insert(c.op);
  for (const std::string& op : vulkan_backend_ops()) EXPECT_TRUE(tested.count(op)) << op << " has no test case";
}

}  // namespace
}  // namespace univk::backends::testing
