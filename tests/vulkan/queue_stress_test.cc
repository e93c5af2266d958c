// 8 threads x 500 submissions to one shared queue, each result verified. Each thread has its
// own command pool, pipeline and output buffer (per-delegate state); only the Device and its
// Queue are shared. Run under TSan by CI (`ctest -L concurrency`).
#include <gtest/gtest.h>

#include <array>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "vulkan_test_util.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

using testing::ComputeJob;

constexpr int kThreads = 8;
constexpr int kSubmissionsPerThread = 500;
constexpr uint32_t kValues = 64;

// One thread's work: re-record fill.comp with a new base, submit, wait for its own value only,
// and check every element.
Status run_thread(const DeviceLease& device, int thread, std::latch& start) {
  UNIVK_ASSIGN_OR_RETURN(Buffer out, Buffer::create(device, kValues * 4, MemoryKind::kHostVisible));
  UNIVK_ASSIGN_OR_RETURN(
      ComputeJob job, ComputeJob::create(device, test_shaders::fill_spv(), {{out.handle(), 0, out.size()}}, 8, "fill"));
  start.arrive_and_wait();
  Queue& queue = device->queue();
  uint64_t previous = 0;
  for (int i = 0; i < kSubmissionsPerThread; ++i) {
    uint32_t base = static_cast<uint32_t>(thread) * 1000000u + static_cast<uint32_t>(i) * kValues;
    uint32_t params[2] = {base, kValues};
    UNIVK_RETURN_IF_ERROR(job.record(testing::bytes_of(params), 1));
    // Waiting on this thread's previous value orders the rewrites of `out` on the GPU.
    UNIVK_ASSIGN_OR_RETURN(uint64_t value, queue.submit({&job.cmd, 1}, previous));
    if (value <= previous) return internal_error("timeline value did not increase");
    UNIVK_RETURN_IF_ERROR(queue.wait(value));
    const auto* values = static_cast<const uint32_t*>(out.mapped());
    for (uint32_t k = 0; k < kValues; ++k) {
      if (values[k] != base + k) {
        return internal_error("thread " + std::to_string(thread) + " submission " + std::to_string(i) + ": element " +
                              std::to_string(k) + " is " + std::to_string(values[k]) + ", expected " +
                              std::to_string(base + k));
      }
    }
    previous = value;
  }
  return ok_status();
}

TEST(QueueStress, EightThreadsFiveHundredSubmissionsEach) {
  DeviceRegistry registry;
  // Every thread takes its own lease on the one shared device, as delegates do.
  std::array<DeviceLease, kThreads> leases;
  for (auto& lease : leases) {
    auto acquired = registry.acquire(SharedDeviceOptions{}, {}, testing::test_config());
    UNIVK_ASSERT_OK(acquired);
    lease = *acquired;
  }
  uint64_t first_value = leases[0]->queue().last_submitted_value();

  std::array<Status, kThreads> results;
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { results[t] = run_thread(leases[t], t, start); });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(results[t].ok()) << results[t].to_string();
  EXPECT_EQ(registry.created_count(), 1u);
  EXPECT_EQ(leases[0]->queue().last_submitted_value(), first_value + kThreads * kSubmissionsPerThread);
}

}  // namespace
}  // namespace univk::vulkan
