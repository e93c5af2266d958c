#include "floors.h"

#include <chrono>
#include <vector>

#include "timestamps.h"
#include "univk-bench_shaders.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/pipeline.h"
#include "univk/vulkan/queue.h"

namespace univk::bench {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_ns(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// Submits `cmd` alone and waits for it; returns the host time of submit + wait.
Result<double> submit_and_wait(vulkan::Queue& queue, VkCommandBuffer cmd) {
  const auto start = Clock::now();
  UNIVK_ASSIGN_OR_RETURN(const uint64_t value, queue.submit(std::span<const VkCommandBuffer>(&cmd, 1)));
  UNIVK_RETURN_IF_ERROR(queue.wait(value));
  return elapsed_ns(start);
}

}  // namespace

double CopyFloor::bytes_per_second() const {
  return gpu_ns.p50 > 0 ? 2.0 * static_cast<double>(bytes) / (gpu_ns.p50 * 1e-9) : 0.0;
}

Result<Summary> measure_round_trip(const vulkan::DeviceLease& device, RepeatCounts counts) {
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  std::vector<double> samples;
  for (int i = 0; i < counts.warmup + counts.iterations; ++i) {
    UNIVK_ASSIGN_OR_RETURN(const double ns, submit_and_wait(device->queue(), cmd));
    if (i >= counts.warmup) samples.push_back(ns);
  }
  return summarize(std::move(samples));
}

Result<DispatchFloor> measure_dispatches(const vulkan::DeviceLease& device, uint32_t dispatches,
                                         RepeatCounts counts) {
  constexpr uint64_t kBytes = 64 * sizeof(uint32_t);  // one workgroup of touch.comp
  UNIVK_ASSIGN_OR_RETURN(auto out, vulkan::Buffer::create(device, kBytes, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(auto pipeline,
                         vulkan::ComputePipeline::create(device, vulkan::ComputePipelineDesc::storage_buffers(
                                                                     shaders::touch_spv(), 1, 0, "dispatch floor")));
  UNIVK_ASSIGN_OR_RETURN(auto descriptors, vulkan::DescriptorPool::create(device, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, descriptors.allocate(pipeline.set_layouts()[0]));
  const vulkan::BufferRange range{out.handle(), 0, kBytes};
  descriptors.write_storage_buffers(set, std::span<const vulkan::BufferRange>(&range, 1));
  UNIVK_ASSIGN_OR_RETURN(auto timestamps, TimestampPool::create(device, 2));
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());

  const VolkDeviceTable& vk = device->vk();
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  timestamps.record_reset(cmd);
  // Orders this submission's writes after the previous one's (write-after-write on `out`).
  vulkan::record_full_barrier(*device, cmd);
  timestamps.record_write(cmd, 0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
  for (uint32_t d = 0; d < dispatches; ++d) {
    if (d > 0) vulkan::record_full_barrier(*device, cmd);
    vk.vkCmdDispatch(cmd, 1, 1, 1);
  }
  timestamps.record_write(cmd, 1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));

  DispatchFloor floor;
  floor.dispatches = dispatches;
  std::vector<double> gpu, host;
  for (int i = 0; i < counts.warmup + counts.iterations; ++i) {
    UNIVK_ASSIGN_OR_RETURN(const double host_ns, submit_and_wait(device->queue(), cmd));
    UNIVK_ASSIGN_OR_RETURN(auto stamps, timestamps.read_ns());
    if (i < counts.warmup) continue;
    host.push_back(host_ns);
    gpu.push_back(stamps[1]);
  }
  floor.gpu_ns = summarize(std::move(gpu));
  floor.host_ns = summarize(std::move(host));
  return floor;
}

Result<CopyFloor> measure_copy(const vulkan::DeviceLease& device, uint64_t bytes, RepeatCounts counts) {
  if (bytes == 0) return invalid_argument("copy floor: 0 bytes");
  UNIVK_ASSIGN_OR_RETURN(auto src, vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(auto dst, vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(auto timestamps, TimestampPool::create(device, 2));
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());

  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  timestamps.record_reset(cmd);
  // Copies of earlier submissions of this buffer (write-after-write on dst, write-after-read on
  // src) finish before this one starts.
  vulkan::record_full_barrier(*device, cmd);
  timestamps.record_write(cmd, 0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
  vulkan::record_copy(*device, cmd, {src.handle(), 0, bytes}, {dst.handle(), 0, bytes});
  timestamps.record_write(cmd, 1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));

  CopyFloor floor;
  floor.bytes = bytes;
  std::vector<double> gpu, host;
  for (int i = 0; i < counts.warmup + counts.iterations; ++i) {
    UNIVK_ASSIGN_OR_RETURN(const double host_ns, submit_and_wait(device->queue(), cmd));
    UNIVK_ASSIGN_OR_RETURN(auto stamps, timestamps.read_ns());
    if (i < counts.warmup) continue;
    host.push_back(host_ns);
    gpu.push_back(stamps[1]);
  }
  floor.gpu_ns = summarize(std::move(gpu));
  floor.host_ns = summarize(std::move(host));
  return floor;
}

}  // namespace univk::bench
