#include "univk/vulkan/command.h"

#include <algorithm>
#include <utility>

#include "univk/vulkan/arm_data_graph.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::vulkan {
namespace {

// synchronization2 stage/access bits above 32 have no legacy counterpart of the same value;
// these map to the legacy bit that covers them.
VkPipelineStageFlags legacy_stages(VkPipelineStageFlags2 stages, VkPipelineStageFlags if_none) {
  constexpr VkPipelineStageFlags2 kTransferLike = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_RESOLVE_BIT |
                                                  VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT;
  VkPipelineStageFlags out = static_cast<VkPipelineStageFlags>(stages & 0xffffffffull);
  if (stages & kTransferLike) out |= VK_PIPELINE_STAGE_TRANSFER_BIT;
  return out != 0 ? out : if_none;
}

VkAccessFlags legacy_access(VkAccessFlags2 access) {
  VkAccessFlags out = static_cast<VkAccessFlags>(access & 0xffffffffull);
  if (access & (VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT)) {
    out |= VK_ACCESS_SHADER_READ_BIT;
  }
  if (access & VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT) out |= VK_ACCESS_SHADER_WRITE_BIT;
  return out;
}

constexpr VkPipelineStageFlags2 kComputeAndTransfer =
    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_TRANSFER_BIT;
constexpr VkAccessFlags2 kComputeAndTransferWrites = VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;

// A global memory barrier, through vkCmdPipelineBarrier2 when synchronization2 is enabled, else
// the legacy call with the bits mapped down.
void record_memory_barrier(const Device& device, VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage,
                           VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
  if (device.uses_synchronization2()) {
    VkMemoryBarrier2 barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2;
    barrier.srcStageMask = src_stage;
    barrier.srcAccessMask = src_access;
    barrier.dstStageMask = dst_stage;
    barrier.dstAccessMask = dst_access;
    VkDependencyInfo dep{};
    dep.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO;
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &barrier;
    device.vk().vkCmdPipelineBarrier2(cmd, &dep);
    return;
  }
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = legacy_access(src_access);
  barrier.dstAccessMask = legacy_access(dst_access);
  device.vk().vkCmdPipelineBarrier(cmd, legacy_stages(src_stage, 0), legacy_stages(dst_stage, 0), 0, 1, &barrier, 0,
                                   nullptr, 0, nullptr);
}

// On a device with VK_ARM_data_graph (and synchronization2, whose 64-bit masks name its stage),
// barriers also cover data-graph dispatches, which run at their own pipeline stage.
bool orders_data_graph(const Device& device) {
  return device.uses_synchronization2() && device.enabled().extensions.contains(arm::kDataGraphExtension);
}

}  // namespace

Result<CommandPool> CommandPool::create(std::shared_ptr<Device> device) {
  if (!device) return invalid_argument("CommandPool::create: null device");
  CommandPool pool;
  pool.device_ = device;
  VkCommandPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  // Command buffers are re-recorded individually when shapes change.
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  info.queueFamilyIndex = device->queue().family_index();
  UNIVK_VK_RETURN_IF_ERROR(device->vk().vkCreateCommandPool(device->handle(), &info, nullptr, &pool.pool_));
  return pool;
}

CommandPool::CommandPool(CommandPool&& other) noexcept { *this = std::move(other); }

CommandPool& CommandPool::operator=(CommandPool&& other) noexcept {
  if (this == &other) return *this;
  release();
  device_ = std::move(other.device_);
  pool_ = std::exchange(other.pool_, VK_NULL_HANDLE);
  return *this;
}

CommandPool::~CommandPool() { release(); }

void CommandPool::release() {
  if (device_ && pool_ != VK_NULL_HANDLE) device_->vk().vkDestroyCommandPool(device_->handle(), pool_, nullptr);
  pool_ = VK_NULL_HANDLE;
  device_.reset();
}

Result<VkCommandBuffer> CommandPool::allocate() {
  if (!device_) return invalid_argument("CommandPool::allocate on an empty pool");
  VkCommandBufferAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkAllocateCommandBuffers(device_->handle(), &info, &cmd));
  return cmd;
}

Status begin_command_buffer(const Device& device, VkCommandBuffer cmd) {
  VkCommandBufferBeginInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  UNIVK_VK_RETURN_IF_ERROR(device.vk().vkBeginCommandBuffer(cmd, &info));
  return ok_status();
}

Status end_command_buffer(const Device& device, VkCommandBuffer cmd) {
  UNIVK_VK_RETURN_IF_ERROR(device.vk().vkEndCommandBuffer(cmd));
  return ok_status();
}

void record_full_barrier(const Device& device, VkCommandBuffer cmd) {
  VkPipelineStageFlags2 stages = kComputeAndTransfer;
  VkAccessFlags2 writes = kComputeAndTransferWrites;
  VkAccessFlags2 reads = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT;
  if (orders_data_graph(device)) {
    stages |= arm::kPipelineStage2DataGraph;
    writes |= arm::kAccess2DataGraphWrite;
    reads |= arm::kAccess2DataGraphRead;
  }
  record_memory_barrier(device, cmd, stages, writes, stages, writes | reads);
}

void record_host_read_barrier(const Device& device, VkCommandBuffer cmd) {
  VkPipelineStageFlags2 stages = kComputeAndTransfer;
  VkAccessFlags2 writes = kComputeAndTransferWrites;
  if (orders_data_graph(device)) {
    stages |= arm::kPipelineStage2DataGraph;
    writes |= arm::kAccess2DataGraphWrite;
  }
  record_memory_barrier(device, cmd, stages, writes, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

void record_buffer_barrier(const Device& device, VkCommandBuffer cmd, const BufferRange& range,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                           VkAccessFlags2 dst_access) {
  if (device.uses_synchronization2()) {
    VkBufferMemoryBarrier2 barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2;
    barrier.srcStageMask = src_stage;
    barrier.srcAccessMask = src_access;
    barrier.dstStageMask = dst_stage;
    barrier.dstAccessMask = dst_access;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = range.buffer;
    barrier.offset = range.offset;
    barrier.size = range.size;
    VkDependencyInfo dep{};
    dep.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO;
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &barrier;
    device.vk().vkCmdPipelineBarrier2(cmd, &dep);
    return;
  }
  VkBufferMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  barrier.srcAccessMask = legacy_access(src_access);
  barrier.dstAccessMask = legacy_access(dst_access);
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = range.buffer;
  barrier.offset = range.offset;
  barrier.size = range.size;
  device.vk().vkCmdPipelineBarrier(cmd, legacy_stages(src_stage, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                                   legacy_stages(dst_stage, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT), 0, 0, nullptr, 1,
                                   &barrier, 0, nullptr);
}

void record_copy(const Device& device, VkCommandBuffer cmd, const BufferRange& src, const BufferRange& dst) {
  VkBufferCopy region{};
  region.srcOffset = src.offset;
  region.dstOffset = dst.offset;
  region.size = std::min(src.size, dst.size);
  device.vk().vkCmdCopyBuffer(cmd, src.buffer, dst.buffer, 1, &region);
}

void record_fill(const Device& device, VkCommandBuffer cmd, const BufferRange& range, uint32_t value) {
  device.vk().vkCmdFillBuffer(cmd, range.buffer, range.offset, range.size, value);
}

}  // namespace univk::vulkan
