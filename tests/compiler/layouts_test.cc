// Layouts across delegate calls (layouts.h): a small residual conv net split into VGF and
// VulkanBackend partitions passes its intermediate values in NHWC, so its VGF graphs carry a
// TRANSPOSE only at the program's input and output; the program's inputs and outputs stay NCHW;
// and the result equals the CPU reference program's under both partition orders and both
// execution modes, with the dispatch counts stated below. plan_layouts keeps values natural
// where a reader cannot take NHWC (a pool on the VulkanBackend, a CPU kernel, a program output).
#include "univk/compiler/layouts.h"

#include <gtest/gtest.h>

#include "univk/compiler/compiler.h"
#include "univk/compiler/vgf_lowering.h"
#include "univk/compiler/vulkan_lowering.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_desc.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"
#include "univk_test.h"

namespace univk::compiler {
namespace {

using ::univk::testing::random_tensor;
using ::univk::testing::tensors_close;

Attributes conv_attrs() {
  Attributes a;
  a.set("padding", std::vector<int64_t>{1, 1});
  return a;
}

ValueId conv(Graph& g, const std::string& name, ValueId x, int64_t ic, int64_t oc, uint32_t seed) {
  const ValueId w = g.add_constant(name + "_w", random_tensor(DType::kFloat32, Shape{oc, ic, 3, 3}, seed)).value();
  const ValueId b = g.add_constant(name + "_b", random_tensor(DType::kFloat32, Shape{oc}, seed + 1)).value();
  return g.add_node_inferred(name, "conv2d", conv_attrs(), {x, w, b}).value();
}

// x -> conv c1 -> relu r1 -> conv c2 -> add(c2, r1) -> relu r2 -> conv c3 -> avg_pool2d -> y
Graph residual_net() {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
  const ValueId c1 = conv(g, "c1", x, 3, 4, 1);
  const ValueId r1 = g.add_node_inferred("r1", "relu", {}, {c1}).value();
  const ValueId c2 = conv(g, "c2", r1, 4, 4, 3);
  const ValueId a = g.add_node_inferred("residual", "add", {}, {c2, r1}).value();
  const ValueId r2 = g.add_node_inferred("r2", "relu", {}, {a}).value();
  const ValueId c3 = conv(g, "c3", r2, 4, 4, 5);
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  UNIVK_EXPECT_OK(g.add_output(g.add_node_inferred("pool", "avg_pool2d", pool, {c3}).value()));
  return g;
}

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes()) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return g.node(0);
}

// The two partitions of the net the tests run, one per partition order.
CompileOptions vgf_first() {  // VGF {c1 r1 c2}, VulkanBackend {residual}, VGF {r2 c3 pool}
  CompileOptions o;
  o.partition.order = {"VgfBackend", "VulkanBackend"};
  o.partition.pins = {{"add", "VulkanBackend"}};
  return o;
}
CompileOptions vulkan_first() {  // VGF {c1}, Vk {r1}, VGF {c2}, Vk {residual r2}, VGF {c3}, Vk {pool}
  CompileOptions o;
  o.partition.order = {"VulkanBackend", "VgfBackend"};
  o.partition.pins = {{"conv2d", "VgfBackend"}};
  return o;
}

size_t count_transposes(const runtime::ProgramDesc& desc) {
  size_t n = 0;
  for (const runtime::DelegateDesc& d : desc.delegates) {
    if (d.backend_id != "VgfBackend") continue;
    auto file = vgf::decode_vgf(d.payload);
    UNIVK_EXPECT_OK(file);
    if (!file.ok()) return 0;
    auto tosa = spirv::read_tosa_graph(file->modules[0].spirv());
    UNIVK_EXPECT_OK(tosa);
    if (!tosa.ok()) return 0;
    for (const spirv::TosaOperation& op : tosa->operations) n += op.op == spirv::TosaOp::kTranspose;
  }
  return n;
}

struct Compiled {
  std::vector<uint8_t> bytes;
  std::vector<std::string> backends;  // per call
  size_t transposes = 0;
};

Compiled compile(const Graph& g, const CompileOptions& options) {
  auto compiled = compile_program(g, options);
  UNIVK_EXPECT_OK(compiled);
  if (!compiled.ok()) return {};
  Compiled c{compiled->bytes, {}, 0};
  for (const CompiledCall& call : compiled->calls) c.backends.push_back(call.backend);
  auto desc = runtime::parse_program(c.bytes);
  UNIVK_EXPECT_OK(desc);
  if (!desc.ok()) return c;
  c.transposes = count_transposes(*desc);
  // The program's interface keeps PyTorch's order; only values between calls change layout.
  const runtime::MethodDesc& m = desc->methods[0];
  EXPECT_EQ(m.values[m.inputs[0]].info.shape, (Shape{1, 3, 8, 8}));
  EXPECT_EQ(m.values[m.outputs[0]].info.shape, (Shape{1, 4, 4, 4}));
  return c;
}

// Runs `bytes` in `mode` on a fresh registry; returns the output and the dispatches of all calls.
std::pair<HostTensor, size_t> run(const std::vector<uint8_t>& bytes, runtime::ExecutionMode mode, const HostTensor& x) {
  auto program = runtime::Program::load_bytes(bytes);
  UNIVK_EXPECT_OK(program);
  if (!program.ok()) return {};
  vulkan::DeviceRegistry registry;
  runtime::LoadOptions options;
  options.registry = &registry;
  options.mode = mode;
  auto method = (*program)->load_method("forward", options);
  UNIVK_EXPECT_OK(method);
  if (!method.ok()) return {};
  auto out = (*method)->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_EXPECT_OK(out);
  if (!out.ok()) return {};
  size_t dispatches = 0;
  for (const auto& call : (*method)->delegate_calls()) dispatches += call.stats.dispatches;
  return {std::move((*out)[0]), dispatches};
}

TEST(Layouts, BoundaryValuesTravelInNhwc) {
  const Graph g = residual_net();
  const HostTensor x = random_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 9);
  CompileOptions cpu;
  cpu.partition.order = {kCpuBackend};
  const Compiled reference = compile(g, cpu);
  const HostTensor expected = run(reference.bytes, runtime::ExecutionMode::kPerDelegate, x).first;

  struct Case {
    const char* name;
    CompileOptions options;
    std::vector<std::string> backends;
    size_t transposes;  // only the program input's (into c1) and output's (after the last VGF op)
    size_t dispatches;
  };
  const std::string vgf = "VgfBackend", vk = "VulkanBackend";
  const Case cases[] = {
      // c1 (relu epilogue) | c2 | add | relu | c3 | pool, the output TRANSPOSE folded into its store.
      {"vgf_first", vgf_first(), {vgf, vk, vgf}, 2, 6},
      // c1 | relu | c2 | add | relu | c3 | pool: one dispatch per operator.
      {"vulkan_first", vulkan_first(), {vgf, vk, vgf, vk, vgf, vk}, 2, 7},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Compiled compiled = compile(g, c.options);
    EXPECT_EQ(compiled.backends, c.backends);
    EXPECT_EQ(compiled.transposes, c.transposes);
    for (auto mode : {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused}) {
      SCOPED_TRACE(mode == runtime::ExecutionMode::kFused ? "fused" : "per_delegate");
      const auto [out, dispatches] = run(compiled.bytes, mode, x);
      EXPECT_TRUE(tensors_close(out, expected, {1e-5f, 1e-5f}));
      EXPECT_EQ(dispatches, c.dispatches);
    }
  }
}

TEST(Layouts, PlanKeepsValuesNaturalWhereAReaderNeedsIt) {
  const Graph g = residual_net();
  auto plan_for = [&](const CompileOptions& options) {
    auto partition = partition_graph(g, builtin_claims(), options.partition);
    UNIVK_EXPECT_OK(partition);
    return std::make_pair(*partition, plan_layouts(g, *partition));
  };
  auto value_of = [&](const std::string& node) { return node_named(g, node).outputs[0]; };

  const auto [parts, plan] = plan_for(vulkan_first());
  ASSERT_EQ(plan.nhwc_partition.size(), 6u);
  EXPECT_EQ(plan.nhwc_partition, (std::vector<bool>{false, true, false, true, false, false}));  // the pool is not
  EXPECT_EQ(plan.value_rule[value_of("c1")], OutputLayout::kNhwc);                              // read by the NHWC relu
  EXPECT_EQ(plan.value_rule[value_of("r1")], OutputLayout::kNhwc);                              // written by it
  EXPECT_EQ(plan.value_rule[value_of("c3")], OutputLayout::kNatural);                           // read by the pool
  EXPECT_EQ(plan.value_rule[value_of("pool")], OutputLayout::kNatural);                         // the program output

  // With the pool on the CPU, c3 is a CPU kernel's input: natural.
  CompileOptions cpu_pool = vgf_first();
  cpu_pool.partition.pins["pool"] = kCpuBackend;
  const auto [parts2, plan2] = plan_for(cpu_pool);
  EXPECT_EQ(plan2.value_rule[value_of("c3")], OutputLayout::kNatural);
  EXPECT_EQ(plan2.value_rule[value_of("c2")], OutputLayout::kNhwc);  // read by the NHWC add
}

// x -> conv c (VGF) ; sigmoid(x) s (CPU) ; add(c, s) (VGF): c goes from one VGF graph to the next.
TEST(Layouts, VgfToVgfValueTravelsInNhwcWhenItsProducerHoldsIt) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
  const ValueId c = conv(g, "c", x, 3, 3, 11);
  const ValueId s = g.add_node_inferred("s", "sigmoid", {}, {x}).value();
  UNIVK_EXPECT_OK(g.add_output(g.add_node_inferred("sum", "add", {}, {c, s}).value()));
  CompileOptions options;
  options.partition.order = {"VgfBackend"};
  options.partition.pins = {{"s", kCpuBackend}};
  auto partition = partition_graph(g, builtin_claims(), options.partition);
  UNIVK_ASSERT_OK(partition);
  const LayoutPlan plan = plan_layouts(g, *partition);
  EXPECT_EQ(plan.value_rule[c], OutputLayout::kNhwcIfProduced);
  EXPECT_EQ(plan.value_rule[s], OutputLayout::kNatural);  // a CPU kernel's result

  auto compiled = compile_program(g, options);
  UNIVK_ASSERT_OK(compiled);
  auto desc = runtime::parse_program(compiled->bytes);
  UNIVK_ASSERT_OK(desc);
  // x into the convolution, s into the NHWC add, the sum out; none for c.
  EXPECT_EQ(count_transposes(*desc), 3u);
  const runtime::MethodDesc& m = desc->methods[0];
  const auto c_value = runtime::instruction_outputs(m.instructions[0])[0];
  EXPECT_EQ(m.values[c_value].info.shape, (Shape{1, 8, 8, 3}));  // [N,H,W,C]

  CompileOptions cpu;
  cpu.partition.order = {kCpuBackend};
  auto reference = compile_program(g, cpu);
  UNIVK_ASSERT_OK(reference);
  const HostTensor in = random_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 13);
  const HostTensor expected = run(reference->bytes, runtime::ExecutionMode::kPerDelegate, in).first;
  // per_delegate only: a method with a CPU kernel call cannot run fused.
  EXPECT_TRUE(
      tensors_close(run(compiled->bytes, runtime::ExecutionMode::kPerDelegate, in).first, expected, {1e-5f, 1e-5f}));
}

TEST(Layouts, ElementwiseNodesAreLayoutAgnostic) {
  const Graph g = residual_net();
  EXPECT_TRUE(layout_agnostic(g, node_named(g, "residual")));
  EXPECT_TRUE(layout_agnostic(g, node_named(g, "r1")));
  EXPECT_FALSE(layout_agnostic(g, node_named(g, "c1")));
  EXPECT_FALSE(layout_agnostic(g, node_named(g, "pool")));
}

TEST(Layouts, LoweringsRefuseLayoutsTheyCannotHonour) {
  const Graph g = residual_net();
  const std::vector<NodeId> first = {0};  // c1
  const SubgraphIO io = subgraph_io(g, first);
  auto vk = lower_to_compute_graph(g, first, io, TensorLayout::kNhwc);
  ASSERT_FALSE(vk.ok());
  EXPECT_EQ(vk.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vk.status().message().find("cannot run in NHWC"), std::string::npos) << vk.status().message();

  BoundaryLayouts two_inputs{{TensorLayout::kNhwc, TensorLayout::kNhwc}, {}};
  auto vgf = lower_to_vgf(g, first, io, two_inputs);
  ASSERT_FALSE(vgf.ok());
  EXPECT_EQ(vgf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vgf.status().message().find("2 input layouts for 1 inputs"), std::string::npos) << vgf.status().message();

  // Only rank-4 values have an NHWC order.
  Graph lin;
  const ValueId x = lin.add_input("x", DType::kFloat32, Shape{1, 3}).value();
  const ValueId w = lin.add_constant("w", random_tensor(DType::kFloat32, Shape{5, 3}, 17)).value();
  UNIVK_EXPECT_OK(lin.add_output(lin.add_node_inferred("fc", "linear", {}, {x, w}).value()));
  const std::vector<NodeId> fc = {0};
  auto rank2 = lower_to_vgf(lin, fc, subgraph_io(lin, fc), BoundaryLayouts{{}, {OutputLayout::kNhwc}});
  ASSERT_FALSE(rank2.ok());
  EXPECT_NE(rank2.status().message().find("NHWC asked for the rank-2 value"), std::string::npos)
      << rank2.status().message();
}

}  // namespace
}  // namespace univk::compiler
