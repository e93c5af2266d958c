// The VulkanBackend payload: round trip, structural validation, hostile bytes, the
// partitioner's support query and the memory planner. No device needed.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "backends/vulkan/graph_plan.h"
#include "backends/vulkan/op_lowering.h"
#include "univk/backends/vulkan/compute_graph.h"
#include "univk_test.h"

namespace univk::backends {
namespace {

ComputeValue value(Shape shape, std::vector<float> constant = {}) {
  ComputeValue v;
  v.shape = std::move(shape);
  if (!constant.empty()) {
    v.constant.resize(constant.size() * 4);
    std::memcpy(v.constant.data(), constant.data(), v.constant.size());
  }
  return v;
}

// x[2,3] -> add(x, c) -> relu -> reshape [6] ; outputs: the reshape and the relu.
ComputeGraph sample_graph() {
  ComputeGraph g;
  g.values = {value({2, 3}), value({3}, {1, 2, 3}), value({2, 3}), value({2, 3}), value({6})};
  Attributes add_attrs;
  add_attrs.set("alpha", 0.5);
  add_attrs.set("note", std::string("text"));
  add_attrs.set("list", std::vector<int64_t>{1, -2});
  add_attrs.set("floats", std::vector<double>{0.25});
  Attributes reshape_attrs;
  reshape_attrs.set("shape", std::vector<int64_t>{-1});
  g.ops = {{"add", add_attrs, {0, 1}, {2}}, {"relu", {}, {2}, {3}}, {"reshape", reshape_attrs, {3}, {4}}};
  g.inputs = {0};
  g.outputs = {4, 3};
  return g;
}

TEST(ComputeGraph, RoundTrip) {
  const ComputeGraph g = sample_graph();
  auto bytes = serialize_compute_graph(g);
  UNIVK_ASSERT_OK(bytes);
  auto parsed = parse_compute_graph(*bytes);
  UNIVK_ASSERT_OK(parsed);
  ASSERT_EQ(parsed->values.size(), g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    EXPECT_EQ(parsed->values[i].dtype, g.values[i].dtype);
    EXPECT_EQ(parsed->values[i].shape, g.values[i].shape);
    EXPECT_EQ(parsed->values[i].constant, g.values[i].constant);
  }
  ASSERT_EQ(parsed->ops.size(), g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    EXPECT_EQ(parsed->ops[i].name, g.ops[i].name);
    EXPECT_EQ(parsed->ops[i].attrs.values(), g.ops[i].attrs.values());
    EXPECT_EQ(parsed->ops[i].inputs, g.ops[i].inputs);
    EXPECT_EQ(parsed->ops[i].outputs, g.ops[i].outputs);
  }
  EXPECT_EQ(parsed->inputs, g.inputs);
  EXPECT_EQ(parsed->outputs, g.outputs);
  // A misaligned copy of the bytes parses the same.
  std::vector<uint8_t> shifted(bytes->size() + 1);
  std::memcpy(shifted.data() + 1, bytes->data(), bytes->size());
  UNIVK_EXPECT_OK(parse_compute_graph(std::span<const uint8_t>(shifted).subspan(1)));
}

TEST(ComputeGraph, EveryTruncationIsRejected) {
  auto bytes = serialize_compute_graph(sample_graph());
  UNIVK_ASSERT_OK(bytes);
  for (size_t n = 0; n < bytes->size(); ++n) {
    std::vector<uint8_t> cut(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(n));
    auto parsed = parse_compute_graph(cut);
    EXPECT_FALSE(parsed.ok()) << "truncated to " << n << " bytes";
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(ComputeGraph, RandomByteFlipsNeverCrash) {
  auto bytes = serialize_compute_graph(sample_graph());
  UNIVK_ASSERT_OK(bytes);
  std::mt19937 rng(7);
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> damaged = *bytes;
    const int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    auto parsed = parse_compute_graph(damaged);
    if (!parsed.ok()) {
      ++rejected;
      EXPECT_FALSE(parsed.status().message().empty());
    } else {
      EXPECT_TRUE(validate_compute_graph(*parsed).ok());  // whatever parses is structurally sound
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(ComputeGraph, RejectsBadIdentifierAndVersion) {
  auto bytes = serialize_compute_graph(sample_graph());
  UNIVK_ASSERT_OK(bytes);
  std::vector<uint8_t> wrong_id = *bytes;
  wrong_id[4] = 'X';
  auto parsed = parse_compute_graph(wrong_id);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("UVKG"), std::string::npos);
  EXPECT_FALSE(parse_compute_graph({}).ok());
}

TEST(ComputeGraph, ValidationNamesTheProblem) {
  struct Case {
    const char* what;
    void (*damage)(ComputeGraph&);
    const char* expect;
  };
  const Case cases[] = {
      {"op input out of range", [](ComputeGraph& g) { g.ops[0].inputs[0] = 99; }, "refers to value 99"},
      {"op output out of range", [](ComputeGraph& g) { g.ops[1].outputs[0] = 42; }, "refers to value 42"},
      {"graph input out of range", [](ComputeGraph& g) { g.inputs[0] = 7; }, "inputs[0]"},
      {"graph output out of range", [](ComputeGraph& g) { g.outputs[1] = 5; }, "outputs[1]"},
      {"read before defined", [](ComputeGraph& g) { std::swap(g.ops[0], g.ops[1]); }, "before anything defines it"},
      {"value defined twice", [](ComputeGraph& g) { g.ops[1].outputs[0] = 2; }, "already defined"},
      {"constant as graph input", [](ComputeGraph& g) { g.inputs.push_back(1); }, "constant"},
      {"constant size", [](ComputeGraph& g) { g.values[1].constant.pop_back(); }, "constant has 11 bytes"},
      {"no outputs", [](ComputeGraph& g) { g.outputs.clear(); }, "no outputs"},
      {"undefined output",
       [](ComputeGraph& g) {
         g.outputs = {0, 2};
         g.ops.clear();
       },
       "nothing defines"},
  };
  for (const Case& c : cases) {
    ComputeGraph g = sample_graph();
    c.damage(g);
    Status s = validate_compute_graph(g);
    EXPECT_FALSE(s.ok()) << c.what;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << c.what << ": " << s.message();
    EXPECT_FALSE(serialize_compute_graph(g).ok()) << c.what;
  }
}

TEST(ComputeGraph, SupportQuery) {
  const ComputeTensorType x{DType::kFloat32, Shape{1, 3, 8, 8}};
  Attributes pool;
  pool.set("kernel_size", int64_t{2});
  ComputeTensorType out;
  UNIVK_EXPECT_OK(vulkan_backend_check("avg_pool2d", pool, {&x, 1}, &out));
  EXPECT_EQ(out.shape, (Shape{1, 3, 4, 4}));
  EXPECT_TRUE(vulkan_backend_supports("sigmoid", {}, {&x, 1}));
  Status unknown = vulkan_backend_check("fft", {}, {&x, 1});
  EXPECT_EQ(unknown.code(), StatusCode::kUnsupported);
  EXPECT_NE(unknown.message().find("fft"), std::string::npos);
  const ComputeTensorType ints{DType::kInt32, Shape{4}};
  EXPECT_EQ(vulkan_backend_check("sigmoid", {}, {&ints, 1}).code(), StatusCode::kUnsupported);
  EXPECT_FALSE(vulkan_backend_supports("avg_pool2d", {}, {&x, 1}));  // kernel_size missing
  const ComputeTensorType empty{DType::kFloat32, Shape{0, 3}};
  EXPECT_FALSE(vulkan_backend_supports("relu", {}, {&empty, 1}));
  const ComputeTensorType a{DType::kFloat32, Shape{2, 1, 4, 5}}, b{DType::kFloat32, Shape{1, 3, 5, 6}};
  const ComputeTensorType ab[] = {a, b};
  EXPECT_FALSE(vulkan_backend_supports("matmul", {}, ab));  // partial batch broadcasting
  // issue 3's operators, pad, upsamples, conv_transpose2d, adaptive max, amax/amin; comparisons,
  // logical operators, where, masked_fill, index_select, argmax/argmin, cumsum; floor, ceil, sin,
  // cos, prod, logical_xor, flip
  EXPECT_EQ(vulkan_backend_ops().size(), 77u);
}

TEST(OpLowering, LargeGridsGoTwoDimensional) {
  // 70000 long softmax rows: one workgroup each, 65535 x 2 workgroups.
  const ComputeTensorType rows{DType::kFloat32, Shape{70000, 300}};
  Attributes dim;
  dim.set("dim", int64_t{1});
  auto softmax = vulkan::lower_op("softmax", dim, {&rows, 1});
  UNIVK_ASSERT_OK(softmax);
  EXPECT_EQ(softmax->dispatches[0].groups, (std::array<uint32_t, 3>{65535, 2, 1}));
  // Short rows run one invocation per row: 70000 rows / 256 = 274 workgroups.
  const ComputeTensorType short_rows{DType::kFloat32, Shape{70000, 10}};
  softmax = vulkan::lower_op("softmax", dim, {&short_rows, 1});
  UNIVK_ASSERT_OK(softmax);
  EXPECT_EQ(softmax->dispatches[0].groups, (std::array<uint32_t, 3>{274, 1, 1}));
  // 64M elements (16x64x256x256), 4 per invocation: 65536 workgroups as 65535 x 2.
  const ComputeTensorType big{DType::kFloat32, Shape{16, 64, 256, 256}};
  auto relu = vulkan::lower_op("relu", {}, {&big, 1});
  UNIVK_ASSERT_OK(relu);
  EXPECT_EQ(relu->dispatches[0].groups, (std::array<uint32_t, 3>{65535, 2, 1}));
  EXPECT_EQ(relu->dispatches[0].variant, static_cast<uint32_t>(vulkan::UnaryOp::kRelu) | vulkan::kUnaryVec4);
  // 16x64x1024x1024 (2^30 elements) still lowers: 1048576 workgroups as 65535 x 17.
  const ComputeTensorType huge{DType::kFloat32, Shape{16, 64, 1024, 1024}};
  relu = vulkan::lower_op("relu", {}, {&huge, 1});
  UNIVK_ASSERT_OK(relu);
  EXPECT_EQ(relu->dispatches[0].groups, (std::array<uint32_t, 3>{65535, 17, 1}));
  // An element count that is not a multiple of 4 runs one element per invocation.
  const ComputeTensorType odd{DType::kFloat32, Shape{16777219}};
  relu = vulkan::lower_op("relu", {}, {&odd, 1});
  UNIVK_ASSERT_OK(relu);
  EXPECT_EQ(relu->dispatches[0].groups, (std::array<uint32_t, 3>{65535, 2, 1}));
  EXPECT_EQ(relu->dispatches[0].variant, static_cast<uint32_t>(vulkan::UnaryOp::kRelu));
}

TEST(GraphPlan, ChainReusesArenaAndAliasesReshape) {
  // x -> sigmoid -> tanh -> exp -> reshape -> neg -> out: the three intermediates live one step
  // each, so the arena holds two of them; the reshape binds its input's bytes.
  ComputeGraph g;
  for (int i = 0; i < 6; ++i) g.values.push_back(value({4, 64}));
  g.values.push_back(value({256}));
  g.values.push_back(value({256}));
  Attributes r;
  r.set("shape", std::vector<int64_t>{256});
  g.ops = {{"sigmoid", {}, {0}, {1}},
           {"tanh", {}, {1}, {2}},
           {"exp", {}, {2}, {3}},
           {"reshape", r, {3}, {6}},
           {"neg", {}, {6}, {7}}};
  g.inputs = {0};
  g.outputs = {7};
  const ComputeTensorType in{DType::kFloat32, Shape{4, 64}}, out{DType::kFloat32, Shape{256}};
  auto plan = vulkan::plan_graph(g, {&in, 1}, {&out, 1}, 64);
  UNIVK_ASSERT_OK(plan);
  EXPECT_EQ(plan->dispatches.size(), 4u);  // the reshape is an alias
  EXPECT_EQ(plan->arena_bytes, 2u * 1024u);
  const auto& neg = plan->dispatches[3];
  const auto& exp = plan->dispatches[2];
  EXPECT_EQ(neg.buffers[0].kind, vulkan::BufferKind::kArena);
  EXPECT_EQ(neg.buffers[0].offset, exp.buffers[1].offset);
  EXPECT_EQ(neg.buffers[1].kind, vulkan::BufferKind::kOutput);
}

TEST(GraphPlan, RejectsMismatchedTypes) {
  const ComputeGraph g = sample_graph();
  const ComputeTensorType wrong_in{DType::kFloat32, Shape{3, 2}};
  const ComputeTensorType outs[] = {{DType::kFloat32, Shape{6}}, {DType::kFloat32, Shape{2, 3}}};
  auto plan = vulkan::plan_graph(g, {&wrong_in, 1}, outs, 16);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("input 0"), std::string::npos) << plan.status().message();
  // A declared op result that disagrees with the op's semantics.
  ComputeGraph bad = sample_graph();
  bad.values[3].shape = Shape{3, 2};
  bad.ops[2].inputs = {3};
  const ComputeTensorType in{DType::kFloat32, Shape{2, 3}};
  const ComputeTensorType outs2[] = {{DType::kFloat32, Shape{6}}, {DType::kFloat32, Shape{3, 2}}};
  plan = vulkan::plan_graph(bad, {&in, 1}, outs2, 16);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("ops[1] (relu)"), std::string::npos) << plan.status().message();
}

}  // namespace
}  // namespace univk::backends
