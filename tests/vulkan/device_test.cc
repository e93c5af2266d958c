// Instance, Device, Buffer, ComputePipeline, CommandPool and Queue on a real driver.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "univk/vulkan/validation.h"
#include "vulkan_test_util.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

using testing::ComputeJob;
using testing::test_config;

struct ScaleAddParams {
  float a;
  float b;
  uint32_t n;
};

// Runs scale_add.comp over `n` floats through host-visible buffers and checks every output.
void check_scale_add(const DeviceLease& device, uint32_t n) {
  auto in = Buffer::create(device, n * sizeof(float), MemoryKind::kHostVisible);
  auto out = Buffer::create(device, n * sizeof(float), MemoryKind::kHostVisible);
  UNIVK_ASSERT_OK(in);
  UNIVK_ASSERT_OK(out);
  auto* x = static_cast<float*>(in->mapped());
  for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.5f - 7.0f;
  std::memset(out->mapped(), 0, n * sizeof(float));

  auto job = ComputeJob::create(device, test_shaders::scale_add_spv(),
                                {{in->handle(), 0, in->size()}, {out->handle(), 0, out->size()}},
                                sizeof(ScaleAddParams), "scale_add");
  UNIVK_ASSERT_OK(job);
  ScaleAddParams params{3.0f, 0.25f, n};
  UNIVK_ASSERT_OK(job->record(testing::bytes_of(params), (n + 63) / 64));
  auto value = job->submit();
  UNIVK_ASSERT_OK(value);
  UNIVK_ASSERT_OK(device->queue().wait(*value));
  const auto* y = static_cast<const float*>(out->mapped());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 3.0f + 0.25f) << "element " << i;
}

TEST(Instance, ListsAndSelectsDevices) {
  auto instance = Instance::create(test_config());
  UNIVK_ASSERT_OK(instance);
  EXPECT_TRUE((*instance)->validation_enabled());
  auto devices = (*instance)->sorted_physical_devices();
  UNIVK_ASSERT_OK(devices);
  ASSERT_FALSE(devices->empty());

  auto first = (*instance)->select_physical_device("0");
  UNIVK_ASSERT_OK(first);
  EXPECT_EQ(*first, devices->front());
  std::string name = (*instance)->properties(devices->front()).deviceName;
  auto by_name = (*instance)->select_physical_device(name.substr(0, 4));
  UNIVK_ASSERT_OK(by_name);

  auto missing = (*instance)->select_physical_device("no-such-gpu");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(name), std::string::npos) << missing.status().message();
  EXPECT_EQ((*instance)->select_physical_device("99").status().code(), StatusCode::kNotFound);
}

TEST(Instance, RejectsVulkan10) {
  RuntimeConfig config = test_config();
  config.api_version = VK_API_VERSION_1_0;
  EXPECT_EQ(Instance::create(config).status().code(), StatusCode::kInvalidArgument);
}

TEST(Instance, MissingInstanceExtensionIsNamed) {
  RuntimeConfig config = test_config();
  config.instance_extensions = {"VK_KHR_no_such_instance_extension"};
  auto instance = Instance::create(config);
  EXPECT_EQ(instance.status().code(), StatusCode::kIncompatible);
  EXPECT_NE(instance.status().message().find("VK_KHR_no_such_instance_extension"), std::string::npos);
}

TEST(Device, EnablesWhatWasAskedAndRecordsIt) {
  DeviceRequirements req;
  req.required_features = {Feature::kStorageBuffer16BitAccess};
  req.optional_extensions = {"VK_KHR_no_such_extension", VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME};
  auto device = Device::create(test_config(), req);
  UNIVK_ASSERT_OK(device);
  const DeviceCapabilities& enabled = (*device)->enabled();
  EXPECT_TRUE(enabled.features.contains(Feature::kTimelineSemaphore));
  EXPECT_TRUE(enabled.features.contains(Feature::kStorageBuffer16BitAccess));
  EXPECT_FALSE(enabled.extensions.contains("VK_KHR_no_such_extension"));
  EXPECT_FALSE((*device)->borrowed());
  ASSERT_EQ(enabled.queue_family_flags.size(), 1u);
  EXPECT_TRUE(enabled.queue_family_flags[0] & VK_QUEUE_COMPUTE_BIT);
  // Lavapipe offers synchronization2 (Vulkan 1.3): the queue uses vkQueueSubmit2.
  EXPECT_EQ((*device)->uses_synchronization2(), enabled.features.contains(Feature::kSynchronization2));
  EXPECT_TRUE(req.check(enabled).empty());
}

TEST(Device, IncompatibleNamesEveryMissingItem) {
  DeviceRequirements req;
  req.min_api_version = VK_MAKE_API_VERSION(0, 1, 9, 0);
  req.required_extensions = {"VK_ARM_tensors", "VK_KHR_no_such_extension"};
  auto device = Device::create(test_config(), req);
  ASSERT_EQ(device.status().code(), StatusCode::kIncompatible);
  const std::string& m = device.status().message();
  EXPECT_NE(m.find("API version 1.9"), std::string::npos) << m;
  EXPECT_NE(m.find("extension VK_ARM_tensors"), std::string::npos) << m;
  EXPECT_NE(m.find("extension VK_KHR_no_such_extension"), std::string::npos) << m;
}

TEST(Buffer, KindsMappingAndAccounting) {
  auto device = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(device);
  {
    auto local = Buffer::create(*device, 1000, MemoryKind::kDeviceLocal);
    auto host = Buffer::create(*device, 1000, MemoryKind::kHostVisible);
    auto both = Buffer::create(*device, 0, MemoryKind::kDeviceLocalHostVisible);
    ASSERT_TRUE(local.ok() && host.ok() && both.ok());
    EXPECT_EQ(local->mapped(), nullptr);
    EXPECT_TRUE(local->device_local());
    EXPECT_NE(host->mapped(), nullptr);
    EXPECT_NE(both->mapped(), nullptr);
    EXPECT_EQ(both->size(), 4u);
    // host_cached() reports the memory type the buffer got; unmapped memory is never host-cached.
    EXPECT_FALSE(local->host_cached());
    const bool has_cached_host_memory =
        (*device)->find_memory_type(~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT).ok();
    EXPECT_EQ(host->host_cached(), has_cached_host_memory);
    EXPECT_EQ((*device)->live_allocations(), 3u);
    EXPECT_GE((*device)->live_allocated_bytes(), 2004u);

    Buffer moved = std::move(*host);
    EXPECT_FALSE(*host);
    EXPECT_FALSE(host->host_cached());
    EXPECT_TRUE(moved);
    EXPECT_EQ(moved.host_cached(), has_cached_host_memory);
    EXPECT_EQ((*device)->live_allocations(), 3u);
  }
  EXPECT_EQ((*device)->live_allocations(), 0u);
  EXPECT_EQ((*device)->live_allocated_bytes(), 0u);
}

TEST(Dispatch, ScaleAddOutputIsChecked) {
  auto device = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(device);
  check_scale_add(*device, 1000);  // not a multiple of the workgroup size
  check_scale_add(*device, 1);
}

TEST(Dispatch, DeviceLocalBuffersThroughCopiesAndBarriers) {
  auto device = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(device);
  Status s = testing::run_staged_scale_add_check(*device, 333);
  UNIVK_EXPECT_OK(s);
}

TEST(Dispatch, TwoDevicesOnTwoInstancesCoexist) {
  auto a = Device::create(test_config(), {});
  auto b = Device::create(test_config(), {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->instance(), (*b)->instance());
  EXPECT_NE((*a)->handle(), (*b)->handle());
  check_scale_add(*a, 100);
  check_scale_add(*b, 100);
  a->reset();  // destroying one leaves the other's dispatch table intact
  check_scale_add(*b, 65);
}

TEST(Pipeline, RejectsBadSpirvNamingThePipeline) {
  auto device = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(device);
  std::vector<uint32_t> garbage = {1, 2, 3, 4, 5, 6};
  auto pipeline = ComputePipeline::create(*device, ComputePipelineDesc::storage_buffers(garbage, 1, 0, "my_kernel"));
  EXPECT_EQ(pipeline.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(pipeline.status().message().find("my_kernel"), std::string::npos);
  auto too_much_push =
      ComputePipeline::create(*device, ComputePipelineDesc::storage_buffers(test_shaders::fill_spv(), 1, 1u << 20));
  EXPECT_EQ(too_much_push.status().code(), StatusCode::kInvalidArgument);
}

// Statistics come only from a device that enabled pipelineExecutableInfo (the pipeline is
// then created capturing them); without it the call says which extension is missing.
TEST(Pipeline, StatisticsWhereTheDeviceCapturesThem) {
  DeviceRequirements req;
  req.optional_extensions.insert(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  req.optional_features.insert(Feature::kPipelineExecutableInfo);
  auto with = Device::create(test_config(), req);
  auto without = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(with);
  UNIVK_ASSERT_OK(without);
  const auto desc = ComputePipelineDesc::storage_buffers(test_shaders::fill_spv(), 1, 8, "fill");
  auto plain = ComputePipeline::create(*without, desc);
  UNIVK_ASSERT_OK(plain);
  auto refused = plain->statistics();
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME), std::string::npos);
  EXPECT_EQ(ComputePipeline().statistics().status().code(), StatusCode::kInvalidArgument);

  if (!(*with)->has(Feature::kPipelineExecutableInfo)) {
    GTEST_SKIP() << "the device does not offer VK_KHR_pipeline_executable_properties (the refusal above is checked)";
  }
  auto captured = ComputePipeline::create(*with, desc);
  UNIVK_ASSERT_OK(captured);
  auto statistics = captured->statistics();
  UNIVK_ASSERT_OK(statistics);
  ASSERT_FALSE(statistics->empty());
  for (const PipelineStatistic& s : *statistics) {
    EXPECT_FALSE(s.name.empty());
    EXPECT_FALSE(s.value.empty()) << s.name;
  }
}

}  // namespace
}  // namespace univk::vulkan
