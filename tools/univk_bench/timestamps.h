// TimestampPool: timestamp queries on one device's shared queue, read back in nanoseconds.
//
// Ownership: owns its VkQueryPool; holds a DeviceLease so the device outlives it. The caller
// waits for the submission that wrote the queries before read_ns() and before destroying it.
#pragma once

#include <cstdint>
#include <vector>

#include <volk.h>

#include "univk/base/status.h"
#include "univk/vulkan/registry.h"

namespace univk::bench {

class TimestampPool {
 public:
  // Unsupported when the queue family of `device`'s queue reports no timestamp bits.
  static Result<TimestampPool> create(vulkan::DeviceLease device, uint32_t count);
  TimestampPool() = default;
  TimestampPool(TimestampPool&& other) noexcept;
  TimestampPool& operator=(TimestampPool&& other) noexcept;
  TimestampPool(const TimestampPool&) = delete;
  TimestampPool& operator=(const TimestampPool&) = delete;
  ~TimestampPool();

  // Record first in the command buffer (queries must be reset before each reuse).
  void record_reset(VkCommandBuffer cmd) const;
  // Writes query `index` once every earlier command of the submission reached `stage`.
  void record_write(VkCommandBuffer cmd, uint32_t index, VkPipelineStageFlagBits stage) const;
  // Nanoseconds from query 0 to query i, for every i (element 0 is 0). Waits for the results.
  Result<std::vector<double>> read_ns() const;

 private:
  void release();
  vulkan::DeviceLease device_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t count_ = 0;
  uint64_t valid_mask_ = 0;
  double period_ns_ = 1.0;
};

}  // namespace univk::bench
