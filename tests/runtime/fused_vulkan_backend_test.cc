// Fused mode with the real VulkanBackend: the README's example chain split over three
// delegates plus a delegate fed by a constant, run fused and per_delegate on the built-in
// backends, both checked against univk::reference. Validation (with synchronization validation)
// must stay silent: that checks the barriers the method records between real delegates.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/reference/kernels.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/pipeline_cache.h"
#include "univk/vulkan/queue.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

using backends::ComputeGraph;
using backends::ComputeValue;

Attributes attrs(std::initializer_list<std::pair<const char*, AttrValue>> items) {
  Attributes a;
  for (const auto& [name, value] : items) a.set(name, value);
  return a;
}

// One op graph: input (shape `in`) -> op -> output (shape `out`).
std::vector<uint8_t> single_op(const char* op, Attributes a, const Shape& in, const Shape& out) {
  ComputeGraph g;
  g.values = {ComputeValue{DType::kFloat32, in, {}}, ComputeValue{DType::kFloat32, out, {}}};
  g.ops = {{op, std::move(a), {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  auto bytes = backends::serialize_compute_graph(g);
  UNIVK_EXPECT_OK(bytes);
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

// t -> t * t + 0.25 in one delegate (two ops).
std::vector<uint8_t> square_plus_quarter(const Shape& shape) {
  ComputeGraph g;
  g.values = {ComputeValue{DType::kFloat32, shape, {}}, ComputeValue{DType::kFloat32, shape, {}},
              ComputeValue{DType::kFloat32, shape, {}}};
  g.ops = {{"mul", {}, {0, 0}, {1}}, {"add", attrs({{"other", 0.25}}), {1}, {2}}};
  g.inputs = {0};
  g.outputs = {2};
  auto bytes = backends::serialize_compute_graph(g);
  UNIVK_EXPECT_OK(bytes);
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

HostTensor run_ref(const char* op, const Attributes& a, std::vector<HostTensor> in) {
  auto out = reference::run_op(op, a, in);
  UNIVK_EXPECT_OK(out) << op;
  return out.ok() ? (*out)[0] : HostTensor();
}

struct Example {
  std::shared_ptr<Program> program;
  HostTensor constant;
};

// x[1,3,8,8] -> avg_pool2d(2) -> p -> sigmoid -> s -> s*s+0.25 -> y ; constant k -> sigmoid -> ks
Example example() {
  const Shape in{1, 3, 8, 8}, pooled{1, 3, 4, 4};
  const Attributes pool = attrs({{"kernel_size", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}});
  Example e;
  e.constant = HostTensor(DType::kFloat32, pooled);
  for (int64_t i = 0; i < e.constant.numel(); ++i)
    e.constant.data<float>()[i] = 0.1f * static_cast<float>(i % 9) - 0.4f;

  ProgramBuilder b;
  const uint32_t d_pool = b.add_delegate("VulkanBackend", single_op("avg_pool2d", pool, in, pooled));
  const uint32_t d_sigmoid = b.add_delegate("VulkanBackend", single_op("sigmoid", {}, pooled, pooled));
  const uint32_t d_square = b.add_delegate("VulkanBackend", square_plus_quarter(pooled));
  MethodBuilder& m = b.add_method("forward");
  const ValueId x = m.add_value(DType::kFloat32, in);
  const ValueId p = m.add_value(DType::kFloat32, pooled);
  const ValueId s = m.add_value(DType::kFloat32, pooled);
  const ValueId y = m.add_value(DType::kFloat32, pooled);
  const ValueId k = m.add_constant(DType::kFloat32, pooled, e.constant.bytes());
  const ValueId ks = m.add_value(DType::kFloat32, pooled);
  m.add_delegate_call(d_pool, {x}, {p});
  m.add_delegate_call(d_sigmoid, {p}, {s});
  m.add_delegate_call(d_square, {s}, {y});
  m.add_delegate_call(d_sigmoid, {k}, {ks});
  m.set_inputs({x});
  m.set_outputs({y, ks});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  auto program = Program::load_bytes(std::move(bytes).value());
  UNIVK_EXPECT_OK(program);
  e.program = std::move(program).value();
  return e;
}

void expect_near(const HostTensor& got, const HostTensor& want, const char* what) {
  EXPECT_TRUE(::univk::testing::tensors_close(got, want, {1e-5, 0})) << what;
}

TEST(FusedVulkanBackend, ExampleChainFusedMatchesPerDelegateAndReference) {
  Example e = example();
  vulkan::DeviceRegistry registry;
  LoadOptions options;
  options.registry = &registry;
  auto fused = e.program->load_method("forward", options);
  UNIVK_ASSERT_OK(fused);
  ASSERT_EQ((*fused)->mode(), ExecutionMode::kFused);
  options.mode = ExecutionMode::kPerDelegate;
  auto per_delegate = e.program->load_method("forward", options);
  UNIVK_ASSERT_OK(per_delegate);

  const auto calls = (*fused)->delegate_calls();
  ASSERT_EQ(calls.size(), 4u);
  for (const auto& call : calls) {
    EXPECT_EQ(call.backend_id, "VulkanBackend");
    EXPECT_EQ(call.device, calls[0].device);
    EXPECT_EQ(call.queue, calls[0].queue);
  }
  EXPECT_EQ((*per_delegate)->delegate_calls()[0].device, calls[0].device);

  const Attributes pool = attrs({{"kernel_size", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}});
  const HostTensor ks = run_ref("sigmoid", {}, {e.constant});
  auto device = registry.find(vulkan::DeviceKey{});
  ASSERT_TRUE(device.has_value());
  for (uint32_t round = 0; round < 3; ++round) {
    const HostTensor x = ::univk::testing::random_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 11 + round, -3, 3);
    const HostTensor s = run_ref("sigmoid", {}, {run_ref("avg_pool2d", pool, {x})});
    const HostTensor y = run_ref("add", attrs({{"other", 0.25}}), {run_ref("mul", {}, {s, s})});

    const uint64_t before = (*device)->queue().last_submitted_value();
    auto got = (*fused)->execute(std::span<const HostTensor>(&x, 1));
    UNIVK_ASSERT_OK(got);
    EXPECT_EQ((*device)->queue().last_submitted_value() - before, 1u) << "one submission per fused execute";
    auto want = (*per_delegate)->execute(std::span<const HostTensor>(&x, 1));
    UNIVK_ASSERT_OK(want);
    expect_near((*got)[0], y, "fused y");
    expect_near((*got)[1], ks, "fused ks");
    expect_near((*want)[0], y, "per_delegate y");
    expect_near((*want)[1], ks, "per_delegate ks");
  }
}

// Every pipeline a method needs is created (and, on drivers that compile at the first
// dispatch, warmed up) by load_method: executes look up none, on a device whose pipeline cache
// started empty.
TEST(FusedVulkanBackend, PipelinesAreCompiledAtLoadNotAtTheFirstExecute) {
  for (ExecutionMode mode : {ExecutionMode::kFused, ExecutionMode::kPerDelegate}) {
    SCOPED_TRACE(std::string(execution_mode_name(mode)));
    Example e = example();
    vulkan::DeviceRegistry registry;  // a new device: nothing compiled yet
    LoadOptions options;
    options.registry = &registry;
    options.mode = mode;
    auto method = e.program->load_method("forward", options);
    UNIVK_ASSERT_OK(method);
    uint32_t compiled = 0;
    for (const DelegateCallInfo& call : (*method)->delegate_calls()) {
      compiled += call.pipelines_compiled;
      EXPECT_GT(call.load_ms, 0.0) << call.instruction;
    }
    EXPECT_GE(compiled, 3u) << "avg_pool2d, sigmoid and the elementwise pair need pipelines of their own";

    vulkan::PipelineLoadStats during_execute;
    {
      vulkan::PipelineLoadScope scope(during_execute, "execute");
      const HostTensor x = ::univk::testing::random_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 5, -3, 3);
      for (int run = 0; run < 2; ++run) UNIVK_ASSERT_OK((*method)->execute(std::span<const HostTensor>(&x, 1)));
    }
    EXPECT_EQ(during_execute.looked_up, 0u);
    EXPECT_EQ(during_execute.created, 0u);
  }
}

}  // namespace
}  // namespace univk::runtime
