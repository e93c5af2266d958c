// Fault injection at the dispatch table, shared device runtime alone (src/vulkan): every
// VkResult-returning call of device creation and of a compute job (buffer, pipeline,
// descriptors, command buffer, submit, wait) is made to fail once with each of
// VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_ERROR_DEVICE_LOST and VK_ERROR_INITIALIZATION_FAILED. Each
// run must end in success (verified output) or a Status whose code matches the injected result
// and whose message names it; no device memory may leak, and the device, the registry and a job
// created before the fault must keep working afterwards.
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <string>

#include "injected_status.h"
#include "univk/vulkan/fault_injection.h"
#include "vulkan_test_util.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

using fault_testing::expected_code;
using testing::bytes_of;
using testing::ComputeJob;
using testing::test_config;

constexpr uint32_t kCount = 256;

// A fill job from scratch: buffer, pipeline, descriptors, command buffer; submit, wait, check.
Status run_job(const DeviceLease& device, uint32_t base) {
  UNIVK_ASSIGN_OR_RETURN(Buffer out, Buffer::create(device, kCount * sizeof(uint32_t), MemoryKind::kHostVisible));
  UNIVK_ASSIGN_OR_RETURN(
      ComputeJob job, ComputeJob::create(device, test_shaders::fill_spv(), {{out.handle(), 0, out.size()}}, 8, "fill"));
  uint32_t params[2] = {base, kCount};
  UNIVK_RETURN_IF_ERROR(job.record(bytes_of(params), kCount / 64));
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, job.submit());
  Status waited = device->queue().wait(value);
  if (!waited.ok()) {
    // The buffers must outlive the GPU work: wait again (a fault is one-shot) before returning.
    Status again = device->queue().wait(value);
    return again.ok() ? waited : again;
  }
  const auto* values = static_cast<const uint32_t*>(out.mapped());
  for (uint32_t i = 0; i < kCount; ++i) {
    if (values[i] != base + i) return internal_error("fill: element " + std::to_string(i) + " is wrong");
  }
  return ok_status();
}

// Checks one faulted run's outcome.
void expect_clean_outcome(const Status& status, VkResult result, uint64_t n) {
  const std::string where = "fault at call " + std::to_string(n) + " (" + fault_injection::fired_function() + ")";
  if (status.ok()) return;  // the failing call's result was handled (e.g. a retried wait); output was verified
  EXPECT_EQ(status.code(), expected_code(result)) << where << ": " << status.to_string();
  EXPECT_NE(status.message().find(vk_result_name(result)), std::string::npos) << where << ": " << status.to_string();
}

constexpr VkResult kResults[] = {VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_ERROR_DEVICE_LOST, VK_ERROR_INITIALIZATION_FAILED};

class FaultInjection : public ::testing::Test {
 protected:
  void SetUp() override { fault_injection::set_instrumentation(true); }
  void TearDown() override {
    fault_injection::disarm();
    fault_injection::set_instrumentation(false);
  }
};

TEST_F(FaultInjection, UninstrumentedTablesAreUntouched) {
  fault_injection::set_instrumentation(false);
  DeviceRegistry registry;
  auto device = registry.acquire({{"plain", 0}, SharedMode::kLookupOrCreate}, {}, test_config());
  UNIVK_ASSERT_OK(device);
  // Armed at call 1, but this device's table has no trampolines: nothing is counted or failed.
  fault_injection::ScopedFault fault(1, VK_ERROR_DEVICE_LOST);
  UNIVK_ASSERT_OK(run_job(*device, 3));
  EXPECT_EQ(fault_injection::calls(), 0u);
  EXPECT_FALSE(fault.fired());
}

TEST_F(FaultInjection, EveryCallOfAComputeJob) {
  DeviceRegistry registry;
  const SharedDeviceOptions key{{"fault_job", 0}, SharedMode::kLookupOrCreate};
  auto device = registry.acquire(key, {}, test_config());
  UNIVK_ASSERT_OK(device);
  EXPECT_EQ(fault_injection::mismatched_tables(), 0u);

  // A bystander job created before any fault, reused after each one.
  auto out = Buffer::create(*device, kCount * sizeof(uint32_t), MemoryKind::kHostVisible);
  UNIVK_ASSERT_OK(out);
  auto bystander = ComputeJob::create(*device, test_shaders::fill_spv(), {{out->handle(), 0, out->size()}}, 8, "by");
  UNIVK_ASSERT_OK(bystander);

  fault_injection::count_calls();
  UNIVK_ASSERT_OK(run_job(*device, 1));
  const uint64_t calls = fault_injection::calls();
  fault_injection::disarm();
  ASSERT_GE(calls, 8u) << "the job should make at least 8 VkResult calls";
  const uint64_t live = (*device)->live_allocations();

  uint64_t failed_runs = 0;
  for (VkResult result : kResults) {
    for (uint64_t n = 1; n <= calls; ++n) {
      Status status;
      {
        fault_injection::ScopedFault fault(n, result);
        status = run_job(*device, static_cast<uint32_t>(n));
        EXPECT_TRUE(fault.fired()) << "call " << n << " of " << calls << " was never made";
        expect_clean_outcome(status, result, n);
      }
      failed_runs += status.ok() ? 0 : 1;
      EXPECT_EQ((*device)->live_allocations(), live) << "device memory leaked after a fault at call " << n;
      // The device and a job made before the fault keep working.
      uint32_t params[2] = {static_cast<uint32_t>(1000 + n), kCount};
      UNIVK_ASSERT_OK(bystander->record(bytes_of(params), kCount / 64));
      auto value = bystander->submit();
      UNIVK_ASSERT_OK(value);
      UNIVK_ASSERT_OK((*device)->queue().wait(*value));
      EXPECT_EQ(static_cast<const uint32_t*>(out->mapped())[kCount - 1], 1000 + n + kCount - 1);
    }
  }
  // Every fault but those in calls whose result univk may ignore made the job fail.
  EXPECT_GT(failed_runs, 0u);
  // The registry still hands out the same device.
  auto again = registry.acquire({key.key, SharedMode::kLookupOnly}, {}, test_config());
  UNIVK_ASSERT_OK(again);
  EXPECT_EQ(again->get(), device->get());
  RecordProperty("calls", std::to_string(calls));
  RecordProperty("faults", std::to_string(calls * std::size(kResults)));
  std::printf("compute job: %llu calls, %llu faults injected, %llu runs failed cleanly\n",
              static_cast<unsigned long long>(calls), static_cast<unsigned long long>(calls * std::size(kResults)),
              static_cast<unsigned long long>(failed_runs));
}

// A destructor's wait that fails (out of host memory here) must not let the caller free memory
// the GPU may still use: wait_before_release falls back to vkQueueWaitIdle, which the call count
// shows (the injector makes the failing wait complete first, so the hazard itself is not seen).
TEST_F(FaultInjection, FailedWaitBeforeReleaseFallsBackToQueueIdle) {
  DeviceRegistry registry;
  auto device = registry.acquire({{"fault_release", 0}, SharedMode::kLookupOrCreate}, {}, test_config());
  UNIVK_ASSERT_OK(device);
  auto out = Buffer::create(*device, kCount * sizeof(uint32_t), MemoryKind::kHostVisible);
  UNIVK_ASSERT_OK(out);
  auto job = ComputeJob::create(*device, test_shaders::fill_spv(), {{out->handle(), 0, out->size()}}, 8, "fill");
  UNIVK_ASSERT_OK(job);
  uint32_t params[2] = {7, kCount};
  UNIVK_ASSERT_OK(job->record(bytes_of(params), kCount / 64));
  auto value = job->submit();
  UNIVK_ASSERT_OK(value);

  fault_injection::count_calls();
  Status waited;
  {
    fault_injection::ScopedFault fault(1, VK_ERROR_OUT_OF_HOST_MEMORY);
    waited = (*device)->queue().wait_before_release(*value);
    EXPECT_TRUE(fault.fired());
  }
  EXPECT_EQ(waited.code(), StatusCode::kOutOfMemory) << waited.to_string();
  EXPECT_EQ(fault_injection::calls(), 2u) << "the failed vkWaitSemaphores is followed by vkQueueWaitIdle";
  auto completed = (*device)->queue().completed_value();
  UNIVK_ASSERT_OK(completed);
  EXPECT_GE(*completed, *value);
  EXPECT_EQ(static_cast<const uint32_t*>(out->mapped())[kCount - 1], 7 + kCount - 1);
  // Without a fault it is a plain wait.
  UNIVK_EXPECT_OK((*device)->queue().wait_before_release(*value));
}

TEST_F(FaultInjection, EveryCallOfDeviceCreation) {
  // Instance + device creation through the registry. Instance functions are instrumented only
  // after vkCreateInstance (a loader-level call), so this covers physical device enumeration,
  // vkCreateDevice, the pipeline cache and the queue's timeline semaphore.
  DeviceRegistry registry;
  const SharedDeviceOptions key{{"fault_create", 0}, SharedMode::kLookupOrCreate};
  fault_injection::count_calls();
  uint64_t calls = 0;
  {
    auto device = registry.acquire(key, {}, test_config());
    UNIVK_ASSERT_OK(device);
    calls = fault_injection::calls();  // before the device is destroyed (vkDeviceWaitIdle)
  }
  fault_injection::disarm();
  ASSERT_GE(calls, 3u);

  uint64_t failed_creations = 0;
  for (VkResult result : {VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_ERROR_INITIALIZATION_FAILED}) {
    for (uint64_t n = 1; n <= calls; ++n) {
      Result<DeviceLease> device = internal_error("not run");
      {
        fault_injection::ScopedFault fault(n, result);
        device = registry.acquire(key, {}, test_config());
        EXPECT_TRUE(fault.fired()) << "call " << n;
        if (!device.ok()) expect_clean_outcome(device.status(), result, n);
      }
      if (!device.ok()) {
        ++failed_creations;
        // A failed creation leaves the key free: the next try creates the device.
        EXPECT_FALSE(registry.find(key.key).has_value());
        device = registry.acquire(key, {}, test_config());
        UNIVK_ASSERT_OK(device);
      }
      UNIVK_EXPECT_OK(run_job(*device, static_cast<uint32_t>(n)));
    }
  }
  EXPECT_GT(failed_creations, 0u);
  std::printf("device creation: %llu calls, %llu faults injected, %llu creations failed cleanly\n",
              static_cast<unsigned long long>(calls), static_cast<unsigned long long>(2 * calls),
              static_cast<unsigned long long>(failed_creations));
}

}  // namespace
}  // namespace univk::vulkan

namespace univk::vulkan {
namespace {

// A driver that refuses another device while univk holds others (what running out of devices in
// vulkan_shared_context_mode=disabled looks like): the error names the call, the result, the
// device, how many devices univk holds and what to do, instead of a bare driver code.
TEST_F(FaultInjection, DeviceCreationRefusedWhileOthersLiveNamesTheCause) {
  auto held = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(held);
  // Counting a creation finds the index of vkCreateDevice among its counted calls.
  fault_injection::count_calls();
  { ASSERT_TRUE(Device::create(test_config(), {}).ok()); }
  const uint64_t calls = fault_injection::calls();
  fault_injection::disarm();
  bool named = false;
  for (uint64_t n = 1; n <= calls && !named; ++n) {
    fault_injection::ScopedFault fault(n, VK_ERROR_UNKNOWN);
    auto device = Device::create(test_config(), {});
    if (device.ok() || fault_injection::fired_function() != "vkCreateDevice") continue;
    const std::string message = device.status().message();
    EXPECT_NE(message.find("vkCreateDevice failed: VK_ERROR_UNKNOWN on '"), std::string::npos) << message;
    EXPECT_NE(message.find("while this process holds "), std::string::npos) << message;
    EXPECT_NE(message.find("vulkan_shared_context_mode=disabled"), std::string::npos) << message;
    named = true;
  }
  EXPECT_TRUE(named) << "no counted call was vkCreateDevice";
}

}  // namespace
}  // namespace univk::vulkan
