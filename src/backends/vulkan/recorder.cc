#include "recorder.h"

#include <string>
#include <vector>

#include "univk/vulkan/device.h"
#include "univk/vulkan/dispatch_limits.h"

namespace univk::backends::vulkan {
namespace {

struct Access {
  univk::vulkan::BufferRange range;
  uint32_t op_index = 0;
  bool disjoint_write = false;
};

bool overlaps(const univk::vulkan::BufferRange& a, const univk::vulkan::BufferRange& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

Result<univk::vulkan::BufferRange> resolve(const BufferRef& ref, const BoundBuffers& buffers) {
  univk::vulkan::BufferRange base;
  const char* what = "";
  switch (ref.kind) {
    case BufferKind::kInput:
      if (ref.slot >= buffers.inputs.size()) return internal_error("plan refers to a missing input slot");
      base = buffers.inputs[ref.slot];
      what = "input";
      break;
    case BufferKind::kOutput:
      if (ref.slot >= buffers.outputs.size()) return internal_error("plan refers to a missing output slot");
      base = buffers.outputs[ref.slot];
      what = "output";
      break;
    case BufferKind::kConstant:
      base = buffers.constants;
      what = "constant";
      break;
    case BufferKind::kArena:
      base = buffers.arena;
      what = "arena";
      break;
  }
  if (base.buffer == VK_NULL_HANDLE || ref.offset + ref.size > base.size) {
    return internal_error(std::string("plan region [") + std::to_string(ref.offset) + ", +" +
                          std::to_string(ref.size) + ") does not fit the " + what + " buffer of " +
                          std::to_string(base.size) + " bytes");
  }
  return univk::vulkan::BufferRange{base.buffer, base.offset + ref.offset, ref.size};
}

VkBufferMemoryBarrier buffer_barrier(const univk::vulkan::BufferRange& range, VkAccessFlags src, VkAccessFlags dst) {
  VkBufferMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.buffer = range.buffer;
  b.offset = range.offset;
  b.size = range.size;
  return b;
}

}  // namespace

uint32_t descriptor_sets_needed(const GraphPlan& plan) { return static_cast<uint32_t>(plan.dispatches.size()); }

uint32_t storage_descriptors_needed(const GraphPlan& plan) {
  uint32_t n = 0;
  for (const PlannedDispatch& pd : plan.dispatches) n += static_cast<uint32_t>(pd.buffers.size());
  return n;
}

Result<RecordCounts> record_plan(const univk::vulkan::Device& device, VkCommandBuffer cmd, const GraphPlan& plan,
                                 const PipelineSet& pipelines, univk::vulkan::DescriptorPool& pool,
                                 const BoundBuffers& buffers, bool host_readback) {
  const VolkDeviceTable& vk = device.vk();
  RecordCounts counts;
  // Accesses since the last barrier: a dispatch that conflicts with one of them needs a barrier.
  std::vector<Access> pending_writes, pending_reads;
  for (const PlannedDispatch& pd : plan.dispatches) {
    const Dispatch& d = pd.dispatch;
    UNIVK_RETURN_IF_ERROR(univk::vulkan::check_dispatch_groups(device.properties().limits, d.groups,
                                                        std::string("kernel ") + shader_name(d.shader) + " of operator " +
                                                            std::to_string(pd.op_index)));
    const univk::vulkan::ComputePipeline* pipeline = pipelines.find(d);
    if (pipeline == nullptr) return internal_error(std::string("no pipeline for shader ") + shader_name(d.shader));
    std::vector<univk::vulkan::BufferRange> ranges;
    for (const BufferRef& ref : pd.buffers) {
      UNIVK_ASSIGN_OR_RETURN(univk::vulkan::BufferRange r, resolve(ref, buffers));
      ranges.push_back(r);
    }
    bool conflict = false;
    for (size_t b = 0; b < ranges.size() && !conflict; ++b) {
      const bool writes = d.bindings[b].kind == Operand::kOutput;
      for (const Access& w : pending_writes) {
        const bool same_op_disjoint = writes && d.disjoint_write && w.disjoint_write && w.op_index == pd.op_index;
        if (overlaps(ranges[b], w.range) && !same_op_disjoint) conflict = true;
      }
      if (writes) {
        for (const Access& r : pending_reads) {
          if (overlaps(ranges[b], r.range)) conflict = true;
        }
      }
    }
    if (conflict) {
      // Makes every pending write visible; also orders every earlier dispatch before this one
      // (the stage masks cover all compute work), which settles write-after-read.
      std::vector<VkBufferMemoryBarrier> barriers;
      for (const Access& w : pending_writes) {
        barriers.push_back(
            buffer_barrier(w.range, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT));
      }
      vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                              nullptr, static_cast<uint32_t>(barriers.size()), barriers.data(), 0, nullptr);
      ++counts.barriers;
      pending_writes.clear();
      pending_reads.clear();
    }
    UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, pool.allocate(pipeline->set_layouts()[0]));
    pool.write_storage_buffers(set, ranges);
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0, 1, &set, 0, nullptr);
    if (!d.push.empty()) {
      vk.vkCmdPushConstants(cmd, pipeline->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            static_cast<uint32_t>(d.push.size() * 4), d.push.data());
    }
    vk.vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
    ++counts.dispatches;
    for (size_t b = 0; b < ranges.size(); ++b) {
      Access a{ranges[b], pd.op_index, d.disjoint_write};
      (d.bindings[b].kind == Operand::kOutput ? pending_writes : pending_reads).push_back(a);
    }
  }
  if (host_readback && !buffers.outputs.empty()) {
    std::vector<VkBufferMemoryBarrier> barriers;
    for (const univk::vulkan::BufferRange& out : buffers.outputs) {
      barriers.push_back(buffer_barrier(out, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT));
    }
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr,
                            static_cast<uint32_t>(barriers.size()), barriers.data(), 0, nullptr);
    ++counts.barriers;
  }
  return counts;
}

}  // namespace univk::backends::vulkan
