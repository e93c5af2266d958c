#include "univk/vulkan/pipeline.h"

#include <utility>

#include "univk/vulkan/device.h"

namespace univk::vulkan {

ComputePipelineDesc ComputePipelineDesc::storage_buffers(std::span<const uint32_t> spirv, uint32_t count,
                                                         uint32_t push_constant_bytes, std::string debug_name) {
  ComputePipelineDesc desc;
  desc.spirv = spirv;
  desc.sets.emplace_back();
  for (uint32_t i = 0; i < count; ++i) desc.sets[0].push_back({i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER});
  desc.push_constant_bytes = push_constant_bytes;
  desc.debug_name = std::move(debug_name);
  return desc;
}

Result<ComputePipeline> ComputePipeline::create(std::shared_ptr<Device> device, const ComputePipelineDesc& desc) {
  const std::string name = desc.debug_name.empty() ? std::string("compute pipeline") : desc.debug_name;
  if (!device) return invalid_argument(name + ": null device");
  constexpr uint32_t kSpirvMagic = 0x07230203;
  if (desc.spirv.size() < 5 || desc.spirv[0] != kSpirvMagic) {
    return invalid_argument(name + ": not a SPIR-V module (" + std::to_string(desc.spirv.size()) + " words)");
  }
  if (desc.push_constant_bytes % 4 != 0 ||
      desc.push_constant_bytes > device->properties().limits.maxPushConstantsSize) {
    return invalid_argument(name + ": push constant size " + std::to_string(desc.push_constant_bytes) +
                            " is not a multiple of 4 or exceeds the device limit " +
                            std::to_string(device->properties().limits.maxPushConstantsSize));
  }
  const VolkDeviceTable& vk = device->vk();
  VkDevice dev = device->handle();
  ComputePipeline pipeline;
  pipeline.device_ = device;
  auto fail = [&name](VkResult r, const char* call) { return vk_status(r, call).with_context(name); };

  for (const auto& set : desc.sets) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const auto& b : set) {
      VkDescriptorSetLayoutBinding binding{};
      binding.binding = b.binding;
      binding.descriptorType = b.type;
      binding.descriptorCount = 1;
      binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
      bindings.push_back(binding);
    }
    VkDescriptorSetLayoutCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    info.bindingCount = static_cast<uint32_t>(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VkResult r = vk.vkCreateDescriptorSetLayout(dev, &info, nullptr, &layout);
    if (r != VK_SUCCESS) return fail(r, "vkCreateDescriptorSetLayout");
    pipeline.set_layouts_.push_back(layout);
  }

  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.size = desc.push_constant_bytes;
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = static_cast<uint32_t>(pipeline.set_layouts_.size());
  layout_info.pSetLayouts = pipeline.set_layouts_.data();
  layout_info.pushConstantRangeCount = desc.push_constant_bytes > 0 ? 1 : 0;
  layout_info.pPushConstantRanges = &push;
  VkResult r = vk.vkCreatePipelineLayout(dev, &layout_info, nullptr, &pipeline.layout_);
  if (r != VK_SUCCESS) return fail(r, "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = desc.spirv.size_bytes();
  module_info.pCode = desc.spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  r = vk.vkCreateShaderModule(dev, &module_info, nullptr, &module);
  if (r != VK_SUCCESS) return fail(r, "vkCreateShaderModule");

  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint32_t> values;
  for (const auto& c : desc.specialization) {
    entries.push_back({c.id, static_cast<uint32_t>(values.size() * sizeof(uint32_t)), sizeof(uint32_t)});
    values.push_back(c.value);
  }
  VkSpecializationInfo spec{};
  spec.mapEntryCount = static_cast<uint32_t>(entries.size());
  spec.pMapEntries = entries.data();
  spec.dataSize = values.size() * sizeof(uint32_t);
  spec.pData = values.data();

  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = desc.entry_point.c_str();
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  info.layout = pipeline.layout_;
  if (device->has(Feature::kPipelineExecutableInfo)) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  r = vk.vkCreateComputePipelines(dev, device->pipeline_cache(), 1, &info, nullptr, &pipeline.pipeline_);
  vk.vkDestroyShaderModule(dev, module, nullptr);
  if (r != VK_SUCCESS) return fail(r, "vkCreateComputePipelines");
  return pipeline;
}

namespace {

std::string statistic_value(const VkPipelineExecutableStatisticKHR& statistic) {
  switch (statistic.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return statistic.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(statistic.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(statistic.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return std::to_string(statistic.value.f64);
    default:
      return "(format " + std::to_string(statistic.format) + ")";
  }
}

}  // namespace

Result<std::vector<PipelineStatistic>> ComputePipeline::statistics() const {
  if (!device_ || pipeline_ == VK_NULL_HANDLE) return invalid_argument("ComputePipeline::statistics: no pipeline");
  if (!device_->has(Feature::kPipelineExecutableInfo)) {
    return unsupported(
        "ComputePipeline::statistics: the device did not enable pipelineExecutableInfo "
        "(VK_KHR_pipeline_executable_properties)");
  }
  const VolkDeviceTable& vk = device_->vk();
  VkPipelineInfoKHR pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  pipeline_info.pipeline = pipeline_;
  uint32_t count = 0;
  UNIVK_VK_RETURN_IF_ERROR(vk.vkGetPipelineExecutablePropertiesKHR(device_->handle(), &pipeline_info, &count, nullptr));
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count);
  for (auto& e : executables) e.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  UNIVK_VK_RETURN_IF_ERROR(
      vk.vkGetPipelineExecutablePropertiesKHR(device_->handle(), &pipeline_info, &count, executables.data()));
  std::vector<PipelineStatistic> out;
  for (uint32_t i = 0; i < count; ++i) {
    VkPipelineExecutableInfoKHR executable{};
    executable.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    executable.pipeline = pipeline_;
    executable.executableIndex = i;
    uint32_t statistic_count = 0;
    UNIVK_VK_RETURN_IF_ERROR(
        vk.vkGetPipelineExecutableStatisticsKHR(device_->handle(), &executable, &statistic_count, nullptr));
    std::vector<VkPipelineExecutableStatisticKHR> statistics(statistic_count);
    for (auto& s : statistics) s.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    UNIVK_VK_RETURN_IF_ERROR(
        vk.vkGetPipelineExecutableStatisticsKHR(device_->handle(), &executable, &statistic_count, statistics.data()));
    for (uint32_t j = 0; j < statistic_count; ++j) {
      out.push_back(
          {executables[i].name, statistics[j].name, statistics[j].description, statistic_value(statistics[j])});
    }
  }
  return out;
}

ComputePipeline::ComputePipeline(ComputePipeline&& other) noexcept { *this = std::move(other); }

ComputePipeline& ComputePipeline::operator=(ComputePipeline&& other) noexcept {
  if (this == &other) return *this;
  release();
  device_ = std::move(other.device_);
  pipeline_ = std::exchange(other.pipeline_, VK_NULL_HANDLE);
  layout_ = std::exchange(other.layout_, VK_NULL_HANDLE);
  set_layouts_ = std::exchange(other.set_layouts_, {});
  return *this;
}

ComputePipeline::~ComputePipeline() { release(); }

void ComputePipeline::release() {
  if (device_) {
    const VolkDeviceTable& vk = device_->vk();
    if (pipeline_ != VK_NULL_HANDLE) vk.vkDestroyPipeline(device_->handle(), pipeline_, nullptr);
    if (layout_ != VK_NULL_HANDLE) vk.vkDestroyPipelineLayout(device_->handle(), layout_, nullptr);
    for (VkDescriptorSetLayout l : set_layouts_) vk.vkDestroyDescriptorSetLayout(device_->handle(), l, nullptr);
  }
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  set_layouts_.clear();
  device_.reset();
}

Result<DescriptorPool> DescriptorPool::create(std::shared_ptr<Device> device, uint32_t max_sets,
                                              uint32_t storage_buffers,
                                              std::span<const VkDescriptorPoolSize> extra_sizes) {
  if (!device) return invalid_argument("DescriptorPool::create: null device");
  if (max_sets == 0) return invalid_argument("DescriptorPool::create: max_sets must be > 0");
  std::vector<VkDescriptorPoolSize> sizes;
  if (storage_buffers > 0) sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storage_buffers});
  sizes.insert(sizes.end(), extra_sizes.begin(), extra_sizes.end());
  VkDescriptorPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  info.maxSets = max_sets;
  info.poolSizeCount = static_cast<uint32_t>(sizes.size());
  info.pPoolSizes = sizes.data();
  DescriptorPool pool;
  pool.device_ = device;
  UNIVK_VK_RETURN_IF_ERROR(device->vk().vkCreateDescriptorPool(device->handle(), &info, nullptr, &pool.pool_));
  return pool;
}

DescriptorPool::DescriptorPool(DescriptorPool&& other) noexcept { *this = std::move(other); }

DescriptorPool& DescriptorPool::operator=(DescriptorPool&& other) noexcept {
  if (this == &other) return *this;
  release();
  device_ = std::move(other.device_);
  pool_ = std::exchange(other.pool_, VK_NULL_HANDLE);
  return *this;
}

DescriptorPool::~DescriptorPool() { release(); }

void DescriptorPool::release() {
  if (device_ && pool_ != VK_NULL_HANDLE) device_->vk().vkDestroyDescriptorPool(device_->handle(), pool_, nullptr);
  pool_ = VK_NULL_HANDLE;
  device_.reset();
}

Result<VkDescriptorSet> DescriptorPool::allocate(VkDescriptorSetLayout layout) {
  if (!device_) return invalid_argument("DescriptorPool::allocate on an empty pool");
  VkDescriptorSetAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  info.descriptorPool = pool_;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkAllocateDescriptorSets(device_->handle(), &info, &set));
  return set;
}

void DescriptorPool::write_storage_buffers(VkDescriptorSet set, std::span<const BufferRange> ranges) {
  if (!device_ || ranges.empty()) return;
  std::vector<VkDescriptorBufferInfo> infos(ranges.size());
  std::vector<VkWriteDescriptorSet> writes(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    infos[i] = {ranges[i].buffer, ranges[i].offset, ranges[i].size};
    writes[i] = {};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  device_->vk().vkUpdateDescriptorSets(device_->handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0,
                                       nullptr);
}

}  // namespace univk::vulkan
