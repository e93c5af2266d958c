#include "univk/vulkan/queue.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "univk/base/logging.h"
#include "univk/vulkan/device.h"

namespace univk::vulkan {

Result<std::unique_ptr<Queue>> Queue::create(const Device& device, VkQueue queue, uint32_t family_index,
                                             int64_t spin_us, int64_t execute_timeout_ms) {
  std::unique_ptr<Queue> q(new Queue(device));
  const bool cpu_device = device.properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (execute_timeout_ms < 0) {
    execute_timeout_ms = cpu_device ? RuntimeConfig::kCpuDeviceExecuteTimeoutMs : RuntimeConfig::kGpuExecuteTimeoutMs;
  }
  q->execute_timeout_ms_ = static_cast<uint64_t>(execute_timeout_ms);
  q->queue_ = queue;
  q->family_index_ = family_index;
  if (spin_us < 0) spin_us = cpu_device ? 0 : 100;
  q->spin_ns_ = static_cast<uint64_t>(spin_us) * 1000;
  VkSemaphoreTypeCreateInfo type_info{};
  type_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type_info.initialValue = 0;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type_info;
  UNIVK_VK_RETURN_IF_ERROR(device.vk().vkCreateSemaphore(device.handle(), &info, nullptr, &q->timeline_));
  return q;
}

Queue::~Queue() {
  // The Device waited for this queue's work before destroying it.
  if (timeline_ != VK_NULL_HANDLE) device_.vk().vkDestroySemaphore(device_.handle(), timeline_, nullptr);
}

Result<uint64_t> Queue::submit(std::span<const VkCommandBuffer> command_buffers, uint64_t wait_value) {
  const VolkDeviceTable& vk = device_.vk();
  if (unusable()) return device_lost("the queue is unusable: " + unusable_reason());
  std::lock_guard<std::mutex> lock(submit_mutex_);
  uint64_t last = last_submitted_.load(std::memory_order_relaxed);
  if (wait_value > last) {
    return invalid_argument("Queue::submit: wait value " + std::to_string(wait_value) +
                            " was never submitted (last is " + std::to_string(last) + ")");
  }
  uint64_t signal_value = last + 1;
  VkResult result;
  if (device_.uses_synchronization2()) {
    std::vector<VkCommandBufferSubmitInfo> cmds(command_buffers.size());
    for (size_t i = 0; i < command_buffers.size(); ++i) {
      cmds[i] = {};
      cmds[i].sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO;
      cmds[i].commandBuffer = command_buffers[i];
    }
    VkSemaphoreSubmitInfo wait{};
    wait.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO;
    wait.semaphore = timeline_;
    wait.value = wait_value;
    wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkSemaphoreSubmitInfo signal = wait;
    signal.value = signal_value;
    VkSubmitInfo2 info{};
    info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2;
    info.waitSemaphoreInfoCount = wait_value > 0 ? 1 : 0;
    info.pWaitSemaphoreInfos = &wait;
    info.commandBufferInfoCount = static_cast<uint32_t>(cmds.size());
    info.pCommandBufferInfos = cmds.data();
    info.signalSemaphoreInfoCount = 1;
    info.pSignalSemaphoreInfos = &signal;
    result = vk.vkQueueSubmit2(queue_, 1, &info, VK_NULL_HANDLE);
  } else {
    VkTimelineSemaphoreSubmitInfo timeline_info{};
    timeline_info.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    timeline_info.waitSemaphoreValueCount = wait_value > 0 ? 1 : 0;
    timeline_info.pWaitSemaphoreValues = &wait_value;
    timeline_info.signalSemaphoreValueCount = 1;
    timeline_info.pSignalSemaphoreValues = &signal_value;
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    info.pNext = &timeline_info;
    info.waitSemaphoreCount = wait_value > 0 ? 1 : 0;
    info.pWaitSemaphores = &timeline_;
    info.pWaitDstStageMask = &wait_stage;
    info.commandBufferCount = static_cast<uint32_t>(command_buffers.size());
    info.pCommandBuffers = command_buffers.data();
    info.signalSemaphoreCount = 1;
    info.pSignalSemaphores = &timeline_;
    result = vk.vkQueueSubmit(queue_, 1, &info, VK_NULL_HANDLE);
  }
  if (result != VK_SUCCESS)
    return vk_status(result, device_.uses_synchronization2() ? "vkQueueSubmit2" : "vkQueueSubmit");
  last_submitted_.store(signal_value, std::memory_order_release);
  return signal_value;
}

Status Queue::wait(uint64_t value, uint64_t timeout_ns) const {
  uint64_t last = last_submitted_.load(std::memory_order_acquire);
  if (value > last) {
    return invalid_argument("Queue::wait: value " + std::to_string(value) + " was never submitted (last is " +
                            std::to_string(last) + ")");
  }
  if (value == 0) return ok_status();
  if (spin_ns_ > 0 && timeout_ns > 0) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const uint64_t spin = std::min(spin_ns_, timeout_ns);
    for (;;) {
      uint64_t reached = 0;
      VkResult r = device_.vk().vkGetSemaphoreCounterValue(device_.handle(), timeline_, &reached);
      if (r != VK_SUCCESS) return vk_status(r, "vkGetSemaphoreCounterValue");
      if (reached >= value) return ok_status();
      const auto spent =
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
      if (spent >= spin) {
        if (timeout_ns != UINT64_MAX) timeout_ns = spent >= timeout_ns ? 0 : timeout_ns - spent;
        break;
      }
    }
  }
  VkSemaphoreWaitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline_;
  info.pValues = &value;
  VkResult r = device_.vk().vkWaitSemaphores(device_.handle(), &info, timeout_ns);
  if (r == VK_TIMEOUT) return timeout_error("timeline value " + std::to_string(value) + " not reached in time");
  if (r != VK_SUCCESS) return vk_status(r, "vkWaitSemaphores");
  return ok_status();
}

Status Queue::wait(uint64_t value) const {
  if (execute_timeout_ms_ == 0) return wait(value, UINT64_MAX);
  constexpr uint64_t kNsPerMs = 1000000;
  const uint64_t slice_ns = execute_timeout_ms_ > UINT64_MAX / kNsPerMs ? UINT64_MAX : execute_timeout_ms_ * kNsPerMs;
  Status waited = wait(value, slice_ns);
  if (waited.code() != StatusCode::kTimeout) return waited;
  // The limit is on progress, not on the whole wait: `value` may sit behind other work on this
  // queue (other Methods, an application's own submissions), which is slow but not stuck. The
  // timeline is read only once a period has run out, so a wait that succeeds costs nothing more.
  UNIVK_ASSIGN_OR_RETURN(uint64_t reached, completed_value());
  for (;;) {
    if (reached >= value) return ok_status();
    waited = wait(value, slice_ns);
    if (waited.code() != StatusCode::kTimeout) return waited;
    UNIVK_ASSIGN_OR_RETURN(uint64_t now, completed_value());
    if (now == reached) break;
    reached = now;
  }
  mark_unusable();
  const std::string reason = unusable_reason();
  UNIVK_LOG(kError) << reason << "; the device is marked unusable";
  return timeout_error(reason + "; the device is marked unusable");
}

void Queue::mark_unusable() const noexcept {
  // Flag first: later submits must fail even if recording the reason cannot allocate.
  unusable_.store(true, std::memory_order_release);
  try {
    std::lock_guard<std::mutex> lock(reason_mutex_);
    if (unusable_reason_.empty()) {
      unusable_reason_ = "GPU work on this queue made no progress for " + std::to_string(execute_timeout_ms_) +
                         " ms (RuntimeConfig::execute_timeout_ms, UNIVK_EXECUTE_TIMEOUT_MS)";
    }
  } catch (...) {  // out of memory for the text: the flag alone says it
  }
}

std::string Queue::unusable_reason() const {
  std::lock_guard<std::mutex> lock(reason_mutex_);
  return unusable_reason_.empty() ? "GPU work on this queue made no progress within execute_timeout_ms"
                                  : unusable_reason_;
}

Status Queue::wait_before_release(uint64_t value) const {
  Status waited = wait(value, UINT64_MAX);
  if (waited.ok() || waited.code() == StatusCode::kInvalidArgument) return waited;
  std::lock_guard<std::mutex> lock(submit_mutex_);
  VkResult idle = device_.vk().vkQueueWaitIdle(queue_);
  if (idle != VK_SUCCESS) {
    UNIVK_LOG(kError) << "vkQueueWaitIdle after a failed timeline wait: " << vk_result_name(idle);
  }
  return waited;
}

Result<uint64_t> Queue::completed_value() const {
  uint64_t value = 0;
  UNIVK_VK_RETURN_IF_ERROR(device_.vk().vkGetSemaphoreCounterValue(device_.handle(), timeline_, &value));
  return value;
}

uint64_t Queue::last_submitted_value() const { return last_submitted_.load(std::memory_order_acquire); }

}  // namespace univk::vulkan
