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

// The binding limit, the precision, the tensor types and the payload bytes: everything create()
// depends on.
std::string sharing_key(const backend::DelegateSpec& spec, uint64_t binding_limit, kernels::Precision precision) {
  std::string key = std::to_string(binding_limit) + (precision == kernels::Precision::kFp16 ? "|fp16|" : "|fp32|");
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
  // One allocation for every constant: beyond maxMemoryAllocationSize the driver may refuse it.
  auto buffer = univk::vulkan::Buffer::create(device, plan.constant_bytes, univk::vulkan::MemoryKind::kDeviceLocal);
  if (!buffer.ok()) return buffer.status().with_context("VulkanBackend constant buffer (one allocation)");
  prepared.constants = std::move(buffer).value();
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
                                                    uint64_t binding_limit, kernels::Precision precision) {
  auto prepared = std::make_shared<PreparedGraph>();
  kernels::DeviceTraits traits = kernels::device_traits(*device, precision);
  traits.max_binding_bytes = binding_limit;
  UNIVK_ASSIGN_OR_RETURN(prepared->plan, plan_graph(graph, to_types(spec.inputs), to_types(spec.outputs),
                                                    storage_alignment(*device), traits));
  for (const PlannedDispatch& pd : prepared->plan.dispatches) {
    for (const BufferRef& ref : pd.buffers) {
      if (ref.size > binding_limit) {
        const Dispatch& d = pd.dispatch;
        return unsupported("ops[" + std::to_string(pd.op_index) + "]: a " +
                           (d.kernel ? kernels::kernel_name(d.kernel->kernel) : shader_name(d.shader)) +
                           " dispatch binds a tensor of " + std::to_string(ref.size) +
                           " bytes, over the binding limit of " + std::to_string(binding_limit) +
                           " bytes (maxStorageBufferRange, or the max_binding_bytes option); only kernel-library "
                           "dispatches (linear, matmul, bmm, addmm, conv2d but depthwise) are split");
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
    const std::shared_ptr<univk::vulkan::Device>& device, const backend::DelegateSpec& spec, const ComputeGraph& graph,
    uint64_t max_binding_bytes, kernels::Precision precision) {
  const uint64_t limit = std::min<uint64_t>(device->properties().limits.maxStorageBufferRange, max_binding_bytes);
  if (spec.payload.size() > kMaxSharedPayloadBytes) return create(device, spec, graph, limit, precision);
  return device->shared_objects().get_or_create<PreparedGraph>(
      sharing_key(spec, limit, precision), [&] { return create(device, spec, graph, limit, precision); });
}

}  // namespace univk::backends::vulkan
