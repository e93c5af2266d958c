// Queue: submit holds the queue mutex only around vkQueueSubmit*, waiting holds none, and the
// timeline orders work.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <thread>

#include "univk/vulkan/registry.h"
#include "vulkan_test_util.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

using testing::ComputeJob;
using testing::test_config;

// spin.comp over `groups` workgroups of 64 invocations (about 3 ms per group on lavapipe).
struct SpinJob {
  static constexpr uint32_t kIterations = 60000;
  Buffer out;
  ComputeJob job;
  uint32_t invocations = 0;
  uint32_t iterations = kIterations;

  static Result<SpinJob> create(const DeviceLease& device, uint32_t groups) {
    SpinJob s;
    s.invocations = groups * 64;
    UNIVK_ASSIGN_OR_RETURN(s.out, Buffer::create(device, s.invocations * 4, MemoryKind::kHostVisible));
    UNIVK_ASSIGN_OR_RETURN(
        s.job, ComputeJob::create(device, test_shaders::spin_spv(), {{s.out.handle(), 0, s.out.size()}}, 4, "spin"));
    UNIVK_RETURN_IF_ERROR(s.job.record(testing::bytes_of(kIterations), groups));
    return s;
  }
  void expect_output() const {
    const auto* v = static_cast<const uint32_t*>(out.mapped());
    for (uint32_t i = 0; i < invocations; ++i) ASSERT_EQ(v[i], testing::lcg_iterate(i, iterations)) << i;
  }
};

TEST(Queue, WaitingThreadDoesNotBlockAnotherThreadsSubmit) {
  auto created = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(created);
  DeviceLease device = *created;
  Queue& queue = device->queue();

  // The conclusion needs the long dispatch to still be running when the other thread's submit
  // returns; a run where it already finished proves nothing, so it is repeated, longer.
  uint32_t groups = 96;
  for (int attempt = 0; attempt < 3; ++attempt, groups *= 4) {
    auto spin = SpinJob::create(device, groups);
    UNIVK_ASSERT_OK(spin);
    auto long_value = spin->job.submit();
    UNIVK_ASSERT_OK(long_value);

    std::atomic<bool> waiting{false};
    Status waiter_status;
    std::thread waiter([&] {
      waiting = true;
      waiter_status = queue.wait(*long_value);
    });
    while (!waiting) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let it block in vkWaitSemaphores

    // A zero-timeout wait on an unfinished value times out.
    Status poll = queue.wait(*long_value, 0);
    auto polled_completed = queue.completed_value();
    UNIVK_ASSERT_OK(polled_completed);
    if (*polled_completed < *long_value) {
      EXPECT_EQ(poll.code(), StatusCode::kTimeout) << poll.to_string();
    }

    // Another thread's submit while the waiter waits.
    Buffer out;
    auto fill = [&]() -> Result<uint64_t> {
      UNIVK_ASSIGN_OR_RETURN(out, Buffer::create(device, 64 * 4, MemoryKind::kHostVisible));
      UNIVK_ASSIGN_OR_RETURN(ComputeJob job, ComputeJob::create(device, test_shaders::fill_spv(),
                                                                {{out.handle(), 0, out.size()}}, 8, "fill"));
      uint32_t params[2] = {1000, 64};
      UNIVK_RETURN_IF_ERROR(job.record(testing::bytes_of(params), 1));
      UNIVK_ASSIGN_OR_RETURN(uint64_t value, job.submit());
      auto completed = queue.completed_value();
      if (!completed.ok()) return completed.status();
      // Still running: this submit did not wait for the long dispatch.
      bool conclusive = *completed < *long_value;
      UNIVK_RETURN_IF_ERROR(queue.wait(value));  // before `job` (its command buffer) goes
      return conclusive ? value : uint64_t{0};
    };
    std::atomic<uint64_t> fill_value{0};
    Status fill_status;
    std::thread submitter([&] {
      auto v = fill();
      if (v.ok()) {
        fill_value = *v;
      } else {
        fill_status = v.status();
      }
    });
    submitter.join();
    waiter.join();
    UNIVK_ASSERT_OK(fill_status);
    UNIVK_ASSERT_OK(waiter_status);
    spin->expect_output();
    const auto* v = static_cast<const uint32_t*>(out.mapped());
    for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], 1000 + i);
    if (fill_value != 0) {
      EXPECT_GT(fill_value.load(), *long_value);
      return;  // conclusive
    }
  }
  FAIL() << "the long dispatch always finished before the second submit returned; cannot conclude";
}

TEST(Queue, TimelineValuesIncreaseAndWaitValueOrdersBatches) {
  auto created = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(created);
  DeviceLease device = *created;
  Queue& queue = device->queue();
  auto out = Buffer::create(device, 64 * 4, MemoryKind::kHostVisible);
  UNIVK_ASSERT_OK(out);
  auto first = ComputeJob::create(device, test_shaders::fill_spv(), {{out->handle(), 0, out->size()}}, 8, "first");
  auto second = ComputeJob::create(device, test_shaders::fill_spv(), {{out->handle(), 0, out->size()}}, 8, "second");
  ASSERT_TRUE(first.ok() && second.ok());
  uint32_t p1[2] = {1, 64}, p2[2] = {500, 64};
  UNIVK_ASSERT_OK(first->record(testing::bytes_of(p1), 1));
  UNIVK_ASSERT_OK(second->record(testing::bytes_of(p2), 1));
  uint64_t before = queue.last_submitted_value();
  auto v1 = first->submit();
  UNIVK_ASSERT_OK(v1);
  // The second batch writes the same buffer: it waits for the first on the GPU.
  auto v2 = second->submit(*v1);
  UNIVK_ASSERT_OK(v2);
  EXPECT_EQ(*v1, before + 1);
  EXPECT_EQ(*v2, *v1 + 1);
  EXPECT_EQ(queue.last_submitted_value(), *v2);
  UNIVK_ASSERT_OK(queue.wait(*v2));
  auto completed = queue.completed_value();
  UNIVK_ASSERT_OK(completed);
  EXPECT_GE(*completed, *v2);
  const auto* v = static_cast<const uint32_t*>(out->mapped());
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], 500 + i);

  // An empty batch only advances the timeline.
  auto empty = queue.submit({});
  UNIVK_ASSERT_OK(empty);
  UNIVK_EXPECT_OK(queue.wait(*empty));
}

TEST(Queue, ValuesNeverSubmittedAreRejected) {
  auto created = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(created);
  Queue& queue = (*created)->queue();
  uint64_t last = queue.last_submitted_value();
  EXPECT_EQ(queue.wait(last + 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.submit({}, last + 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.last_submitted_value(), last);  // a failed submit consumes no value
  UNIVK_EXPECT_OK(queue.wait(0));
}

// The spin phase of wait(): a job longer than the spin budget (8 groups, about 24 ms on lavapipe)
// ends in the blocking wait, a short one inside the spin; both see the finished work.
TEST(Queue, SpinThenBlockWaitsForTheWork) {
  RuntimeConfig config = test_config();
  config.wait_spin_us = 200;
  auto created = Device::create(config, {});
  UNIVK_ASSERT_OK(created);
  DeviceLease device = *created;
  EXPECT_EQ(device->queue().spin_ns(), 200'000u);
  for (uint32_t groups : {1u, 8u}) {
    auto job = SpinJob::create(device, groups);
    UNIVK_ASSERT_OK(job);
    auto value = job->job.submit();
    UNIVK_ASSERT_OK(value);
    UNIVK_ASSERT_OK(device->queue().wait(*value));
    job->expect_output();
  }
}

TEST(Queue, SpinDefaultsFromTheDeviceTypeAndTheEnvironment) {
  auto created = Device::create(test_config(), {});
  UNIVK_ASSERT_OK(created);
  const bool cpu = (*created)->properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  EXPECT_EQ((*created)->queue().spin_ns(), cpu ? 0u : 100'000u);

  ASSERT_EQ(setenv("UNIVK_WAIT_SPIN_US", "25", 1), 0);
  EXPECT_EQ(RuntimeConfig::from_environment().wait_spin_us, 25);
  ASSERT_EQ(setenv("UNIVK_WAIT_SPIN_US", "-3", 1), 0);
  EXPECT_EQ(RuntimeConfig::from_environment().wait_spin_us, -1);
  ASSERT_EQ(setenv("UNIVK_WAIT_SPIN_US", "fast", 1), 0);
  EXPECT_EQ(RuntimeConfig::from_environment().wait_spin_us, -1);
  unsetenv("UNIVK_WAIT_SPIN_US");
}

}  // namespace
}  // namespace univk::vulkan

namespace univk::vulkan {
namespace {

// GPU work that makes no progress for RuntimeConfig::execute_timeout_ms (one submission that
// runs longer than the limit): the wait returns Timeout naming the limit, the queue becomes unusable (submits fail with
// DeviceLost, the registry refuses to hand the device out again), and destroying what the work uses still waits for it
// to finish.
TEST(Queue, WaitPastTheExecuteTimeoutMarksTheDeviceUnusable) {
  RuntimeConfig config = testing::test_config();
  config.execute_timeout_ms = 20;
  DeviceRegistry registry;
  SharedDeviceOptions shared;
  shared.key = {"timeout", 0};
  auto acquired = registry.acquire(shared, {}, config);
  UNIVK_ASSERT_OK(acquired);
  DeviceLease device = *acquired;
  Queue& queue = device->queue();
  EXPECT_EQ(queue.execute_timeout_ms(), 20u);

  // About 3 ms per group on lavapipe: far beyond 20 ms. A faster device may finish in time; the
  // conclusion then needs a longer run.
  for (uint32_t groups = 400; groups <= 400u * 64; groups *= 4) {
    auto spin = SpinJob::create(device, groups);
    UNIVK_ASSERT_OK(spin);
    auto value = spin->job.submit();
    UNIVK_ASSERT_OK(value);
    Status waited = queue.wait(*value);
    if (waited.ok()) continue;  // finished within 20 ms: try a longer run
    EXPECT_EQ(waited.code(), StatusCode::kTimeout) << waited.to_string();
    EXPECT_NE(waited.message().find("made no progress for 20 ms"), std::string::npos) << waited.to_string();
    EXPECT_NE(waited.message().find("unusable"), std::string::npos) << waited.to_string();
    EXPECT_TRUE(queue.unusable());

    auto again = spin->job.submit();
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), StatusCode::kDeviceLost) << again.status().to_string();
    auto looked_up = registry.acquire(shared, {}, config);
    ASSERT_FALSE(looked_up.ok());
    EXPECT_EQ(looked_up.status().code(), StatusCode::kDeviceLost) << looked_up.status().to_string();
    EXPECT_NE(looked_up.status().message().find("unusable"), std::string::npos);

    // The work was not abandoned: it finishes, and its output is right.
    UNIVK_EXPECT_OK(queue.wait_before_release(*value));
    spin->expect_output();
    return;
  }
  GTEST_SKIP() << "the device finished every spin job within 20 ms";
}

TEST(Queue, ExecuteTimeoutComesFromTheEnvironment) {
  const char* outer = std::getenv("UNIVK_EXECUTE_TIMEOUT_MS");
  const std::string saved = outer != nullptr ? outer : "";
  setenv("UNIVK_EXECUTE_TIMEOUT_MS", "1234", 1);
  EXPECT_EQ(RuntimeConfig::from_environment().execute_timeout_ms, 1234);
  setenv("UNIVK_EXECUTE_TIMEOUT_MS", "0", 1);
  EXPECT_EQ(RuntimeConfig::from_environment().execute_timeout_ms, 0);
  setenv("UNIVK_EXECUTE_TIMEOUT_MS", "-5", 1);  // malformed: the default stays
  EXPECT_EQ(RuntimeConfig::from_environment().execute_timeout_ms, RuntimeConfig{}.execute_timeout_ms);
  unsetenv("UNIVK_EXECUTE_TIMEOUT_MS");
  EXPECT_EQ(RuntimeConfig{}.execute_timeout_ms, -1);
  if (outer != nullptr) setenv("UNIVK_EXECUTE_TIMEOUT_MS", saved.c_str(), 1);
}

// -1 picks the limit from the device type: CPU devices run a whole fused model as one long
// submission, so they get more time than GPUs.
TEST(Queue, AutomaticExecuteTimeoutDependsOnTheDeviceType) {
  RuntimeConfig config = testing::test_config();
  config.execute_timeout_ms = -1;
  auto device = Device::create(config, {});
  UNIVK_ASSERT_OK(device);
  const bool cpu = (*device)->properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const int64_t want = cpu ? RuntimeConfig::kCpuDeviceExecuteTimeoutMs : RuntimeConfig::kGpuExecuteTimeoutMs;
  EXPECT_EQ((*device)->queue().execute_timeout_ms(), static_cast<uint64_t>(want));
}

}  // namespace
}  // namespace univk::vulkan
