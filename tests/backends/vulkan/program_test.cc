// Issue 3's program test: one method with two VulkanBackend delegates and a CPU KernelCall
// between them, run per_delegate. Both delegates share one VkDevice and VkQueue (checked through
// the method's delegate-call info and the device registry); with
// vulkan_shared_context_mode=disabled each gets a private device; require_no_cpu_fallback
// rejects the method naming the CPU operator. Also: the same two delegates without the CPU
// kernel run fused (auto mode) with the same results.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "univk/reference/kernels.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk/vulkan/queue.h"
#include "univk_test.h"

namespace univk::backends::testing {
namespace {

const Shape kIn{1, 3, 8, 8};
const Shape kMid{1, 3, 4, 4};

Attributes attr(const char* name, AttrValue v) {
  Attributes a;
  a.set(name, std::move(v));
  return a;
}

HostTensor scale_constant() {
  HostTensor c(DType::kFloat32, Shape{3, 1, 1});
  c.data<float>()[0] = 0.5f, c.data<float>()[1] = -1.0f, c.data<float>()[2] = 2.0f;
  return c;
}

// Delegate A: x -> avg_pool2d(2). Delegate B: t -> sigmoid -> mul by a per-channel constant.
std::vector<uint8_t> payload_a() {
  ComputeGraph g;
  g.values = {value_of(HostTensor(DType::kFloat32, kIn), false), value_of(HostTensor(DType::kFloat32, kMid), false)};
  g.ops = {{"avg_pool2d", attr("kernel_size", int64_t{2}), {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  return serialize_compute_graph(g).value();
}

std::vector<uint8_t> payload_b() {
  ComputeGraph g;
  g.values = {value_of(HostTensor(DType::kFloat32, kMid), false), value_of(HostTensor(DType::kFloat32, kMid), false),
              value_of(scale_constant(), true), value_of(HostTensor(DType::kFloat32, kMid), false)};
  g.ops = {{"sigmoid", {}, {0}, {1}}, {"mul", {}, {1, 2}, {3}}};
  g.inputs = {0};
  g.outputs = {3};
  return serialize_compute_graph(g).value();
}

// forward(x) = B(gelu(A(x))) with gelu on the CPU, or B(A(x)) without it.
std::shared_ptr<runtime::Program> make_program(bool with_cpu_kernel) {
  runtime::ProgramBuilder b;
  const uint32_t a = b.add_delegate("VulkanBackend", payload_a());
  const uint32_t d = b.add_delegate("VulkanBackend", payload_b());
  runtime::MethodBuilder& m = b.add_method("forward");
  const runtime::ValueId x = m.add_value(DType::kFloat32, kIn);
  const runtime::ValueId pooled = m.add_value(DType::kFloat32, kMid);
  runtime::ValueId b_in = pooled;
  m.add_delegate_call(a, {x}, {pooled});
  if (with_cpu_kernel) {
    b_in = m.add_value(DType::kFloat32, kMid);
    m.add_kernel_call("gelu", {}, {pooled}, {b_in});
  }
  const runtime::ValueId out = m.add_value(DType::kFloat32, kMid);
  m.add_delegate_call(d, {b_in}, {out});
  m.set_inputs({x});
  m.set_outputs({out});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  if (!bytes.ok()) return nullptr;
  auto program = runtime::Program::load_bytes(std::move(bytes).value());
  UNIVK_EXPECT_OK(program);
  return program.ok() ? *program : nullptr;
}

HostTensor expected(const HostTensor& x, bool with_cpu_kernel) {
  std::vector<HostTensor> t = {x};
  t = reference::run_op("avg_pool2d", attr("kernel_size", int64_t{2}), t).value();
  if (with_cpu_kernel) t = reference::run_op("gelu", {}, t).value();
  t = reference::run_op("sigmoid", {}, t).value();
  t.push_back(scale_constant());
  return reference::run_op("mul", {}, t).value()[0];
}

HostTensor random_input(uint32_t seed) { return random_tensor(DType::kFloat32, kIn, seed, -3, 3); }

TEST(VulkanBackendProgram, TwoDelegatesAndACpuKernelShareOneDevice) {
  auto program = make_program(true);
  ASSERT_TRUE(program);
  univk::vulkan::DeviceRegistry registry;
  runtime::LoadOptions options;
  options.registry = &registry;
  options.mode = runtime::ExecutionMode::kPerDelegate;
  auto method = program->load_method("forward", options);
  UNIVK_ASSERT_OK(method);
  EXPECT_EQ((*method)->mode(), runtime::ExecutionMode::kPerDelegate);
  for (uint32_t seed : {1u, 2u}) {
    const HostTensor x = random_input(seed);
    auto out = (*method)->execute({&x, 1});
    UNIVK_ASSERT_OK(out);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_TRUE(tensors_close((*out)[0], expected(x, true), {1e-5, 1e-5}));
  }
  const auto instructions = (*method)->instructions();
  ASSERT_EQ(instructions.size(), 3u);
  EXPECT_TRUE(instructions[1].on_cpu);
  EXPECT_EQ(instructions[1].name, "gelu");

  const auto calls = (*method)->delegate_calls();
  ASSERT_EQ(calls.size(), 2u);
  for (const auto& call : calls) {
    EXPECT_EQ(call.backend_id, "VulkanBackend");
    EXPECT_FALSE(call.standalone_device);
    EXPECT_NE(call.device, VK_NULL_HANDLE);
    EXPECT_EQ(call.stats.submissions, 1u);
    EXPECT_GE(call.stats.dispatches, 1u);
  }
  EXPECT_EQ(calls[0].device, calls[1].device);
  EXPECT_EQ(calls[0].queue, calls[1].queue);
  EXPECT_EQ(calls[0].device_key, calls[1].device_key);
  // The registry holds exactly that device under the delegates' key, created once.
  auto lease = registry.find(calls[0].device_key);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ((*lease)->handle(), calls[0].device);
  EXPECT_EQ((*lease)->queue().handle(), calls[0].queue);
  EXPECT_EQ(registry.created_count(), 1u);
}

TEST(VulkanBackendProgram, DisabledSharingGivesEachDelegateAPrivateDevice) {
  auto program = make_program(true);
  ASSERT_TRUE(program);
  univk::vulkan::DeviceRegistry registry;
  runtime::LoadOptions options;
  options.registry = &registry;
  options.mode = runtime::ExecutionMode::kPerDelegate;
  options.backend_options["VulkanBackend"]["vulkan_shared_context_mode"] = "disabled";
  auto method = program->load_method("forward", options);
  UNIVK_ASSERT_OK(method);
  const HostTensor x = random_input(3);
  auto out = (*method)->execute({&x, 1});
  UNIVK_ASSERT_OK(out);
  EXPECT_TRUE(tensors_close((*out)[0], expected(x, true), {1e-5, 1e-5}));
  const auto calls = (*method)->delegate_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[0].standalone_device);
  EXPECT_TRUE(calls[1].standalone_device);
  EXPECT_NE(calls[0].device, calls[1].device);
  EXPECT_NE(calls[0].queue, calls[1].queue);
  // Two devices were created, and neither is registered under the key: nobody can share them.
  EXPECT_EQ(registry.created_count(), 2u);
  EXPECT_FALSE(registry.find(calls[0].device_key).has_value());
}

TEST(VulkanBackendProgram, RequireNoCpuFallbackNamesTheOperator) {
  auto program = make_program(true);
  ASSERT_TRUE(program);
  univk::vulkan::DeviceRegistry registry;
  runtime::LoadOptions options;
  options.registry = &registry;
  options.require_no_cpu_fallback = true;
  auto method = program->load_method("forward", options);
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.status().message().find("gelu"), std::string::npos) << method.status().message();
}

TEST(VulkanBackendProgram, WrongInputsAreRejected) {
  auto program = make_program(true);
  ASSERT_TRUE(program);
  univk::vulkan::DeviceRegistry registry;
  runtime::LoadOptions options;
  options.registry = &registry;
  auto method = program->load_method("forward", options);
  UNIVK_ASSERT_OK(method);
  EXPECT_FALSE((*method)->execute({}).ok());
  const HostTensor wrong_shape(DType::kFloat32, Shape{1, 3, 8, 9});
  auto r = (*method)->execute({&wrong_shape, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[1,3,8,9]"), std::string::npos) << r.status().message();
  const HostTensor wrong_dtype(DType::kInt32, kIn);
  EXPECT_FALSE((*method)->execute({&wrong_dtype, 1}).ok());
}

TEST(VulkanBackendProgram, WithoutCpuKernelRunsFusedWithTheSameResults) {
  auto program = make_program(false);
  ASSERT_TRUE(program);
  univk::vulkan::DeviceRegistry registry;
  runtime::LoadOptions options;
  options.registry = &registry;
  options.require_no_cpu_fallback = true;
  auto fused = program->load_method("forward", options);
  UNIVK_ASSERT_OK(fused);
  EXPECT_EQ((*fused)->mode(), runtime::ExecutionMode::kFused);
  options.mode = runtime::ExecutionMode::kPerDelegate;
  auto per_delegate = program->load_method("forward", options);
  UNIVK_ASSERT_OK(per_delegate);
  for (uint32_t seed : {4u, 5u}) {
    const HostTensor x = random_input(seed);
    auto a = (*fused)->execute({&x, 1});
    auto b = (*per_delegate)->execute({&x, 1});
    UNIVK_ASSERT_OK(a);
    UNIVK_ASSERT_OK(b);
    EXPECT_TRUE(tensors_close((*a)[0], (*b)[0], {0, 0}));
    EXPECT_TRUE(tensors_close((*a)[0], expected(x, false), {1e-5, 1e-5}));
  }
  const auto calls = (*fused)->delegate_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].stats.dispatches, 1u);
  EXPECT_EQ(calls[1].stats.dispatches, 2u);
  EXPECT_EQ(calls[1].stats.barriers, 1u);  // sigmoid -> mul
}

}  // namespace
}  // namespace univk::backends::testing
