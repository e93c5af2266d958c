// CommandPool: one per delegate (or per method), never shared between threads. Owns the
// VkCommandPool and the command buffers allocated from it; holds a shared_ptr to the Device.
// The owner must wait for its last submission (Queue::wait) before destroying the pool.
// Command buffers may be re-recorded individually (RESET_COMMAND_BUFFER pool).
#pragma once

#include <memory>
#include <span>

#include <volk.h>

#include "univk/base/status.h"
#include "univk/vulkan/buffer.h"

namespace univk::vulkan {

class Device;

class CommandPool {
 public:
  static Result<CommandPool> create(std::shared_ptr<Device> device);
  CommandPool() = default;
  CommandPool(CommandPool&& other) noexcept;
  CommandPool& operator=(CommandPool&& other) noexcept;
  CommandPool(const CommandPool&) = delete;
  CommandPool& operator=(const CommandPool&) = delete;
  ~CommandPool();

  // A primary command buffer, owned by this pool.
  Result<VkCommandBuffer> allocate();
  VkCommandPool handle() const { return pool_; }

 private:
  void release();
  std::shared_ptr<Device> device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
};

// Recording helpers, through the device's own dispatch table.
Status begin_command_buffer(const Device& device, VkCommandBuffer cmd);  // reusable (no ONE_TIME flag)
Status end_command_buffer(const Device& device, VkCommandBuffer cmd);
// A compute->compute (and transfer) execution+memory barrier over everything: write before read.
void record_full_barrier(const Device& device, VkCommandBuffer cmd);
// Makes compute and transfer writes visible to host reads (record last, before the host reads
// mapped memory after Queue::wait: a semaphore wait alone does not make device writes visible).
void record_host_read_barrier(const Device& device, VkCommandBuffer cmd);
// Buffer memory barrier from `src` (stage/access) to `dst` over `range`.
void record_buffer_barrier(const Device& device, VkCommandBuffer cmd, const BufferRange& range,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                           VkAccessFlags2 dst_access);
// Copies min(src.size, dst.size) bytes.
void record_copy(const Device& device, VkCommandBuffer cmd, const BufferRange& src, const BufferRange& dst);
// Fills `range` (offset and size multiples of 4; the buffer needs TRANSFER_DST usage) with the
// 32-bit `value`.
void record_fill(const Device& device, VkCommandBuffer cmd, const BufferRange& range, uint32_t value);

}  // namespace univk::vulkan
