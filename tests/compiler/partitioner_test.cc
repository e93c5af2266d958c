// The partitioner: claim order, pins by node name and op type, CPU leftovers and their
// warning, require_no_cpu_fallback, grouping of consecutive nodes into one partition.
#include "univk/compiler/partitioner.h"

#include <gtest/gtest.h>
#include "univk_test.h"

namespace univk::compiler {
namespace {

// x -> avg_pool2d -> sigmoid -> mul(y, y) -> add(0.25) -> gelu
Graph example_graph() {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  const ValueId p = g.add_node("avg_pool2d", "avg_pool2d", pool, {x}, DType::kFloat32, Shape{1, 3, 4, 4}).value();
  const ValueId s = g.add_node("sigmoid", "sigmoid", {}, {p}, DType::kFloat32, Shape{1, 3, 4, 4}).value();
  const ValueId m = g.add_node("mul", "mul", {}, {s, s}, DType::kFloat32, Shape{1, 3, 4, 4}).value();
  Attributes add;
  add.set("other", 0.25);
  const ValueId a = g.add_node("add", "add", add, {m}, DType::kFloat32, Shape{1, 3, 4, 4}).value();
  const ValueId gl = g.add_node("gelu", "gelu", {}, {a}, DType::kFloat32, Shape{1, 3, 4, 4}).value();
  UNIVK_EXPECT_OK(g.add_output(gl));
  return g;
}

// "A" runs pools and elementwise arithmetic, "B" runs everything but gelu.
std::vector<BackendClaim> claims() {
  auto a = [](const Graph&, const Node& n) {
    return n.op == "avg_pool2d" || n.op == "mul" || n.op == "add" ? ok_status() : unsupported("A: no " + n.op);
  };
  auto b = [](const Graph&, const Node& n) { return n.op != "gelu" ? ok_status() : unsupported("B: no gelu"); };
  return {BackendClaim{"A", a}, BackendClaim{"B", b}};
}

std::vector<std::pair<std::string, size_t>> layout(const PartitionResult& r) {
  std::vector<std::pair<std::string, size_t>> out;
  for (const Partition& p : r.partitions) out.emplace_back(p.backend, p.nodes.size());
  return out;
}

using Layout = std::vector<std::pair<std::string, size_t>>;

TEST(Partitioner, FirstBackendInOrderClaimsAndLeftoversGoToCpuWithWarning) {
  const Graph g = example_graph();
  const auto c = claims();
  PartitionOptions o;
  o.order = {"A", "B"};
  auto r = partition_graph(g, c, o);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(layout(*r), (Layout{{"A", 1}, {"B", 1}, {"A", 2}, {"cpu", 1}}));
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("gelu"), std::string::npos);
  EXPECT_NE(r->warnings[0].find("B: no gelu"), std::string::npos);
  EXPECT_TRUE(r->has_cpu());
}

TEST(Partitioner, OrderDecidesWhoClaims) {
  const Graph g = example_graph();
  const auto c = claims();
  PartitionOptions o;
  o.order = {"B", "A"};
  auto r = partition_graph(g, c, o);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(layout(*r), (Layout{{"B", 4}, {"cpu", 1}}));
}

TEST(Partitioner, PinByOpTypeAndByNodeName) {
  const Graph g = example_graph();
  const auto c = claims();
  PartitionOptions o;
  o.order = {"A", "B"};
  o.pins = {{"sigmoid", "B"}, {"mul", "B"}};  // "sigmoid" and "mul" are both node names and op types
  auto r = partition_graph(g, c, o);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(layout(*r), (Layout{{"A", 1}, {"B", 2}, {"A", 1}, {"cpu", 1}}));

  o.pins = {{"add", "cpu"}};
  r = partition_graph(g, c, o);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(layout(*r), (Layout{{"A", 1}, {"B", 1}, {"A", 1}, {"cpu", 2}}));
}

TEST(Partitioner, NodeNamePinWinsOverOpTypePin) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{4}).value();
  const ValueId r1 = g.add_node("relu_a", "relu", {}, {x}, DType::kFloat32, Shape{4}).value();
  const ValueId r2 = g.add_node("relu_b", "relu", {}, {r1}, DType::kFloat32, Shape{4}).value();
  UNIVK_ASSERT_OK(g.add_output(r2));
  auto any = [](const Graph&, const Node&) { return ok_status(); };
  const std::vector<BackendClaim> c = {{"A", any}, {"B", any}};
  PartitionOptions o;
  o.order = {"A"};
  o.pins = {{"relu", "B"}, {"relu_b", "A"}};
  auto r = partition_graph(g, c, o);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(layout(*r), (Layout{{"B", 1}, {"A", 1}}));
}

TEST(Partitioner, RequireNoCpuFallbackFailsNamingTheNode) {
  const Graph g = example_graph();
  const auto c = claims();
  PartitionOptions o;
  o.order = {"A", "B"};
  o.require_no_cpu_fallback = true;
  auto r = partition_graph(g, c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'gelu'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("require_no_cpu_fallback"), std::string::npos);

  o.pins = {{"add", "cpu"}};
  o.require_no_cpu_fallback = true;
  EXPECT_FALSE(partition_graph(g, c, o).ok());
}

TEST(Partitioner, PinToABackendThatCannotRunTheNodeIsAnError) {
  const Graph g = example_graph();
  const auto c = claims();
  PartitionOptions o;
  o.order = {"A", "B"};
  o.pins = {{"sigmoid", "A"}};
  auto r = partition_graph(g, c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pinned to A"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("A: no sigmoid"), std::string::npos);
}

TEST(Partitioner, UnknownBackendNamesAreErrors) {
  const Graph g = example_graph();
  const auto c = claims();
  PartitionOptions o;
  o.order = {"A", "Nope"};
  EXPECT_EQ(partition_graph(g, c, o).status().code(), StatusCode::kInvalidArgument);
  o.order = {"A"};
  o.pins = {{"sigmoid", "Nope"}};
  EXPECT_EQ(partition_graph(g, c, o).status().code(), StatusCode::kInvalidArgument);
}

TEST(SubgraphIO, InputsOutputsAndConstants) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{4}).value();
  HostTensor w(DType::kFloat32, Shape{4});
  const ValueId c = g.add_constant("w", w).value();
  const ValueId a = g.add_node("a", "add", {}, {x, c}, DType::kFloat32, Shape{4}).value();
  const ValueId b = g.add_node("b", "relu", {}, {a}, DType::kFloat32, Shape{4}).value();
  const ValueId d = g.add_node("d", "mul", {}, {a, b}, DType::kFloat32, Shape{4}).value();
  UNIVK_ASSERT_OK(g.add_output(d));
  const std::vector<NodeId> first = {0, 1};
  SubgraphIO io = subgraph_io(g, first);
  EXPECT_EQ(io.inputs, (std::vector<ValueId>{x}));      // the constant is not an input
  EXPECT_EQ(io.outputs, (std::vector<ValueId>{a, b}));  // both read by node d
  const std::vector<NodeId> last = {2};
  io = subgraph_io(g, last);
  EXPECT_EQ(io.inputs, (std::vector<ValueId>{a, b}));
  EXPECT_EQ(io.outputs, (std::vector<ValueId>{d}));
}

TEST(Graph, RejectsDuplicateNamesAndUnknownIds) {
  Graph g;
  UNIVK_ASSERT_OK(g.add_input("x", DType::kFloat32, Shape{4}));
  EXPECT_FALSE(g.add_input("x", DType::kFloat32, Shape{4}).ok());
  EXPECT_FALSE(g.add_node("y", "relu", {}, {7}, DType::kFloat32, Shape{4}).ok());
  EXPECT_FALSE(g.add_output(9).ok());
  auto inferred = g.add_node_inferred("y", "relu", {}, {0});
  UNIVK_ASSERT_OK(inferred);
  EXPECT_EQ(g.value(*inferred).shape, (Shape{4}));
}

}  // namespace
}  // namespace univk::compiler
