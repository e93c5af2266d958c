// Queue: the one VkQueue a device's delegates share, ordered by one timeline semaphore.
//
// Lock order (whole of univk): DeviceRegistry mutex, then Device mutexes, then the Queue mutex;
// never the reverse. The Queue mutex is held only around vkQueueSubmit2 / vkQueueSubmit (and the
// assignment of the timeline value, so values increase in submission order). Waiting happens
// outside any lock, on a timeline value: a thread waiting for a long dispatch never blocks
// another thread's submit.
//
// Owned by its Device; borrows the VkQueue (owned by the VkDevice) and owns the timeline
// semaphore.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include <volk.h>

#include "univk/base/status.h"

namespace univk::vulkan {

class Device;

class Queue {
 public:
  // `spin_us`: RuntimeConfig::wait_spin_us (-1: chosen from the device type).
  // `execute_timeout_ms`: RuntimeConfig::execute_timeout_ms (-1: chosen from the device type;
  // 0: waits without a limit).
  static Result<std::unique_ptr<Queue>> create(const Device& device, VkQueue queue, uint32_t family_index,
                                               int64_t spin_us = -1, int64_t execute_timeout_ms = -1);
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // Submits the command buffers as one batch that signals the next timeline value, and returns
  // that value. `wait_value` > 0 makes the batch wait (on the GPU, no host wait) for that
  // timeline value first; it must not exceed last_submitted_value() (InvalidArgument).
  // On failure no value is consumed. DeviceLost once the queue is unusable().
  Result<uint64_t> submit(std::span<const VkCommandBuffer> command_buffers, uint64_t wait_value = 0);
  // Blocks until the timeline reaches `value`: polls the timeline for up to spin_ns() first, then
  // blocks in vkWaitSemaphores. Holds no lock. When the timeline makes no progress at all for
  // execute_timeout_ms() (work queued ahead of `value` may take longer, as long as it advances;
  // progress is compared from one period to the next, so a stuck submission is reported between
  // one and two periods after the wait began), the work is taken as stuck: the wait returns Timeout naming the limit,
  // and the queue becomes unusable() (later submits fail with DeviceLost, the registry stops handing the device out).
  // InvalidArgument for a value never handed out (it would never be signalled).
  Status wait(uint64_t value) const;
  // The same with a caller-chosen limit (0 polls); running out of it is an ordinary Timeout and
  // leaves the queue usable.
  Status wait(uint64_t value, uint64_t timeout_ns) const;
  // For destructors, before they free what the work up to `value` uses. Waits without a limit:
  // freeing memory the GPU may still use would be worse than waiting for a stuck device until
  // its driver reports it lost. If that wait fails with a driver error (out of memory, say),
  // falls back to vkQueueWaitIdle under the queue mutex, so other submitters stall on this
  // error path only. Returns the first error, for the caller to log.
  Status wait_before_release(uint64_t value) const;

  // True after a wait() saw no progress for execute_timeout_ms(); unusable_reason() says so.
  bool unusable() const { return unusable_.load(std::memory_order_acquire); }
  std::string unusable_reason() const;
  uint64_t execute_timeout_ms() const { return execute_timeout_ms_; }
  // The last value the GPU has signalled.
  Result<uint64_t> completed_value() const;
  // The highest value handed out by submit() so far.
  uint64_t last_submitted_value() const;

  VkQueue handle() const { return queue_; }
  uint32_t family_index() const { return family_index_; }
  VkSemaphore timeline() const { return timeline_; }
  uint64_t spin_ns() const { return spin_ns_; }

 private:
  Queue(const Device& device) : device_(device) {}
  void mark_unusable() const noexcept;
  const Device& device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_index_ = 0;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  uint64_t spin_ns_ = 0;
  uint64_t execute_timeout_ms_ = 0;
  mutable std::mutex submit_mutex_;
  mutable std::atomic<bool> unusable_{false};
  mutable std::mutex reason_mutex_;  // guards unusable_reason_
  mutable std::string unusable_reason_;
  // Written only under submit_mutex_; atomic so wait() and readers take no lock.
  std::atomic<uint64_t> last_submitted_{0};
};

}  // namespace univk::vulkan
