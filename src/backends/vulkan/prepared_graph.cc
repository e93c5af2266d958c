#include "prepared_graph.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::backends::vulkan {
namespace {

std::vector<ComputeTensorType> to_types(const std::vector<backend::TensorInfo>& infos) {
  std::vector<ComputeTensorType> out;
  for (const auto& info : infos) out.push_back({info.dtype, info.shape});
  return out;
}

// The precision, the tensor types and the payload bytes: everything create() depends on.
std::string sharing_key(const backend::DelegateSpec& spec, kernels::Precision precision) {
  std::string key = precision == kernels::Precision::kFp16 ? "fp16|" : "fp32|";
  auto add_types = [&](const std::vector<backend::TensorInfo>& infos) {
    for (const auto& info : infos) key += std::string(dtype_name(info.dtype)) + info.shape.to_string() + ";";
    key += "|";
  };
  add_types(spec.inputs);
  add_types(spec.outputs);
  key.append(reinterpret_cast<const char*>(spec.payload.data()), spec.payload.size());
  return key;
}

Status upload_constants(const std::shared_ptr<univk::vulkan::Device>& device, const ComputeGraph& graph,
                        PreparedGraph& prepared) {
  const GraphPlan& plan = prepared.plan;
  UNIVK_ASSIGN_OR_RETURN(prepared.constants, univk::vulkan::Buffer::create(device, plan.constant_bytes,
                                                                           univk::vulkan::MemoryKind::kDeviceLocal));
  if (plan.constants.empty()) return ok_status();
  UNIVK_ASSIGN_OR_RETURN(
      univk::vulkan::Buffer staging,
      univk::vulkan::Buffer::create(device, plan.constant_bytes, univk::vulkan::MemoryKind::kHostVisible,
                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT));
  auto* dst = static_cast<uint8_t*>(staging.mapped());
  for (const ConstantUpload& c : plan.constants) {
    const std::vector<uint8_t>& bytes = graph.values[c.value].constant;
    std::memcpy(dst + c.offset, bytes.data(), bytes.size());
  }
  const univk::vulkan::Device& dev = *device;
  UNIVK_ASSIGN_OR_RETURN(univk::vulkan::CommandPool pool, univk::vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(univk::vulkan::begin_command_buffer(dev, cmd));
  const univk::vulkan::BufferRange constants{prepared.constants.handle(), 0, plan.constant_bytes};
  univk::vulkan::record_copy(dev, cmd, {staging.handle(), 0, staging.size()}, constants);
  // Later submissions on this queue read the constants in compute shaders.
  univk::vulkan::record_buffer_barrier(dev, cmd, constants, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                                       VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                       VK_ACCESS_2_SHADER_READ_BIT);
  UNIVK_RETURN_IF_ERROR(univk::vulkan::end_command_buffer(dev, cmd));
  const VkCommandBuffer cmds[] = {cmd};
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, dev.queue().submit(cmds));
  Status waited = dev.queue().wait(value);
  // The staging buffer, the command buffer and the constant buffer must outlive the copy, even
  // when the wait failed (timed out behind other work, say): drain before they are freed.
  if (!waited.ok()) (void)dev.queue().wait_before_release(value);
  return waited;
}

Result<std::shared_ptr<const PreparedGraph>> create(const std::shared_ptr<univk::vulkan::Device>& device,
                                                    const backend::DelegateSpec& spec, const ComputeGraph& graph,
                                                    kernels::Precision precision) {
  auto prepared = std::make_shared<PreparedGraph>();
  UNIVK_ASSIGN_OR_RETURN(prepared->plan,
                         plan_graph(graph, to_types(spec.inputs), to_types(spec.outputs), storage_alignment(*device),
                                    kernels::device_traits(*device, precision)));
  const uint64_t max_range = device->properties().limits.maxStorageBufferRange;
  for (const PlannedDispatch& pd : prepared->plan.dispatches) {
    for (const BufferRef& ref : pd.buffers) {
      if (ref.size > max_range) {
        return unsupported("a tensor of " + std::to_string(ref.size) + " bytes exceeds the device's " +
                           "maxStorageBufferRange of " + std::to_string(max_range));
      }
    }
  }
  UNIVK_ASSIGN_OR_RETURN(prepared->pipelines, PipelineSet::create(device, prepared->plan));
  UNIVK_RETURN_IF_ERROR(upload_constants(device, graph, *prepared));
  return std::shared_ptr<const PreparedGraph>(std::move(prepared));
}

}  // namespace

uint64_t storage_alignment(const univk::vulkan::Device& device) {
  return std::max<uint64_t>(device.properties().limits.minStorageBufferOffsetAlignment, 16);
}

Result<std::shared_ptr<const PreparedGraph>> PreparedGraph::get_or_create(
    const std::shared_ptr<univk::vulkan::Device>& device, const backend::DelegateSpec& spec,
    const ComputeGraph& graph, kernels::Precision precision) {
  if (spec.payload.size() > kMaxSharedPayloadBytes) return create(device, spec, graph, precision);
  return device->shared_objects().get_or_create<PreparedGraph>(
      sharing_key(spec, precision), [&] { return create(device, spec, graph, precision); });
}

}  // namespace univk::backends::vulkan
