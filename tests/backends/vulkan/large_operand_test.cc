// Large operands on the VulkanBackend: with option max_binding_bytes far below
// maxStorageBufferRange, linear (a constant weight), matmul (graph inputs and an arena value)
// and conv2d split into several kernel dispatches whose bindings fit, and match the reference;
// a limit too small for one row, or an operator that does not split, is a clear Unsupported.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "univk/reference/kernels.h"

namespace univk::backends::testing {
namespace {

HostTensor ref(const char* op, const Attributes& a, std::vector<HostTensor> in) {
  auto r = reference::run_op(op, a, in);
  UNIVK_EXPECT_OK(r) << op;
  return r.ok() ? (*r)[0] : HostTensor();
}

backend::BackendOptions limit(uint64_t bytes) { return {{"max_binding_bytes", std::to_string(bytes)}}; }

// x [3, 200] -> linear (const W [300, 200] of 240000 bytes, const b) -> relu.
struct LinearGraph {
  ComputeGraph graph;
  HostTensor w, b;
};

LinearGraph linear_graph(int64_t k) {
  LinearGraph c;
  c.w = random_tensor(DType::kFloat32, Shape{300, k}, 1, -0.5, 0.5);
  c.b = random_tensor(DType::kFloat32, Shape{300}, 2);
  c.graph.values = {value_of(HostTensor(DType::kFloat32, Shape{3, k}), false), value_of(c.w, true), value_of(c.b, true),
                    value_of(HostTensor(DType::kFloat32, Shape{3, 300}), false),
                    value_of(HostTensor(DType::kFloat32, Shape{3, 300}), false)};
  c.graph.ops = {{"linear", {}, {0, 1, 2}, {3}}, {"relu", {}, {3}, {4}}};
  c.graph.inputs = {0};
  c.graph.outputs = {4};
  return c;
}

TEST(VulkanLargeOperands, LinearWeightSplitsAlongOutputFeatures) {
  const LinearGraph c = linear_graph(200);
  const HostTensor x = random_tensor(DType::kFloat32, Shape{3, 200}, 3);
  const HostTensor want = ref("relu", {}, {ref("linear", {}, {x, c.w, c.b})});
  // 64 KiB bindings hold 81 weight rows: 4 pieces, then relu.
  auto split = run_graph(c.graph, {x}, limit(64 << 10));
  UNIVK_ASSERT_OK(split);
  EXPECT_EQ(split->stats.dispatches, 5u);
  EXPECT_TRUE(tensors_close(split->outputs[0], want, {1e-5, 1e-4}));
  auto whole = run_graph(c.graph, {x});
  UNIVK_ASSERT_OK(whole);
  EXPECT_EQ(whole->stats.dispatches, 2u);
  EXPECT_TRUE(tensors_close(whole->outputs[0], want, {1e-5, 1e-4}));
}

TEST(VulkanLargeOperands, BatchedMatmulOfInputsAndArenaValuesSplits) {
  // a [4, 150, 40] (24000 bytes a batch, a graph input) @ sigmoid(b0) ([4, 40, 20], an arena
  // value of 12800 bytes): 16 KiB bindings take half a batch's rows, so 8 pieces.
  ComputeGraph g;
  g.values = {value_of(HostTensor(DType::kFloat32, Shape{4, 150, 40}), false),
              value_of(HostTensor(DType::kFloat32, Shape{4, 40, 20}), false),
              value_of(HostTensor(DType::kFloat32, Shape{4, 40, 20}), false),
              value_of(HostTensor(DType::kFloat32, Shape{4, 150, 20}), false)};
  g.ops = {{"sigmoid", {}, {1}, {2}}, {"matmul", {}, {0, 2}, {3}}};
  g.inputs = {0, 1};
  g.outputs = {3};
  const HostTensor a = random_tensor(DType::kFloat32, Shape{4, 150, 40}, 4);
  const HostTensor b = random_tensor(DType::kFloat32, Shape{4, 40, 20}, 5);
  auto r = run_graph(g, {a, b}, limit(16 << 10));
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(r->stats.dispatches, 1u + 8u);
  EXPECT_TRUE(tensors_close(r->outputs[0], ref("matmul", {}, {a, ref("sigmoid", {}, {b})}), {1e-5, 1e-4}));
}

TEST(VulkanLargeOperands, ConvSplitsAlongBatchAndOutputChannels) {
  // x [3, 8, 10, 10] -> conv2d 3x3 pad 1 (const w [40, 8, 3, 3], const b) -> [3, 40, 10, 10]:
  // 8 KiB bindings take 20 channels of one image.
  const HostTensor w = random_tensor(DType::kFloat32, Shape{40, 8, 3, 3}, 6, -0.5, 0.5);
  const HostTensor bias = random_tensor(DType::kFloat32, Shape{40}, 7);
  Attributes attrs;
  attrs.set("padding", std::vector<int64_t>{1, 1});
  ComputeGraph g;
  g.values = {value_of(HostTensor(DType::kFloat32, Shape{3, 8, 10, 10}), false), value_of(w, true),
              value_of(bias, true), value_of(HostTensor(DType::kFloat32, Shape{3, 40, 10, 10}), false)};
  g.ops = {{"conv2d", attrs, {0, 1, 2}, {3}}};
  g.inputs = {0};
  g.outputs = {3};
  const HostTensor x = random_tensor(DType::kFloat32, Shape{3, 8, 10, 10}, 8);
  auto r = run_graph(g, {x}, limit(8 << 10));
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(r->stats.dispatches, 6u);
  EXPECT_TRUE(tensors_close(r->outputs[0], ref("conv2d", attrs, {x, w, bias}), {1e-5, 1e-4}));
}

TEST(VulkanLargeOperands, LimitsThatCannotBeMetAreUnsupported) {
  // One row of x (4096 floats, 16 KiB) alone exceeds 8 KiB.
  const LinearGraph c = linear_graph(4096);
  const HostTensor x = random_tensor(DType::kFloat32, Shape{3, 4096}, 9);
  auto r = run_graph(c.graph, {x}, limit(8 << 10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("gemm A"), std::string::npos) << r.status().to_string();
  EXPECT_NE(r.status().message().find("binding limit of 8192"), std::string::npos) << r.status().to_string();

  // The linear splits at 4 KiB (200 floats a row), but relu's operands do not.
  const LinearGraph small = linear_graph(200);
  r = run_graph(small.graph, {random_tensor(DType::kFloat32, Shape{3, 200}, 10)}, limit(3000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("unary dispatch binds a tensor of 3600 bytes"), std::string::npos)
      << r.status().to_string();

  r = run_graph(small.graph, {random_tensor(DType::kFloat32, Shape{3, 200}, 10)}, {{"max_binding_bytes", "0"}});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
}

}  // namespace
}  // namespace univk::backends::testing
