#include "pipeline_warm_up.h"

#include <vector>

#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::vulkan {
namespace {

// Every descriptor points at this many bytes: the smallest maxUniformBufferRange Vulkan allows,
// so uniform and storage descriptors alike are in range. Nothing reads it (zero workgroups).
constexpr VkDeviceSize kScratchBytes = 16384;

}  // namespace

bool compiles_at_first_dispatch(const Device& device) {
  return device.properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

Status warm_up_pipeline(const std::shared_ptr<Device>& device, const ComputePipeline& pipeline,
                        const ComputePipelineDesc& desc) {
  const VolkDeviceTable& vk = device->vk();
  uint32_t storage = 0, uniform = 0;
  for (const auto& set : desc.sets) {
    for (const DescriptorBinding& b : set) (b.type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ? uniform : storage)++;
  }
  std::vector<VkDescriptorPoolSize> extra;
  if (uniform > 0) extra.push_back({VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, uniform});
  const uint32_t set_count = static_cast<uint32_t>(pipeline.set_layouts().size());
  UNIVK_ASSIGN_OR_RETURN(Buffer scratch, Buffer::create(device, kScratchBytes, MemoryKind::kDeviceLocal,
                                                        kDefaultBufferUsage | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT));
  UNIVK_ASSIGN_OR_RETURN(DescriptorPool pool, DescriptorPool::create(device, std::max(set_count, 1u), storage, extra));
  std::vector<VkDescriptorSet> sets;
  for (VkDescriptorSetLayout layout : pipeline.set_layouts()) {
    UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, pool.allocate(layout));
    sets.push_back(set);
  }
  const VkDescriptorBufferInfo scratch_info{scratch.handle(), 0, kScratchBytes};
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t s = 0; s < desc.sets.size() && s < sets.size(); ++s) {
    for (const DescriptorBinding& b : desc.sets[s]) {
      VkWriteDescriptorSet write{};
      write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      write.dstSet = sets[s];
      write.dstBinding = b.binding;
      write.descriptorCount = 1;
      write.descriptorType = b.type;
      write.pBufferInfo = &scratch_info;
      writes.push_back(write);
    }
  }
  vk.vkUpdateDescriptorSets(device->handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  UNIVK_ASSIGN_OR_RETURN(CommandPool commands, CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, commands.allocate());
  UNIVK_RETURN_IF_ERROR(begin_command_buffer(*device, cmd));
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  if (!sets.empty()) {
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0,
                               static_cast<uint32_t>(sets.size()), sets.data(), 0, nullptr);
  }
  if (desc.push_constant_bytes > 0) {
    const std::vector<uint8_t> zeros(desc.push_constant_bytes, 0);
    vk.vkCmdPushConstants(cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.push_constant_bytes,
                          zeros.data());
  }
  vk.vkCmdDispatch(cmd, 0, 0, 0);
  UNIVK_RETURN_IF_ERROR(end_command_buffer(*device, cmd));
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, device->queue().submit(std::span<const VkCommandBuffer>(&cmd, 1)));
  Status waited = device->queue().wait(value);
  // The pool, sets and scratch buffer go when this returns: on a failed wait, wait without a
  // limit first (what a destructor does) so nothing the GPU may still read is freed.
  if (!waited.ok()) (void)device->queue().wait_before_release(value);
  return waited;
}

}  // namespace univk::vulkan
