// Methods with delegates of the fake test backend on real Vulkan devices (lavapipe in CI):
// requirement merging in both delegate orders, device key grouping, `disabled` mode, CPU
// fallback between delegates, destroy order. Devices come from a registry owned by each test.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fake_backend.h"
#include "fake_backend_fixture.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk/vulkan/device.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

using testing::affine_payload;
using testing::FakeBackend;

struct DelegateDef {
  std::string backend;
  float scale;
  float bias;
  std::string required_feature;
};

constexpr int64_t kCount = 2 * 3 * 7;

// x -> delegate 0 -> [relu on the CPU] -> delegate 1 -> y
std::shared_ptr<Program> chain(const std::vector<DelegateDef>& defs, bool cpu_relu_between) {
  ProgramBuilder b;
  std::vector<uint32_t> delegates;
  for (const DelegateDef& def : defs) {
    CompileSpecs specs;
    if (!def.required_feature.empty()) {
      specs["required_feature"] = {def.required_feature.begin(), def.required_feature.end()};
    }
    delegates.push_back(b.add_delegate(def.backend, affine_payload(def.scale, def.bias), specs));
  }
  MethodBuilder& m = b.add_method("forward");
  const Shape shape{2, 3, 7};
  ValueId current = m.add_value(DType::kFloat32, shape);
  m.set_inputs({current});
  for (size_t i = 0; i < delegates.size(); ++i) {
    if (i > 0 && cpu_relu_between) {
      ValueId relu = m.add_value(DType::kFloat32, shape);
      m.add_kernel_call("relu", {}, {current}, {relu});
      current = relu;
    }
    ValueId next = m.add_value(DType::kFloat32, shape);
    m.add_delegate_call(delegates[i], {current}, {next});
    current = next;
  }
  m.set_outputs({current});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  auto program = Program::load_bytes(std::move(bytes).value());
  UNIVK_EXPECT_OK(program);
  return std::move(program).value();
}

HostTensor input() { return ::univk::testing::random_tensor(DType::kFloat32, Shape{2, 3, 7}, 5, -1, 1); }

using MethodDevice = testing::FakeBackendsTest;

TEST_F(MethodDevice, PerDelegateChainWithCpuKernelBetween) {
  auto program = chain({{"FakeA", 2.f, -0.5f, ""}, {"FakeB", 3.f, 1.f, ""}}, /*cpu_relu_between=*/true);
  options_.mode = ExecutionMode::kPerDelegate;
  auto method = program->load_method("forward", options_);
  UNIVK_ASSERT_OK(method);
  EXPECT_EQ((*method)->mode(), ExecutionMode::kPerDelegate);

  const HostTensor x = input();
  auto y = (*method)->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_ASSERT_OK(y);
  for (int64_t i = 0; i < kCount; ++i) {
    const float expected = std::max(x.data<float>()[i] * 2.f - 0.5f, 0.f) * 3.f + 1.f;
    EXPECT_FLOAT_EQ((*y)[0].data<float>()[i], expected) << i;
  }

  const auto calls = (*method)->delegate_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].instruction, 0u);
  EXPECT_EQ(calls[1].instruction, 2u);
  EXPECT_EQ(calls[0].backend_id, "FakeA");
  EXPECT_NE(calls[0].device, VK_NULL_HANDLE);
  EXPECT_EQ(calls[0].device, calls[1].device);
  EXPECT_EQ(calls[0].queue, calls[1].queue);
  EXPECT_FALSE(calls[0].standalone_device);
  EXPECT_EQ(calls[0].device_name(), calls[0].device_key.to_string());
  EXPECT_EQ(calls[1].stats.bytes_downloaded, static_cast<uint64_t>(kCount * 4));
  // The shared device is the registry's entry for the default key.
  auto registered = registry_->find(vulkan::DeviceKey{});
  ASSERT_TRUE(registered.has_value());
  EXPECT_EQ((*registered)->handle(), calls[0].device);
  EXPECT_TRUE((*method)->instructions()[1].on_cpu);
  EXPECT_FALSE((*method)->instructions()[0].on_cpu);

  // The same program refuses to load when CPU operators are forbidden, naming the operator.
  options_.require_no_cpu_fallback = true;
  auto strict = program->load_method("forward", options_);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("operator 'relu' would run on the CPU"), std::string::npos)
      << strict.status().message();
}

// Requirements of every delegate are collected before the device exists, so the shared device
// has the union of features whichever delegate comes first.
TEST_F(MethodDevice, RequirementsMergeInBothOrders) {
  const DelegateDef a{"FakeA", 1.f, 0.f, "shaderInt16"};
  const DelegateDef b{"FakeB", 1.f, 0.f, "storageBuffer16BitAccess"};
  for (bool a_first : {true, false}) {
    SCOPED_TRACE(a_first ? "FakeA first" : "FakeB first");
    registry_ = std::make_unique<vulkan::DeviceRegistry>();
    options_.registry = registry_.get();
    FakeBackend::event_log().clear();
    auto program = a_first ? chain({a, b}, false) : chain({b, a}, false);
    auto method = program->load_method("forward", options_);
    UNIVK_ASSERT_OK(method);
    auto device = registry_->find(vulkan::DeviceKey{});
    ASSERT_TRUE(device.has_value());
    EXPECT_TRUE((*device)->has(vulkan::Feature::kShaderInt16));
    EXPECT_TRUE((*device)->has(vulkan::Feature::kStorageBuffer16BitAccess));
    EXPECT_EQ(registry_->created_count(), 1u);
    const auto& log = FakeBackend::event_log();
    ASSERT_EQ(log.size(), 4u);
    EXPECT_EQ(log[0].rfind("prepare", 0), 0u);
    EXPECT_EQ(log[1].rfind("prepare", 0), 0u);
    EXPECT_EQ(log[2].rfind("init", 0), 0u);
    EXPECT_EQ(log[3].rfind("init", 0), 0u);
  }
}

TEST_F(MethodDevice, DelegatesGroupByDeviceKey) {
  auto program = chain({{"FakeA", 1.f, 1.f, ""}, {"FakeB", 2.f, 0.f, ""}}, false);
  options_.backend_options["FakeA"]["vulkan_shared_context_name"] = "left";
  options_.backend_options["FakeB"]["vulkan_shared_context_name"] = "right";
  options_.mode = ExecutionMode::kPerDelegate;
  auto method = program->load_method("forward", options_);
  UNIVK_ASSERT_OK(method);
  auto calls = (*method)->delegate_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_NE(calls[0].device, calls[1].device);
  EXPECT_EQ(calls[0].device_key.context_name, "left");
  EXPECT_EQ(calls[1].device_key.context_name, "right");
  ASSERT_TRUE(registry_->find({"left", 0}).has_value());
  ASSERT_TRUE(registry_->find({"right", 0}).has_value());
  EXPECT_EQ(registry_->created_count(), 2u);

  // A second method with both on "left" shares that device: one more lease, no new device.
  LoadOptions same = options_;
  same.backend_options["FakeB"]["vulkan_shared_context_name"] = "left";
  auto shared = program->load_method("forward", same);
  UNIVK_ASSERT_OK(shared);
  auto shared_calls = (*shared)->delegate_calls();
  EXPECT_EQ(shared_calls[0].device, calls[0].device);
  EXPECT_EQ(shared_calls[1].device, calls[0].device);
  EXPECT_EQ(registry_->created_count(), 2u);

  // Same name, another group id: another device.
  LoadOptions grouped = options_;
  grouped.backend_options["FakeB"]["vulkan_shared_context_name"] = "left";
  grouped.backend_options["FakeB"]["vulkan_shared_group_id"] = "1";
  auto other_group = program->load_method("forward", grouped);
  UNIVK_ASSERT_OK(other_group);
  auto group_calls = (*other_group)->delegate_calls();
  EXPECT_EQ(group_calls[0].device, calls[0].device);
  EXPECT_NE(group_calls[1].device, calls[0].device);
  EXPECT_EQ(group_calls[1].device_key.group_id, 1u);
}

TEST_F(MethodDevice, DisabledModeGivesEachDelegateItsOwnDevice) {
  auto program = chain({{"FakeA", 2.f, 0.f, ""}, {"FakeA", 3.f, 0.f, ""}}, false);
  options_.all_backends["vulkan_shared_context_mode"] = "disabled";
  options_.mode = ExecutionMode::kPerDelegate;
  auto method = program->load_method("forward", options_);
  UNIVK_ASSERT_OK(method);
  auto calls = (*method)->delegate_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[0].standalone_device);
  EXPECT_TRUE(calls[1].standalone_device);
  // Shown as private, not as the key "default/0" of the options (no registry entry has it).
  EXPECT_EQ(calls[0].device_name(), "private");
  EXPECT_EQ(calls[1].device_name(), "private");
  EXPECT_NE(calls[0].device, calls[1].device);
  EXPECT_NE(calls[0].queue, calls[1].queue);
  EXPECT_FALSE(registry_->find(vulkan::DeviceKey{}).has_value());

  const HostTensor x = input();
  auto y = (*method)->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_ASSERT_OK(y);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[5], x.data<float>()[5] * 6.f);
}

TEST_F(MethodDevice, ConflictingModesOnOneKeyAreAnError) {
  auto program = chain({{"FakeA", 1.f, 0.f, ""}, {"FakeB", 1.f, 0.f, ""}}, false);
  options_.backend_options["FakeB"]["vulkan_shared_context_mode"] = "create_only";
  auto method = program->load_method("forward", options_);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().message(),
            "instruction 0 (FakeA) and instruction 1 (FakeB) share device default/0 with different modes "
            "(lookup_or_create, create_only)");
}

TEST_F(MethodDevice, LookupOnlyWithoutADeviceNamesTheDelegates) {
  auto program = chain({{"FakeA", 1.f, 0.f, ""}, {"FakeB", 1.f, 0.f, ""}}, false);
  options_.all_backends["vulkan_shared_context_mode"] = "lookup_only";
  auto method = program->load_method("forward", options_);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), StatusCode::kNotFound);
  EXPECT_NE(method.status().message().find("device default/0 for instruction 0 (FakeA), instruction 1 (FakeB)"),
            std::string::npos)
      << method.status().message();

  options_.all_backends["vulkan_shared_context_mode"] = "sometimes";
  auto bad = program->load_method("forward", options_);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("instruction 0 (FakeA)"), std::string::npos) << bad.status().message();
}

TEST_F(MethodDevice, DestroyInAnyOrder) {
  auto program = chain({{"FakeA", 2.f, 0.f, ""}, {"FakeB", 0.5f, 1.f, ""}}, true);
  options_.mode = ExecutionMode::kPerDelegate;
  auto first = program->load_method("forward", options_);
  auto second = program->load_method("forward", options_);
  ASSERT_TRUE(first.ok() && second.ok());
  std::unique_ptr<Method> a = std::move(first).value();
  std::unique_ptr<Method> b = std::move(second).value();
  program.reset();
  registry_.reset();  // leases outlive the registry
  const HostTensor x = input();
  a.reset();
  auto y = b->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_ASSERT_OK(y);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[3], std::max(x.data<float>()[3] * 2.f, 0.f) * 0.5f + 1.f);
  b.reset();
}

}  // namespace
}  // namespace univk::runtime
