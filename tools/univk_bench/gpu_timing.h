// GPU timing helpers of the benchmark tools: a command buffer's host time through submit and
// wait, and a piece of recorded work's GPU time in one span of the runtime's vulkan::GpuTimer.
#pragma once

#include <chrono>
#include <utility>
#include <vector>

#include "floors.h"
#include "univk/vulkan/gpu_timer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::bench {

using Clock = std::chrono::steady_clock;

inline double elapsed_ns(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// Submits `cmd` alone and waits for it; returns the host time of submit + wait.
inline Result<double> submit_and_wait(vulkan::Queue& queue, VkCommandBuffer cmd) {
  const auto start = Clock::now();
  UNIVK_ASSIGN_OR_RETURN(const uint64_t value, queue.submit(std::span<const VkCommandBuffer>(&cmd, 1)));
  UNIVK_RETURN_IF_ERROR(queue.wait(value));
  return elapsed_ns(start);
}

// GPU time of `record_work` inside one timer span, the work ordered after the previous
// submission of the same command buffer by a full barrier; returns {gpu ns, host ns} samples.
// With `evict`, each run first overwrites that range (before the barrier, outside the span):
// given more bytes than the GPU's last-level cache, the work then starts with none of its
// operands cached, as a model's layer that reads weights no earlier dispatch touched.
template <typename RecordWork>
Result<std::pair<Summary, Summary>> time_work(const vulkan::DeviceLease& device, RepeatCounts counts,
                                              RecordWork record_work, const vulkan::BufferRange* evict = nullptr) {
  UNIVK_ASSIGN_OR_RETURN(auto timer, vulkan::GpuTimer::create(device));
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  if (evict != nullptr) vulkan::record_fill(*device, cmd, *evict, 0);
  vulkan::record_full_barrier(*device, cmd);
  UNIVK_ASSIGN_OR_RETURN(const uint32_t span, timer->begin(cmd, "work"));
  record_work(cmd);
  UNIVK_RETURN_IF_ERROR(timer->end(cmd, span).status());
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  std::vector<double> gpu, host;
  const auto start = Clock::now();
  for (int i = 0, measured = 0; measured < counts.iterations; ++i) {
    UNIVK_ASSIGN_OR_RETURN(const double host_ns, submit_and_wait(device->queue(), cmd));
    UNIVK_ASSIGN_OR_RETURN(const vulkan::GpuTimer::Readout stamps, timer->read());
    if (warming_up(counts, i, start)) continue;
    host.push_back(host_ns);
    gpu.push_back(static_cast<double>(stamps.times[span].end_ns - stamps.times[span].begin_ns));
    ++measured;
  }
  return std::make_pair(summarize(std::move(gpu)), summarize(std::move(host)));
}

}  // namespace univk::bench
