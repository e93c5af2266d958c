// VulkanBackend lowering: nodes map one to one onto compute graph ops with PyTorch names and
// attributes, constants are embedded, the payload parses back; support questions go to the
// backend's own operator checks.
#include "univk/compiler/vulkan_lowering.h"

#include <gtest/gtest.h>
#include "univk_test.h"

namespace univk::compiler {
namespace {

TEST(VulkanLowering, PayloadParsesBackWithOpsAndConstants) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 2, 5, 5}).value();
  HostTensor w(DType::kFloat32, Shape{3, 2, 3, 3});
  for (size_t i = 0; i < w.data<float>().size(); ++i) w.data<float>()[i] = static_cast<float>(i) * 0.01f;
  const ValueId wc = g.add_constant("w", w).value();
  Attributes conv;
  conv.set("padding", std::vector<int64_t>{1, 1});
  const ValueId c = g.add_node_inferred("conv", "conv2d", conv, {x, wc}).value();
  const ValueId s = g.add_node_inferred("sig", "sigmoid", {}, {c}).value();
  UNIVK_ASSERT_OK(g.add_output(s));
  const std::vector<NodeId> nodes = {0, 1};
  const SubgraphIO io = subgraph_io(g, nodes);
  auto bytes = lower_to_vulkan(g, nodes, io);
  UNIVK_ASSERT_OK(bytes);
  auto cg = backends::parse_compute_graph(*bytes);
  UNIVK_ASSERT_OK(cg);
  ASSERT_EQ(cg->ops.size(), 2u);
  EXPECT_EQ(cg->ops[0].name, "conv2d");
  EXPECT_EQ(cg->ops[0].attrs.get_ints("padding").value(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(cg->ops[1].name, "sigmoid");
  ASSERT_EQ(cg->inputs.size(), 1u);
  ASSERT_EQ(cg->outputs.size(), 1u);
  EXPECT_EQ(cg->values[cg->inputs[0]].shape, (Shape{1, 2, 5, 5}));
  EXPECT_EQ(cg->values[cg->outputs[0]].shape, (Shape{1, 3, 5, 5}));
  const auto& weight = cg->values[cg->ops[0].inputs[1]];
  ASSERT_TRUE(weight.is_constant());
  EXPECT_TRUE(std::equal(weight.constant.begin(), weight.constant.end(), w.bytes().begin()));
  EXPECT_EQ(cg->ops[1].inputs[0], cg->ops[0].outputs[0]);
}

TEST(VulkanLowering, SupportFollowsTheBackendAndTheGraphsShapes) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{2, 3}).value();
  const ValueId i = g.add_input("i", DType::kInt32, Shape{2, 3}).value();
  UNIVK_ASSERT_OK(g.add_node("ok", "relu", {}, {x}, DType::kFloat32, Shape{2, 3}));
  UNIVK_ASSERT_OK(g.add_node("unknown", "frobnicate", {}, {x}, DType::kFloat32, Shape{2, 3}));
  UNIVK_ASSERT_OK(g.add_node("int", "relu", {}, {i}, DType::kInt32, Shape{2, 3}));
  UNIVK_ASSERT_OK(g.add_node("wrong_shape", "relu", {}, {x}, DType::kFloat32, Shape{3, 2}));
  UNIVK_EXPECT_OK(vulkan_supports(g, g.node(0)));
  EXPECT_FALSE(vulkan_supports(g, g.node(1)).ok());
  EXPECT_FALSE(vulkan_supports(g, g.node(2)).ok());
  Status s = vulkan_supports(g, g.node(3));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("where the graph says"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace univk::compiler
