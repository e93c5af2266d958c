// DispatchRecorder: records compute dispatches into a command buffer with the barriers they
// need. The VgfBackend, the VulkanBackend and the fused method all record through it, so
// hazards, barriers and descriptor binding are decided in one place.
//
// Hazards. Every command declares the buffer ranges it reads and writes (BufferAccess). The
// recorder keeps the accesses recorded since its last barrier (HazardTracker); a command that
// reads or writes bytes a pending command wrote (read-after-write, write-after-write), or writes
// bytes a pending command read (write-after-read), gets one barrier first. That barrier is a
// global memory barrier from compute and transfer writes to compute and transfer reads and
// writes (record_full_barrier in command.h: vkCmdPipelineBarrier2 when synchronization2 is
// enabled, else the legacy call). It orders every earlier command before every later one, so
// the pending accesses are forgotten. Commands that touch disjoint bytes are not separated, so
// independent dispatches can overlap on the GPU.
//
// Profiling: given a GpuTimer, every dispatch is recorded inside a timer span named by its label.
//
// Ownership: borrows the device, the command buffer and the timer; descriptor sets come from the pool each
// dispatch names, which must outlive every execution of the command buffer, as must the
// pipelines and buffers the dispatches use. Not thread-safe: one recorder per command buffer
// being recorded, on one thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <volk.h>

#include "univk/base/status.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/pipeline.h"

namespace univk::vulkan {

class Device;
class GpuTimer;

// True when the two ranges share at least one byte of one buffer.
bool ranges_overlap(const BufferRange& a, const BufferRange& b);

// One command's access to a buffer range. A write may also read the range.
struct BufferAccess {
  BufferRange range;
  bool write = false;
  // Writes with the same non-zero group never conflict with each other: the caller guarantees
  // they write disjoint elements inside overlapping ranges (the slices of one operator's
  // output, say). Reads are never exempt.
  uint32_t disjoint_write_group = 0;
};

// The accesses since the last barrier. Pure data.
class HazardTracker {
 public:
  // Whether a command with `accesses` must wait for the pending ones.
  bool conflicts(std::span<const BufferAccess> accesses) const;
  // Notes a recorded command's accesses.
  void add(std::span<const BufferAccess> accesses);
  // A barrier ordered everything recorded so far.
  void clear() { pending_.clear(); }
  bool empty() const { return pending_.empty(); }

 private:
  std::vector<BufferAccess> pending_;
};

// A buffer descriptor of a dispatch: binding `binding` of descriptor set `set`.
struct DescriptorWrite {
  uint32_t set = 0;
  uint32_t binding = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  BufferRange range;
};

struct DispatchDesc {
  const ComputePipeline* pipeline = nullptr;
  // One descriptor set is allocated per set layout of the pipeline and these are written into
  // them; every binding of the layout must get a write.
  std::span<const DescriptorWrite> descriptors;
  std::span<const uint8_t> push_constants;  // from offset 0; empty: none
  std::array<uint32_t, 3> groups = {1, 1, 1};
  std::span<const BufferAccess> accesses;  // what the dispatch reads and writes
  std::string_view label;                  // names the dispatch in errors, e.g. "dispatch ADD"
};

// What a recording added to its command buffer (ExecuteStats reports these).
struct RecordCounts {
  uint32_t dispatches = 0;
  uint32_t barriers = 0;  // vkCmdPipelineBarrier(2) calls
};

class DispatchRecorder {
 public:
  // `timer` (may be null: no timestamps) must outlive every execution of the command buffer.
  DispatchRecorder(const Device& device, VkCommandBuffer cmd, GpuTimer* timer = nullptr)
      : device_(device), cmd_(cmd), timer_(timer) {}

  // Barrier when needed, descriptor sets (allocated from `pool`), pipeline, push constants,
  // vkCmdDispatch. Fails (and records nothing) when the group count exceeds the device's limits
  // or a set cannot be allocated.
  Status dispatch(DescriptorPool& pool, const DispatchDesc& desc);
  // Another dispatch of the pipeline and descriptor sets the last dispatch() bound, with
  // `desc`'s push constants, groups and accesses (a barrier first where they conflict): a
  // kernel's second pass over the same bindings (split-K's sum, kernels/kernel.h). InternalError
  // when `desc.pipeline` is not that pipeline, `desc.descriptors` is not empty, or nothing was
  // dispatched yet (or the last dispatch() failed). Nothing may bind another pipeline into the
  // command buffer in between.
  Status dispatch_again(const DispatchDesc& desc);
  // For a command recorded by the caller (a copy, another recorder's work): a barrier first when
  // `accesses` conflict with the pending ones; then they are pending.
  void before_command(std::span<const BufferAccess> accesses);
  // Makes every compute and transfer write recorded so far visible to host reads (record last,
  // before the host reads mapped memory after the queue wait).
  void host_read_barrier();

  const RecordCounts& counts() const { return counts_; }
  VkCommandBuffer command_buffer() const { return cmd_; }
  const Device& device() const { return device_; }

 private:
  // Push constants, vkCmdDispatch and the timer span's end, after the pipeline is bound.
  Status push_and_dispatch(const DispatchDesc& desc, uint32_t timer_span);

  const Device& device_;
  VkCommandBuffer cmd_;
  GpuTimer* timer_;
  const ComputePipeline* bound_pipeline_ = nullptr;  // the last dispatch()'s, for dispatch_again
  HazardTracker hazards_;
  RecordCounts counts_;
};

}  // namespace univk::vulkan
