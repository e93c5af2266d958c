// The conformance suite (label `conformance`): every case of the table (cases.cc) on every
// built backend that claims it, against univk::reference::run_op (the quantized ops: against
// the TOSA reference on their TOSA lowering), in the style of ggml's test-backend-ops.
//
// Each case becomes a one-node univk::compiler::Graph (constant operands are graph constants,
// the others graph inputs). For each target:
//   VulkanBackend, VgfBackend  the compiler's claim (vulkan_supports / vgf_supports) decides;
//                              the node is pinned to the backend, the program compiled, loaded
//                              with runtime::Program and executed per_delegate and fused;
//   VgfLoweringOnCpu           the VgfBackend's TOSA lowering evaluated with
//                              reference::run_tosa (no GPU): tells a lowering bug from a
//                              backend bug (skipped for the quantized ops, whose oracle it is).
// A backend may decline a case only with Unsupported (the test is skipped with the reason, and
// the summary at the end lists every decline); any other claim error on a case the reference
// accepts is a failure. Test names: <Op>/<Target>.Run/<case>, e.g.
// Conv2d/VgfBackend.Run/stride2_pad1_groups2.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cases.h"
#include "univk/spirv/tosa_graph_reference.h"
#include "univk/backends/vulkan/compute_graph.h"
#include "univk/compiler/compiler.h"
#include "univk/compiler/vgf_lowering.h"
#include "univk/compiler/vulkan_lowering.h"
#include "univk/reference/kernels.h"
#include "univk/runtime/builtin_backends.h"
#include "univk/runtime/program.h"
#include "univk/vulkan/registry.h"
#include "univk_test.h"

namespace univk::conformance {
namespace {

using compiler::Graph;
using compiler::NodeId;
using compiler::ValueId;

constexpr const char* kVulkanBackend = "VulkanBackend";
constexpr const char* kVgfBackend = "VgfBackend";
constexpr const char* kVgfLoweringOnCpu = "VgfLoweringOnCpu";

// ---------------------------------------------------------------------------------------------
// One case, instantiated: inputs, the reference result and the one-node graph.

uint32_t seed_of(const OpCase& c) {
  uint32_t h = 2166136261u;  // FNV-1a of "op/name": each case has its own stable inputs
  for (char ch : c.op + "/" + c.name) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
  return h;
}

struct Instance {
  std::vector<HostTensor> operands;      // every operand, run_op order
  std::vector<HostTensor> graph_inputs;  // the non-constant ones, graph input order
  HostTensor expected;
  Graph graph;
};

// The TOSA reference's result for the node's TOSA lowering.
Result<HostTensor> run_tosa_lowering(const Graph& graph, const std::vector<HostTensor>& graph_inputs) {
  const std::vector<NodeId> nodes = {0};
  const compiler::SubgraphIO io = compiler::subgraph_io(graph, nodes);
  UNIVK_ASSIGN_OR_RETURN(spirv::TosaGraph g, compiler::lower_to_tosa(graph, nodes, io));
  UNIVK_ASSIGN_OR_RETURN(std::vector<HostTensor> out, spirv::run_on_reference(g, graph_inputs));
  if (out.size() != 1) return invalid_argument("the TOSA lowering returns " + std::to_string(out.size()) + " tensors");
  return std::move(out[0]);
}

Result<Instance> instantiate(const OpCase& c) {
  Instance inst;
  uint32_t seed = seed_of(c);
  for (const Operand& o : c.inputs) inst.operands.push_back(testing::random_tensor(o.dtype, o.shape, seed++, o.range));
  if (c.result) {
    inst.expected = HostTensor(c.result->dtype, c.result->shape);  // its dtype and shape until the oracle runs
  } else {
    auto expected = reference::run_op(c.op, c.attrs, inst.operands);
    if (!expected.ok()) return expected.status().with_context("the reference rejects the case");
    if (expected->size() != 1)
      return invalid_argument("the reference returns " + std::to_string(expected->size()) + " tensors");
    inst.expected = std::move((*expected)[0]);
  }
  std::vector<ValueId> ids;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    if (c.inputs[i].constant) {
      UNIVK_ASSIGN_OR_RETURN(ValueId id, inst.graph.add_constant(name, inst.operands[i]));
      ids.push_back(id);
    } else {
      UNIVK_ASSIGN_OR_RETURN(ValueId id,
                             inst.graph.add_input(name, inst.operands[i].dtype(), inst.operands[i].shape()));
      ids.push_back(id);
      inst.graph_inputs.push_back(inst.operands[i]);
    }
  }
  UNIVK_ASSIGN_OR_RETURN(ValueId y,
                         inst.graph.add_node("y", c.op, c.attrs, ids, inst.expected.dtype(), inst.expected.shape()));
  UNIVK_RETURN_IF_ERROR(inst.graph.add_output(y));
  if (c.result) {
    auto expected = run_tosa_lowering(inst.graph, inst.graph_inputs);
    if (!expected.ok()) return expected.status().with_context("the TOSA reference rejects the case");
    inst.expected = std::move(*expected);
  }
  return inst;
}

// The claim of a target on the one node: ok, or why the target declines it.
Status claim(const std::string& target, const Graph& graph) {
  const compiler::Node& node = graph.node(0);
  if (target == kVulkanBackend) return compiler::vulkan_supports(graph, node);
  return compiler::vgf_supports(graph, node);  // VgfBackend and its lowering on the CPU
}

// ---------------------------------------------------------------------------------------------
// Declines and runs, printed at the end of the test program.

class Summary : public ::testing::Environment {
 public:
  static Summary& get() {
    static Summary* summary = [] {
      auto* s = new Summary();  // owned by gtest once registered
      ::testing::AddGlobalTestEnvironment(s);
      return s;
    }();
    return *summary;
  }
  void ran(const std::string& target) {
    std::lock_guard lock(mutex_);
    ++ran_[target];
  }
  void declined(const std::string& target, const std::string& test, const std::string& reason) {
    std::lock_guard lock(mutex_);
    declines_[target].push_back(test + ": " + reason);
  }
  void TearDown() override {
    std::lock_guard lock(mutex_);
    std::set<std::string> targets;
    for (const auto& [t, n] : ran_) targets.insert(t);
    for (const auto& [t, d] : declines_) targets.insert(t);
    for (const std::string& t : targets) {
      std::printf("[conformance] %s: %d cases run, %zu declined\n", t.c_str(), ran_[t], declines_[t].size());
      for (const std::string& d : declines_[t]) std::printf("[conformance]   declined %s\n", d.c_str());
    }
  }

 private:
  std::mutex mutex_;
  std::map<std::string, int> ran_;
  std::map<std::string, std::vector<std::string>> declines_;
};

// ---------------------------------------------------------------------------------------------
// Devices: one private registry for the test program, one context per backend (their
// requirements differ), pinned after first use so that device creation with the validation
// layer happens once per backend, and released when the test program's environment is torn
// down (before static destruction).

class Devices : public ::testing::Environment {
 public:
  static Devices& get() {
    static Devices* devices = [] {
      auto* d = new Devices();  // owned by gtest once registered
      ::testing::AddGlobalTestEnvironment(d);
      return d;
    }();
    return *devices;
  }
  vulkan::DeviceRegistry* registry() {
    if (!registry_) registry_ = std::make_unique<vulkan::DeviceRegistry>();
    return registry_.get();
  }
  void keep(const vulkan::DeviceKey& key) {
    if (pinned_.insert(key).second) (void)registry()->pin(key);
  }
  void TearDown() override {
    pinned_.clear();
    registry_.reset();
  }

 private:
  std::unique_ptr<vulkan::DeviceRegistry> registry_;
  std::set<vulkan::DeviceKey> pinned_;
};

// ---------------------------------------------------------------------------------------------
// The targets.

// Evaluates the TOSA graph the VgfBackend lowering makes of the node with the TOSA reference.
void run_lowering_on_cpu(const OpCase& c, const Instance& inst, testing::Tolerance tol) {
  if (c.result) GTEST_SKIP() << "the TOSA lowering on the CPU is this case's oracle";
  UNIVK_ASSIGN_OR_FAIL(HostTensor out, run_tosa_lowering(inst.graph, inst.graph_inputs));
  EXPECT_TRUE(testing::tensors_close(out, inst.expected, tol)) << c.op << " " << c.name;
}

// Compiles the node pinned to `backend`, loads the program and runs it fused and, when
// `per_delegate_too`, per_delegate as well.
void run_on_backend(const std::string& backend, const Instance& inst, testing::Tolerance tol, bool per_delegate_too) {
  if (runtime::builtin_backends().find(backend) == nullptr) GTEST_SKIP() << backend << " is not built";
  compiler::CompileOptions options;
  options.partition.order = {backend};
  options.partition.pins = {{"y", backend}};
  options.partition.require_no_cpu_fallback = true;
  UNIVK_ASSIGN_OR_FAIL(compiler::CompiledProgram compiled, compiler::compile_program(inst.graph, options));
  ASSERT_EQ(compiled.calls.size(), 1u);
  ASSERT_EQ(compiled.calls[0].backend, backend);
  UNIVK_ASSIGN_OR_FAIL(std::shared_ptr<runtime::Program> program,
                       runtime::Program::load_bytes(std::move(compiled.bytes)));
  std::vector<runtime::ExecutionMode> modes = {runtime::ExecutionMode::kFused};
  if (per_delegate_too) modes.push_back(runtime::ExecutionMode::kPerDelegate);
  for (runtime::ExecutionMode mode : modes) {
    SCOPED_TRACE(std::string(runtime::execution_mode_name(mode)));
    runtime::LoadOptions load;
    load.mode = mode;
    load.require_no_cpu_fallback = true;
    load.registry = Devices::get().registry();
    load.backend_options[backend]["vulkan_shared_context_name"] = "conformance_" + backend;
    // conformance_vgf_native runs the VgfBackend's cases with vgf_graph_path=native
    // (docs/VGF_BACKEND.md, "Native path tests").
    const char* graph_path = std::getenv("UNIVK_TEST_VGF_GRAPH_PATH");
    if (graph_path != nullptr && backend == kVgfBackend) {
      // An int64 result leaves the graph through a CAST to int64, a tensor type the data-graph
      // extension has no format for: such graphs run on the lowered path only.
      if (std::string_view(graph_path) == "native" && inst.expected.dtype() == DType::kInt64)
        GTEST_SKIP() << "an int64 result (a CAST to int64 at the graph output) has no native tensor format";
      load.backend_options[backend]["vgf_graph_path"] = graph_path;
    }
    UNIVK_ASSIGN_OR_FAIL(std::unique_ptr<runtime::Method> method, program->load_method("forward", load));
    ASSERT_EQ(method->mode(), mode);
    for (const runtime::DelegateCallInfo& call : method->delegate_calls()) Devices::get().keep(call.device_key);
    UNIVK_ASSIGN_OR_FAIL(std::vector<HostTensor> out, method->execute(inst.graph_inputs));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(testing::tensors_close(out[0], inst.expected, tol));
  }
}

// The first case of each op also runs per_delegate; the others run fused only (the per_delegate
// path is the same for every op: upload, execute, download, and loading a VgfBackend delegate
// twice doubles its pipeline creation, the suite's main cost on lavapipe).
bool is_first_case_of_op(const OpCase& c) {
  for (const OpCase& other : all_cases()) {
    if (other.op == c.op) return other.name == c.name;
  }
  return false;
}

class ConformanceTest : public ::testing::TestWithParam<OpCase> {
 protected:
  void run(const std::string& target) {
    const OpCase& c = GetParam();
    Summary::get();  // registered before the first test ends so that it prints at the end
    UNIVK_ASSIGN_OR_FAIL(Instance inst, instantiate(c));
    const std::optional<testing::Tolerance> tol = tolerance_for(c.op, inst.expected.dtype());
    ASSERT_TRUE(tol) << "no tolerance row for " << c.op << " " << dtype_name(inst.expected.dtype());
    const Status claimed = claim(target, inst.graph);
    if (!claimed.ok()) {
      const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
      ASSERT_EQ(claimed.code(), StatusCode::kUnsupported)
          << target << " refuses a case the reference accepts with " << claimed.to_string();
      Summary::get().declined(target, std::string(info->test_suite_name()) + "." + info->name(), claimed.message());
      GTEST_SKIP() << target << " declines: " << claimed.message();
    }
    Summary::get().ran(target);
    run_target(target, c, inst, *tol);
  }

  static void run_target(const std::string& target, const OpCase& c, const Instance& inst, testing::Tolerance tol) {
    if (target == kVgfLoweringOnCpu) return run_lowering_on_cpu(c, inst, tol);
    run_on_backend(target, inst, tol, is_first_case_of_op(c));
  }
};

class VulkanBackend : public ConformanceTest {};
class VgfBackend : public ConformanceTest {};
class VgfLoweringOnCpu : public ConformanceTest {};
TEST_P(VulkanBackend, Run) { run(kVulkanBackend); }
TEST_P(VgfBackend, Run) { run(kVgfBackend); }
TEST_P(VgfLoweringOnCpu, Run) { run(kVgfLoweringOnCpu); }

std::vector<OpCase> cases_of(const std::string& op) {
  std::vector<OpCase> out;
  for (const OpCase& c : all_cases()) {
    if (c.op == op) out.push_back(c);
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; }

// The ops that have an instantiation below (checked against the table by a test).
std::set<std::string>& instantiated_ops() {
  static std::set<std::string> ops;
  return ops;
}
bool instantiate_op(const char* op) { return instantiated_ops().insert(op).second; }

#define UNIVK_CONFORMANCE_OP(Name, op)                                                         \
  [[maybe_unused]] const bool kInstantiated##Name = instantiate_op(op);                        \
  INSTANTIATE_TEST_SUITE_P(Name, VulkanBackend, ::testing::ValuesIn(cases_of(op)), case_name); \
  INSTANTIATE_TEST_SUITE_P(Name, VgfBackend, ::testing::ValuesIn(cases_of(op)), case_name);    \
  INSTANTIATE_TEST_SUITE_P(Name, VgfLoweringOnCpu, ::testing::ValuesIn(cases_of(op)), case_name)

UNIVK_CONFORMANCE_OP(Sigmoid, "sigmoid");
UNIVK_CONFORMANCE_OP(Tanh, "tanh");
UNIVK_CONFORMANCE_OP(Relu, "relu");
UNIVK_CONFORMANCE_OP(Relu6, "relu6");
UNIVK_CONFORMANCE_OP(Hardtanh, "hardtanh");
UNIVK_CONFORMANCE_OP(Clamp, "clamp");
UNIVK_CONFORMANCE_OP(Gelu, "gelu");
UNIVK_CONFORMANCE_OP(Silu, "silu");
UNIVK_CONFORMANCE_OP(Hardswish, "hardswish");
UNIVK_CONFORMANCE_OP(Hardsigmoid, "hardsigmoid");
UNIVK_CONFORMANCE_OP(Exp, "exp");
UNIVK_CONFORMANCE_OP(Log, "log");
UNIVK_CONFORMANCE_OP(Neg, "neg");
UNIVK_CONFORMANCE_OP(Abs, "abs");
UNIVK_CONFORMANCE_OP(Sqrt, "sqrt");
UNIVK_CONFORMANCE_OP(Rsqrt, "rsqrt");
UNIVK_CONFORMANCE_OP(Reciprocal, "reciprocal");
UNIVK_CONFORMANCE_OP(Floor, "floor");
UNIVK_CONFORMANCE_OP(Ceil, "ceil");
UNIVK_CONFORMANCE_OP(Sin, "sin");
UNIVK_CONFORMANCE_OP(Cos, "cos");
UNIVK_CONFORMANCE_OP(Add, "add");
UNIVK_CONFORMANCE_OP(Sub, "sub");
UNIVK_CONFORMANCE_OP(Mul, "mul");
UNIVK_CONFORMANCE_OP(Div, "div");
UNIVK_CONFORMANCE_OP(Maximum, "maximum");
UNIVK_CONFORMANCE_OP(Minimum, "minimum");
UNIVK_CONFORMANCE_OP(Pow, "pow");
UNIVK_CONFORMANCE_OP(AvgPool2d, "avg_pool2d");
UNIVK_CONFORMANCE_OP(MaxPool2d, "max_pool2d");
UNIVK_CONFORMANCE_OP(AdaptiveAvgPool2d, "adaptive_avg_pool2d");
UNIVK_CONFORMANCE_OP(AdaptiveMaxPool2d, "adaptive_max_pool2d");
UNIVK_CONFORMANCE_OP(UpsampleNearest2d, "upsample_nearest2d");
UNIVK_CONFORMANCE_OP(UpsampleBilinear2d, "upsample_bilinear2d");
UNIVK_CONFORMANCE_OP(Conv2d, "conv2d");
UNIVK_CONFORMANCE_OP(ConvTranspose2d, "conv_transpose2d");
UNIVK_CONFORMANCE_OP(Linear, "linear");
UNIVK_CONFORMANCE_OP(Matmul, "matmul");
UNIVK_CONFORMANCE_OP(Bmm, "bmm");
UNIVK_CONFORMANCE_OP(Addmm, "addmm");
UNIVK_CONFORMANCE_OP(Softmax, "softmax");
UNIVK_CONFORMANCE_OP(LogSoftmax, "log_softmax");
UNIVK_CONFORMANCE_OP(Sum, "sum");
UNIVK_CONFORMANCE_OP(Mean, "mean");
UNIVK_CONFORMANCE_OP(Amax, "amax");
UNIVK_CONFORMANCE_OP(Amin, "amin");
UNIVK_CONFORMANCE_OP(Prod, "prod");
UNIVK_CONFORMANCE_OP(All, "all");
UNIVK_CONFORMANCE_OP(Any, "any");
UNIVK_CONFORMANCE_OP(LayerNorm, "layer_norm");
UNIVK_CONFORMANCE_OP(Eq, "eq");
UNIVK_CONFORMANCE_OP(Ne, "ne");
UNIVK_CONFORMANCE_OP(Lt, "lt");
UNIVK_CONFORMANCE_OP(Le, "le");
UNIVK_CONFORMANCE_OP(Gt, "gt");
UNIVK_CONFORMANCE_OP(Ge, "ge");
UNIVK_CONFORMANCE_OP(LogicalAnd, "logical_and");
UNIVK_CONFORMANCE_OP(LogicalOr, "logical_or");
UNIVK_CONFORMANCE_OP(LogicalXor, "logical_xor");
UNIVK_CONFORMANCE_OP(LogicalNot, "logical_not");
UNIVK_CONFORMANCE_OP(Where, "where");
UNIVK_CONFORMANCE_OP(MaskedFill, "masked_fill");
UNIVK_CONFORMANCE_OP(IndexSelect, "index_select");
UNIVK_CONFORMANCE_OP(BitwiseAnd, "bitwise_and");
UNIVK_CONFORMANCE_OP(BitwiseOr, "bitwise_or");
UNIVK_CONFORMANCE_OP(BitwiseXor, "bitwise_xor");
UNIVK_CONFORMANCE_OP(BitwiseNot, "bitwise_not");
UNIVK_CONFORMANCE_OP(BitwiseLeftShift, "bitwise_left_shift");
UNIVK_CONFORMANCE_OP(BitwiseRightShift, "bitwise_right_shift");
UNIVK_CONFORMANCE_OP(FloorDivide, "floor_divide");
UNIVK_CONFORMANCE_OP(TruncDivide, "trunc_divide");
UNIVK_CONFORMANCE_OP(Argmax, "argmax");
UNIVK_CONFORMANCE_OP(Argmin, "argmin");
UNIVK_CONFORMANCE_OP(Cumsum, "cumsum");
UNIVK_CONFORMANCE_OP(Flip, "flip");
UNIVK_CONFORMANCE_OP(Conv3d, "conv3d");
UNIVK_CONFORMANCE_OP(BatchNorm, "batch_norm");
UNIVK_CONFORMANCE_OP(View, "view");
UNIVK_CONFORMANCE_OP(Reshape, "reshape");
UNIVK_CONFORMANCE_OP(Flatten, "flatten");
UNIVK_CONFORMANCE_OP(Squeeze, "squeeze");
UNIVK_CONFORMANCE_OP(Unsqueeze, "unsqueeze");
UNIVK_CONFORMANCE_OP(Contiguous, "contiguous");
UNIVK_CONFORMANCE_OP(Permute, "permute");
UNIVK_CONFORMANCE_OP(Transpose, "transpose");
UNIVK_CONFORMANCE_OP(Cat, "cat");
UNIVK_CONFORMANCE_OP(Slice, "slice");
UNIVK_CONFORMANCE_OP(Pad, "pad");
UNIVK_CONFORMANCE_OP(QuantizePerTensor, "quantize_per_tensor");
UNIVK_CONFORMANCE_OP(DequantizePerTensor, "dequantize_per_tensor");
UNIVK_CONFORMANCE_OP(QuantizedConv2d, "quantized_conv2d");
UNIVK_CONFORMANCE_OP(QuantizedLinear, "quantized_linear");
UNIVK_CONFORMANCE_OP(Requantize, "requantize");
UNIVK_CONFORMANCE_OP(QuantizedAdd, "quantized_add");
UNIVK_CONFORMANCE_OP(QuantizedMul, "quantized_mul");
UNIVK_CONFORMANCE_OP(QuantizedTable, "quantized_table");

// ---------------------------------------------------------------------------------------------
// Coverage: the table against what the reference and the backends know.

// Every op of a backend's list has a case the backend's claim accepts.
void expect_every_claimed_op_runs(const std::string& target, const std::vector<std::string>& claimed_ops) {
  std::set<std::string> accepted;
  for (const OpCase& c : all_cases()) {
    auto inst = instantiate(c);
    if (inst.ok() && claim(target, inst->graph).ok()) accepted.insert(c.op);
  }
  for (const std::string& op : claimed_ops) {
    EXPECT_TRUE(accepted.count(op)) << target << " claims '" << op << "' but no conformance case runs it there";
  }
}

TEST(ConformanceCoverage, EveryVulkanBackendOpHasACase) {
  expect_every_claimed_op_runs(kVulkanBackend, backends::vulkan_backend_ops());
}

TEST(ConformanceCoverage, EveryVgfBackendOpHasACase) {
  expect_every_claimed_op_runs(kVgfBackend, compiler::vgf_lowered_ops());
}

TEST(ConformanceCoverage, EveryReferenceOpHasAnInstantiatedCase) {
  std::set<std::string> in_table;
  for (const OpCase& c : all_cases()) in_table.insert(c.op);
  for (const std::string& op : reference::supported_ops()) {
    EXPECT_TRUE(in_table.count(op)) << "reference op '" << op << "' has no conformance case";
  }
  for (const std::string& op : in_table) {
    EXPECT_TRUE(instantiated_ops().count(op)) << "'" << op << "' has cases but no UNIVK_CONFORMANCE_OP line";
  }
}

TEST(ConformanceCoverage, CasesAreWellFormed) {
  std::set<std::string> names;
  for (const OpCase& c : all_cases()) {
    EXPECT_TRUE(names.insert(c.op + "/" + c.name).second) << "duplicate case " << c.op << "/" << c.name;
    bool valid = !c.name.empty();
    for (char ch : c.name) valid &= std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    EXPECT_TRUE(valid) << "case name '" << c.name << "' must be [A-Za-z0-9_]+";
    auto inst = instantiate(c);
    UNIVK_EXPECT_OK(inst) << c.op << "/" << c.name;
    if (inst.ok()) {
      EXPECT_TRUE(tolerance_for(c.op, inst->expected.dtype()))
          << "no tolerance row for " << c.op << " " << dtype_name(inst->expected.dtype());
    }
  }
  std::printf("[conformance] %zu cases of %zu ops\n", all_cases().size(), instantiated_ops().size());
}

}  // namespace
}  // namespace univk::conformance
