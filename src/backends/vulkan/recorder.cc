#include "recorder.h"

#include <string>
#include <vector>

#include "univk/base/logging.h"
#include "univk/vulkan/device.h"

namespace univk::backends::vulkan {
namespace {

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
    return internal_error(std::string("plan region [") + std::to_string(ref.offset) + ", +" + std::to_string(ref.size) +
                          ") does not fit the " + what + " buffer of " + std::to_string(base.size) + " bytes");
  }
  return univk::vulkan::BufferRange{base.buffer, base.offset + ref.offset, ref.size};
}

}  // namespace

uint32_t descriptor_sets_needed(const GraphPlan& plan) { return static_cast<uint32_t>(plan.dispatches.size()); }

uint32_t storage_descriptors_needed(const GraphPlan& plan) {
  uint32_t n = 0;
  for (const PlannedDispatch& pd : plan.dispatches) n += static_cast<uint32_t>(pd.buffers.size());
  return n;
}

Result<univk::vulkan::RecordCounts> record_plan(const univk::vulkan::Device& device, VkCommandBuffer cmd,
                                                const GraphPlan& plan, const PipelineSet& pipelines,
                                                univk::vulkan::DescriptorPool& pool, const BoundBuffers& buffers,
                                                bool host_readback, univk::vulkan::GpuTimer* timer) {
  univk::vulkan::DispatchRecorder recorder(device, cmd, timer);
  for (const PlannedDispatch& pd : plan.dispatches) {
    const Dispatch& d = pd.dispatch;
    const univk::vulkan::ComputePipeline* pipeline = pipelines.find(d);
    const char* name = d.kernel ? kernels::kernel_name(d.kernel->kernel) : shader_name(d.shader);
    if (pipeline == nullptr) return internal_error(std::string("no pipeline for ") + name);
    const std::string label = std::string("dispatch ") + name + " of operator " + std::to_string(pd.op_index);
    if (d.kernel) {
      std::vector<univk::vulkan::BufferRange> ranges;
      for (const BufferRef& ref : pd.buffers) {
        UNIVK_ASSIGN_OR_RETURN(univk::vulkan::BufferRange range, resolve(ref, buffers));
        ranges.push_back(range);
      }
      UNIVK_LOG(kDebug) << "VulkanBackend " << label << ": " << kernels::describe(*d.kernel);
      UNIVK_RETURN_IF_ERROR(kernels::record_kernel(recorder, pool, *pipeline, *d.kernel, ranges, label));
      continue;
    }
    std::vector<univk::vulkan::DescriptorWrite> descriptors;
    std::vector<univk::vulkan::BufferAccess> accesses;
    for (size_t b = 0; b < pd.buffers.size(); ++b) {
      UNIVK_ASSIGN_OR_RETURN(univk::vulkan::BufferRange range, resolve(pd.buffers[b], buffers));
      descriptors.push_back({0, static_cast<uint32_t>(b), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, range});
      const bool writes = d.bindings[b].kind == Operand::kOutput;
      // The dispatches of one operator that write disjoint parts of its output (cat) need no
      // barrier between them.
      accesses.push_back({range, writes, d.disjoint_write ? pd.op_index + 1 : 0});
    }
    univk::vulkan::DispatchDesc desc;
    desc.pipeline = pipeline;
    desc.descriptors = descriptors;
    desc.push_constants = {reinterpret_cast<const uint8_t*>(d.push.data()), d.push.size() * sizeof(uint32_t)};
    desc.groups = d.groups;
    desc.accesses = accesses;
    desc.label = label;
    UNIVK_RETURN_IF_ERROR(recorder.dispatch(pool, desc));
  }
  if (host_readback && !buffers.outputs.empty()) recorder.host_read_barrier();
  return recorder.counts();
}

}  // namespace univk::backends::vulkan
