// compile_program refuses graphs the runtime could not run, at compile time and naming the value
// or node: declared result shapes that contradict the op, zero-size tensors, pin keys that match
// no node, and it reports CPU pins as warnings.
#include <gtest/gtest.h>

#include "univk/compiler/compiler.h"
#include "univk_test.h"

namespace univk::compiler {
namespace {

Attributes pool_2x2() {
  Attributes a;
  a.set("kernel_size", std::vector<int64_t>{2, 2});
  return a;
}

void expect_invalid(const Result<CompiledProgram>& r, const std::vector<std::string>& parts) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
  for (const std::string& part : parts) {
    EXPECT_NE(r.status().message().find(part), std::string::npos)
        << "missing '" << part << "' in " << r.status().to_string();
  }
}

TEST(GraphChecks, DeclaredShapeThatContradictsTheOpIsRefusedNamingTheNode) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
  const ValueId p = g.add_node("pool", "avg_pool2d", pool_2x2(), {x}, DType::kFloat32, Shape{1, 3, 5, 5}).value();
  const ValueId s = g.add_node("sig", "sigmoid", {}, {p}, DType::kFloat32, Shape{1, 3, 5, 5}).value();
  UNIVK_ASSERT_OK(g.add_output(s));
  for (const auto& order : {std::vector<std::string>{"VgfBackend"}, std::vector<std::string>{"VulkanBackend"},
                            std::vector<std::string>{"cpu"}}) {
    CompileOptions options;
    options.partition.order = order;
    expect_invalid(compile_program(g, options), {"node 'pool'", "avg_pool2d", "[1,3,5,5]", "[1,3,4,4]"});
  }
}

TEST(GraphChecks, ShapesTheOpRefusesAreRefusedNamingTheNode) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{2, 5}).value();
  HostTensor weight(DType::kFloat32, Shape{4, 6});
  const ValueId w = g.add_constant("w", weight).value();
  const ValueId y = g.add_node("fc", "linear", {}, {x, w}, DType::kFloat32, Shape{2, 4}).value();
  UNIVK_ASSERT_OK(g.add_output(y));
  expect_invalid(compile_program(g), {"node 'fc'", "linear", "[2,5]", "[4,6]"});
}

TEST(GraphChecks, EveryCorrectlyDeclaredShapeCompiles) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
  const ValueId p = g.add_node("pool", "avg_pool2d", pool_2x2(), {x}, DType::kFloat32, Shape{1, 3, 4, 4}).value();
  Attributes flat;
  flat.set("start_dim", int64_t{1});
  const ValueId f = g.add_node("flat", "flatten", flat, {p}, DType::kFloat32, Shape{1, 48}).value();
  UNIVK_ASSERT_OK(g.add_output(f));
  auto compiled = compile_program(g);
  UNIVK_EXPECT_OK(compiled);
}

TEST(GraphChecks, ZeroSizeTensorsAreRefusedNamingTheValue) {
  {
    Graph g;
    const ValueId x = g.add_input("x", DType::kFloat32, Shape{0, 3}).value();
    const ValueId y = g.add_node("relu", "relu", {}, {x}, DType::kFloat32, Shape{0, 3}).value();
    UNIVK_ASSERT_OK(g.add_output(y));
    expect_invalid(compile_program(g), {"input 'x'", "[0,3]", "zero-size"});
  }
  {
    Graph g;
    const ValueId x = g.add_input("x", DType::kFloat32, Shape{2, 3}).value();
    const ValueId c = g.add_constant("empty", HostTensor(DType::kFloat32, Shape{2, 0})).value();
    Attributes cat;
    cat.set("dim", int64_t{1});
    const ValueId y = g.add_node("cat", "cat", cat, {x, c}, DType::kFloat32, Shape{2, 3}).value();
    UNIVK_ASSERT_OK(g.add_output(y));
    expect_invalid(compile_program(g), {"constant 'empty'", "[2,0]"});
  }
  {
    Graph g;
    const ValueId x = g.add_input("x", DType::kFloat32, Shape{2, 3}).value();
    Attributes slice;
    slice.set("dim", int64_t{1});
    slice.set("start", int64_t{3});
    const ValueId y = g.add_node("tail", "slice", slice, {x}, DType::kFloat32, Shape{2, 0}).value();
    UNIVK_ASSERT_OK(g.add_output(y));
    expect_invalid(compile_program(g), {"node 'tail' (slice)", "[2,0]"});
  }
}

Graph sigmoid_relu_graph() {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{2, 3}).value();
  const ValueId s = g.add_node("sig", "sigmoid", {}, {x}, DType::kFloat32, Shape{2, 3}).value();
  const ValueId r = g.add_node("act", "relu", {}, {s}, DType::kFloat32, Shape{2, 3}).value();
  UNIVK_EXPECT_OK(g.add_output(r));
  return g;
}

TEST(GraphChecks, PinKeyMatchingNoNodeOrOpTypeIsRefusedListingTheKnownOnes) {
  const Graph g = sigmoid_relu_graph();
  CompileOptions options;
  options.partition.pins = {{"sigmoid", "VulkanBackend"}, {"sigmod", "VulkanBackend"}};
  expect_invalid(compile_program(g, options), {"pin 'sigmod'", "op types: relu sigmoid", "node names: sig act"});
  options.partition.pins = {{"act", "VulkanBackend"}, {"sigmoid", "cpu"}};
  auto ok = compile_program(g, options);
  UNIVK_EXPECT_OK(ok);
}

TEST(GraphChecks, CpuPinIsReportedAsAWarning) {
  const Graph g = sigmoid_relu_graph();
  CompileOptions options;
  options.partition.pins = {{"sig", "cpu"}};
  auto compiled = compile_program(g, options);
  UNIVK_ASSERT_OK(compiled);
  ASSERT_EQ(compiled->partition.warnings.size(), 1u);
  EXPECT_NE(compiled->partition.warnings[0].find("node 'sig' (sigmoid) is pinned to the CPU"), std::string::npos)
      << compiled->partition.warnings[0];
  EXPECT_EQ(compiled->calls[0].backend, "cpu");
}

}  // namespace
}  // namespace univk::compiler
