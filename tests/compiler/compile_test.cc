// compile_program: the example model becomes a program with three delegate calls
// (VgfBackend, VulkanBackend, VgfBackend) chained through program values, with no CPU kernel;
// operators no backend in the order supports become CPU kernel calls unless
// require_no_cpu_fallback.
#include "univk/compiler/compiler.h"

#include <gtest/gtest.h>

#include "univk/runtime/program_desc.h"
#include "univk_test.h"

namespace univk::compiler {
namespace {

Graph example_graph(bool with_reflect_pad = false) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  ValueId v = g.add_node_inferred("avg_pool2d", "avg_pool2d", pool, {x}).value();
  const ValueId s = g.add_node_inferred("sigmoid", "sigmoid", {}, {v}).value();
  v = g.add_node_inferred("mul", "mul", {}, {s, s}).value();
  Attributes add;
  add.set("other", 0.25);
  v = g.add_node_inferred("add", "add", add, {v}).value();
  if (with_reflect_pad) {
    Attributes a;
    a.set("pad", std::vector<int64_t>{1, 1});
    a.set("mode", std::string("reflect"));
    v = g.add_node_inferred("pad", "pad", a, {v}).value();  // TOSA PAD is constant only
  }
  UNIVK_EXPECT_OK(g.add_output(v));
  return g;
}

TEST(Compile, ExampleIsVgfVulkanVgf) {
  CompileOptions options;
  options.partition.order = {"VgfBackend", "VulkanBackend"};
  options.partition.pins = {{"sigmoid", "VulkanBackend"}};
  auto compiled = compile_program(example_graph(), options);
  UNIVK_ASSERT_OK(compiled);
  ASSERT_EQ(compiled->calls.size(), 3u);
  EXPECT_EQ(compiled->calls[0].backend, "VgfBackend");
  EXPECT_EQ(compiled->calls[1].backend, "VulkanBackend");
  EXPECT_EQ(compiled->calls[2].backend, "VgfBackend");
  EXPECT_EQ(compiled->calls[2].nodes, (std::vector<std::string>{"mul", "add"}));
  EXPECT_TRUE(compiled->partition.warnings.empty());

  auto desc = runtime::parse_program(compiled->bytes);
  UNIVK_ASSERT_OK(desc);
  ASSERT_EQ(desc->methods.size(), 1u);
  const runtime::MethodDesc& m = desc->methods[0];
  EXPECT_EQ(m.name, "forward");
  ASSERT_EQ(m.instructions.size(), 3u);
  std::vector<std::string> backends;
  for (const auto& ins : m.instructions) {
    ASSERT_TRUE(std::holds_alternative<runtime::DelegateCallDesc>(ins));
    backends.push_back(desc->delegates[std::get<runtime::DelegateCallDesc>(ins).delegate].backend_id);
  }
  EXPECT_EQ(backends, (std::vector<std::string>{"VgfBackend", "VulkanBackend", "VgfBackend"}));
  // Each call reads what the previous one wrote.
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(runtime::instruction_inputs(m.instructions[i]), runtime::instruction_outputs(m.instructions[i - 1]));
  }
  EXPECT_EQ(m.values[m.inputs[0]].info.shape, (Shape{1, 3, 8, 8}));
  EXPECT_EQ(m.values[m.outputs[0]].info.shape, (Shape{1, 3, 4, 4}));
}

TEST(Compile, DefaultPartitionPutsEverythingOnVgf) {
  auto compiled = compile_program(example_graph());
  UNIVK_ASSERT_OK(compiled);
  ASSERT_EQ(compiled->calls.size(), 1u);
  EXPECT_EQ(compiled->calls[0].backend, "VgfBackend");
}

TEST(Compile, LeftoversBecomeCpuKernelCallsOrAnError) {
  CompileOptions vgf_only;
  vgf_only.partition.order = {"VgfBackend"};
  auto compiled = compile_program(example_graph(true), vgf_only);
  UNIVK_ASSERT_OK(compiled);
  ASSERT_EQ(compiled->calls.size(), 2u);
  EXPECT_EQ(compiled->calls[1].backend, kCpuBackend);
  EXPECT_EQ(compiled->partition.warnings.size(), 1u);
  auto desc = runtime::parse_program(compiled->bytes);
  UNIVK_ASSERT_OK(desc);
  ASSERT_TRUE(std::holds_alternative<runtime::KernelCallDesc>(desc->methods[0].instructions[1]));
  EXPECT_EQ(std::get<runtime::KernelCallDesc>(desc->methods[0].instructions[1]).op, "pad");

  CompileOptions strict = vgf_only;
  strict.partition.require_no_cpu_fallback = true;
  auto failed = compile_program(example_graph(true), strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("'pad'"), std::string::npos) << failed.status().message();
}

TEST(Compile, DeadPartitionsAreDropped) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{2, 3}).value();
  const ValueId r = g.add_node_inferred("relu", "relu", {}, {x}).value();
  UNIVK_ASSERT_OK(g.add_node_inferred("unused", "sigmoid", {}, {x}));
  UNIVK_ASSERT_OK(g.add_output(r));
  CompileOptions options;
  options.partition.pins = {{"unused", "VulkanBackend"}};
  auto compiled = compile_program(g, options);
  UNIVK_ASSERT_OK(compiled);
  ASSERT_EQ(compiled->calls.size(), 1u);
  EXPECT_EQ(compiled->calls[0].backend, "VgfBackend");
}

TEST(Compile, GraphWithoutOutputsIsRejected) {
  Graph g;
  UNIVK_ASSERT_OK(g.add_input("x", DType::kFloat32, Shape{2}));
  EXPECT_EQ(compile_program(g).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace univk::compiler
