// Records a GraphPlan into a command buffer: binds each dispatch's planned regions to real
// buffers and hands the dispatch (descriptors, push constants, the regions it reads and writes)
// to the device runtime's DispatchRecorder, which inserts the barriers. Shared by the
// per_delegate command buffer (own IO buffers) and fused recording (the method's device
// tensors).
//
// Borrows everything; the descriptor sets are allocated from `pool`, which the caller owns and
// keeps alive as long as the command buffer may run.
#pragma once

#include <cstdint>
#include <span>

#include <volk.h>

#include "graph_plan.h"
#include "pipeline_set.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline.h"

namespace univk::backends::vulkan {

struct BoundBuffers {
  std::span<const univk::vulkan::BufferRange> inputs;   // one per input slot
  std::span<const univk::vulkan::BufferRange> outputs;  // one per output slot
  univk::vulkan::BufferRange constants;                 // whole constant buffer (may be empty)
  univk::vulkan::BufferRange arena;                     // whole arena (may be empty)
};

// Descriptor pool sizes `plan` needs for one recording.
uint32_t descriptor_sets_needed(const GraphPlan& plan);
uint32_t storage_descriptors_needed(const GraphPlan& plan);

// `timer` (may be null): one span per dispatch (GpuTimer).
// `host_readback`: end with a barrier making the output slots' writes visible to the host
// (per_delegate). Fused recordings leave the last barrier to the method.
Result<univk::vulkan::RecordCounts> record_plan(const univk::vulkan::Device& device, VkCommandBuffer cmd,
                                                const GraphPlan& plan, const PipelineSet& pipelines,
                                                univk::vulkan::DescriptorPool& pool, const BoundBuffers& buffers,
                                                bool host_readback, univk::vulkan::GpuTimer* timer);

}  // namespace univk::backends::vulkan
