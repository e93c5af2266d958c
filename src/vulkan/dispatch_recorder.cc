#include "univk/vulkan/dispatch_recorder.h"

#include <string>

#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/dispatch_limits.h"
#include "univk/vulkan/gpu_timer.h"

namespace univk::vulkan {

bool ranges_overlap(const BufferRange& a, const BufferRange& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

bool HazardTracker::conflicts(std::span<const BufferAccess> accesses) const {
  for (const BufferAccess& access : accesses) {
    for (const BufferAccess& pending : pending_) {
      if (!pending.write && !access.write) continue;  // read after read
      const bool disjoint_writes = access.write && pending.write && access.disjoint_write_group != 0 &&
                                   access.disjoint_write_group == pending.disjoint_write_group;
      if (!disjoint_writes && ranges_overlap(access.range, pending.range)) return true;
    }
  }
  return false;
}

void HazardTracker::add(std::span<const BufferAccess> accesses) {
  pending_.insert(pending_.end(), accesses.begin(), accesses.end());
}

void DispatchRecorder::before_command(std::span<const BufferAccess> accesses) {
  if (hazards_.conflicts(accesses)) {
    record_full_barrier(device_, cmd_);
    ++counts_.barriers;
    hazards_.clear();
  }
  hazards_.add(accesses);
}

void DispatchRecorder::host_read_barrier() {
  record_host_read_barrier(device_, cmd_);
  ++counts_.barriers;
}

Status DispatchRecorder::dispatch(DescriptorPool& pool, const DispatchDesc& desc) {
  bound_pipeline_ = nullptr;  // until this dispatch binds its own
  if (desc.pipeline == nullptr) return internal_error(std::string(desc.label) + ": no pipeline");
  UNIVK_RETURN_IF_ERROR(check_dispatch_groups(device_.properties().limits, desc.groups, desc.label));
  const std::vector<VkDescriptorSetLayout>& layouts = desc.pipeline->set_layouts();
  std::vector<VkDescriptorSet> sets;
  sets.reserve(layouts.size());
  for (VkDescriptorSetLayout layout : layouts) {
    UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, pool.allocate(layout));
    sets.push_back(set);
  }
  std::vector<VkDescriptorBufferInfo> infos(desc.descriptors.size());
  std::vector<VkWriteDescriptorSet> writes(desc.descriptors.size());
  for (size_t i = 0; i < desc.descriptors.size(); ++i) {
    const DescriptorWrite& d = desc.descriptors[i];
    if (d.set >= sets.size()) {
      return internal_error(std::string(desc.label) + ": descriptor set " + std::to_string(d.set) +
                            " is not in the pipeline's layout");
    }
    infos[i] = {d.range.buffer, d.range.offset, d.range.size};
    writes[i] = {};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = sets[d.set];
    writes[i].dstBinding = d.binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = d.type;
    writes[i].pBufferInfo = &infos[i];
  }
  const VolkDeviceTable& vk = device_.vk();
  if (!writes.empty()) {
    vk.vkUpdateDescriptorSets(device_.handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  before_command(desc.accesses);
  uint32_t span = 0;
  if (timer_ != nullptr) {
    UNIVK_ASSIGN_OR_RETURN(span, timer_->begin(cmd_, std::string(desc.label)));
  }
  vk.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, desc.pipeline->handle());
  if (!sets.empty()) {
    vk.vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, desc.pipeline->layout(), 0,
                               static_cast<uint32_t>(sets.size()), sets.data(), 0, nullptr);
  }
  bound_pipeline_ = desc.pipeline;
  return push_and_dispatch(desc, span);
}

Status DispatchRecorder::dispatch_again(const DispatchDesc& desc) {
  if (bound_pipeline_ == nullptr || desc.pipeline != bound_pipeline_) {
    return internal_error(std::string(desc.label) +
                          ": dispatched again without its pipeline bound by the last dispatch");
  }
  if (!desc.descriptors.empty()) {
    return internal_error(std::string(desc.label) + ": a dispatch again reuses the last dispatch's descriptor sets");
  }
  UNIVK_RETURN_IF_ERROR(check_dispatch_groups(device_.properties().limits, desc.groups, desc.label));
  before_command(desc.accesses);
  uint32_t span = 0;
  if (timer_ != nullptr) {
    UNIVK_ASSIGN_OR_RETURN(span, timer_->begin(cmd_, std::string(desc.label)));
  }
  return push_and_dispatch(desc, span);
}

Status DispatchRecorder::push_and_dispatch(const DispatchDesc& desc, uint32_t timer_span) {
  const VolkDeviceTable& vk = device_.vk();
  if (!desc.push_constants.empty()) {
    vk.vkCmdPushConstants(cmd_, desc.pipeline->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          static_cast<uint32_t>(desc.push_constants.size()), desc.push_constants.data());
  }
  vk.vkCmdDispatch(cmd_, desc.groups[0], desc.groups[1], desc.groups[2]);
  if (timer_ != nullptr) UNIVK_RETURN_IF_ERROR(timer_->end(cmd_, timer_span).status());
  ++counts_.dispatches;
  return ok_status();
}

}  // namespace univk::vulkan
