#include "native_graph.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "univk/tensor/shape.h"
#include "univk/vulkan/device.h"

namespace univk::backends::vgf {

namespace arm = vulkan::arm;

namespace {

std::string shape_string(const std::vector<int64_t>& shape) { return Shape(shape).to_string(); }

arm::TensorDescription describe(const std::vector<int64_t>& shape, VkFormat format) {
  arm::TensorDescription d;
  d.format = format;
  d.dimensionCount = static_cast<uint32_t>(shape.size());
  d.pDimensions = shape.data();
  d.usage = arm::kTensorUsageDataGraph;
  return d;
}

}  // namespace

Status check_tensor_memory(const VkMemoryRequirements& req, const vulkan::BufferRange& range, const std::string& what) {
  if (range.memory == VK_NULL_HANDLE || range.memory_type == vulkan::kUnknownMemoryType)
    return internal_error(what + ": its buffer range does not say which device memory (and memory type) backs it");
  if (range.memory_type >= 32 || ((req.memoryTypeBits >> range.memory_type) & 1u) == 0) {
    char bits[16];
    std::snprintf(bits, sizeof(bits), "0x%x", req.memoryTypeBits);
    return unsupported(what + " lives in memory type " + std::to_string(range.memory_type) +
                       ", which the tensor cannot be bound to (its memoryTypeBits are " + bits + ")");
  }
  if (req.alignment > 1 && range.offset % req.alignment != 0)
    return unsupported(what + " starts at byte " + std::to_string(range.offset) +
                       " of its memory; the tensor needs an alignment of " + std::to_string(req.alignment));
  if (req.size > range.size)
    return unsupported(what + ": the tensor needs " + std::to_string(req.size) + " bytes, its buffer range holds " +
                       std::to_string(range.size));
  return ok_status();
}

Result<std::unique_ptr<NativeGraph>> NativeGraph::create(vulkan::DeviceLease device,
                                                         const vulkan::DataGraphDispatch& arm,
                                                         const univk::vgf::VgfFile& file, size_t segment_index,
                                                         const spirv::TosaGraph& graph) {
  std::unique_ptr<NativeGraph> native(new NativeGraph());
  native->device_ = std::move(device);
  native->arm_ = arm;
  native->label_ = "data-graph pipeline of segment " + std::to_string(segment_index) + " '" +
                   file.segments[segment_index].name + "'";
  Status s = native->create_pipeline(file, segment_index, graph);
  if (s.ok()) s = native->create_session();
  if (!s.ok()) return s.with_context(native->label_);
  return native;
}

Status NativeGraph::create_pipeline(const univk::vgf::VgfFile& file, size_t segment_index,
                                    const spirv::TosaGraph& graph) {
  const univk::vgf::Segment& segment = file.segments[segment_index];
  const VkDevice dev = device_->handle();
  const VolkDeviceTable& vk = device_->vk();

  // Bindings from the resource table, each matched with the module's interface tensor.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<spirv::ValueId, bool>> interface;
  for (const auto& in : graph.inputs) interface[{
      in.descriptor_set, in.binding}] = {in.value, false};
  for (const auto& out : graph.outputs) interface[{
      out.descriptor_set, out.binding}] = {out.value, true};
  for (size_t i = 0; i < segment.set_infos.size(); ++i) {
    for (const auto& slot : segment.set_infos[i].bindings) {
      const NativeBinding b{segment.set_number(i), slot.binding, slot.resource_index, false};
      const std::string where = "set " + std::to_string(b.set) + " binding " + std::to_string(b.binding) +
                                " (resource " + std::to_string(b.resource) + ")";
      auto found = interface.find({b.set, b.binding});
      if (found == interface.end()) return invalid_argument(where + ": the module has no tensor there");
      const univk::vgf::Resource& r = file.resources[slot.resource_index];
      const spirv::TosaTensorType& type = graph.values[found->second.first].type;
      const auto dtype = univk::vgf::dtype_from_vk_format(r.vk_format);
      if (!dtype || *dtype != type.dtype || r.shape != type.shape)
        return invalid_argument(where + ": the resource table has " + univk::vgf::vk_format_name(r.vk_format) + " " +
                                shape_string(r.shape) + ", the module " + spirv::to_string(type));
      bindings_.push_back({b.set, b.binding, b.resource, found->second.second});
      shapes_.push_back(r.shape);
      formats_.push_back(static_cast<VkFormat>(r.vk_format));
      interface.erase(found);
    }
  }
  if (!interface.empty())
    return invalid_argument("the module's tensor at set " + std::to_string(interface.begin()->first.first) +
                            " binding " + std::to_string(interface.begin()->first.second) +
                            " has no entry in the segment's descriptor sets");

  // Set layouts for sets 0..max (a gap gets an empty layout), then the pipeline layout.
  uint32_t set_count = 0;
  for (const auto& b : bindings_) set_count = std::max(set_count, b.set + 1);
  if (set_count > 8) return unsupported("descriptor set " + std::to_string(set_count - 1) + " (at most 8 sets)");
  set_layouts_.assign(set_count, VK_NULL_HANDLE);
  for (uint32_t set = 0; set < set_count; ++set) {
    std::vector<VkDescriptorSetLayoutBinding> entries;
    for (const auto& b : bindings_) {
      if (b.set != set) continue;
      VkDescriptorSetLayoutBinding e{};
      e.binding = b.binding;
      e.descriptorType = arm::kDescriptorTypeTensor;
      e.descriptorCount = 1;
      e.stageFlags = VK_SHADER_STAGE_ALL;
      entries.push_back(e);
    }
    VkDescriptorSetLayoutCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    info.bindingCount = static_cast<uint32_t>(entries.size());
    info.pBindings = entries.data();
    UNIVK_VK_RETURN_IF_ERROR(vk.vkCreateDescriptorSetLayout(dev, &info, nullptr, &set_layouts_[set]));
  }
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = set_count;
  layout_info.pSetLayouts = set_layouts_.data();
  UNIVK_VK_RETURN_IF_ERROR(vk.vkCreatePipelineLayout(dev, &layout_info, nullptr, &layout_));

  const auto words = file.modules[segment.module_index].spirv();
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = words.size_bytes();
  module_info.pCode = words.data();
  UNIVK_VK_RETURN_IF_ERROR(vk.vkCreateShaderModule(dev, &module_info, nullptr, &module_));

  // One resource info per binding, its description in pNext.
  std::vector<arm::TensorDescription> descriptions;
  descriptions.reserve(bindings_.size());
  std::vector<arm::DataGraphPipelineResourceInfo> resources(bindings_.size());
  for (size_t i = 0; i < bindings_.size(); ++i) {
    descriptions.push_back(describe(shapes_[i], formats_[i]));
    resources[i].pNext = &descriptions.back();
    resources[i].descriptorSet = bindings_[i].set;
    resources[i].binding = bindings_[i].binding;
  }

  // Every graph constant, once per id, checked before the layer sees it.
  std::vector<std::vector<int64_t>> constant_shapes;
  std::vector<arm::TensorDescription> constant_descriptions;
  std::vector<arm::DataGraphPipelineConstant> constants;
  std::set<uint32_t> ids;
  size_t graph_constants = 0;
  for (const auto& v : graph.values)
    if (v.kind == spirv::ValueKind::kGraphConstant) ++graph_constants;
  constant_shapes.reserve(graph_constants);
  constant_descriptions.reserve(graph_constants);
  for (const auto& v : graph.values) {
    if (v.kind != spirv::ValueKind::kGraphConstant || !ids.insert(v.graph_constant_id).second) continue;
    const std::string what = "graph constant " + std::to_string(v.graph_constant_id);
    const auto index = segment.constant_for_graph_constant(v.graph_constant_id, file.constants.size());
    if (!index) return invalid_argument(what + " (" + spirv::to_string(v.type) + ") is not in the VGF's constants");
    const auto data = file.constants[*index].data();
    const uint64_t expected = static_cast<uint64_t>(v.type.element_count()) * dtype_size(v.type.dtype);
    const auto format = univk::vgf::vk_format_from_dtype(v.type.dtype);
    if (!format) return unsupported(what + ": no tensor format for " + spirv::to_string(v.type));
    if (data.size() != expected)
      return invalid_argument(what + " (" + spirv::to_string(v.type) + ") needs " + std::to_string(expected) +
                              " bytes, constant " + std::to_string(*index) + " holds " + std::to_string(data.size()));
    constant_shapes.push_back(v.type.shape);
    constant_descriptions.push_back(describe(constant_shapes.back(), static_cast<VkFormat>(*format)));
    arm::DataGraphPipelineConstant c;
    c.pNext = &constant_descriptions.back();
    c.id = v.graph_constant_id;
    c.pConstantData = data.data();
    constants.push_back(c);
  }

  arm::DataGraphPipelineShaderModuleCreateInfo module_stage;
  module_stage.module = module_;
  module_stage.pName = graph.entry_point.c_str();
  module_stage.constantCount = static_cast<uint32_t>(constants.size());
  module_stage.pConstants = constants.data();
  arm::DataGraphPipelineCreateInfo info;
  info.pNext = &module_stage;
  info.layout = layout_;
  info.resourceInfoCount = static_cast<uint32_t>(resources.size());
  info.pResourceInfos = resources.data();
  UNIVK_VK_RETURN_IF_ERROR(
      arm_.vkCreateDataGraphPipelinesARM(dev, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline_));
  return ok_status();
}

Status NativeGraph::create_session() {
  const VkDevice dev = device_->handle();
  arm::DataGraphPipelineSessionCreateInfo info;
  info.dataGraphPipeline = pipeline_;
  UNIVK_VK_RETURN_IF_ERROR(arm_.vkCreateDataGraphPipelineSessionARM(dev, &info, nullptr, &session_));

  arm::DataGraphPipelineSessionBindPointRequirementsInfo query;
  query.session = session_;
  uint32_t count = 0;
  UNIVK_VK_RETURN_IF_ERROR(arm_.vkGetDataGraphPipelineSessionBindPointRequirementsARM(dev, &query, &count, nullptr));
  std::vector<arm::DataGraphPipelineSessionBindPointRequirement> requirements(count);
  UNIVK_VK_RETURN_IF_ERROR(
      arm_.vkGetDataGraphPipelineSessionBindPointRequirementsARM(dev, &query, &count, requirements.data()));
  requirements.resize(count);
  for (const auto& requirement : requirements) {
    if (requirement.bindPointType != arm::kSessionBindPointTypeMemory)
      return unsupported("session bind point type " + std::to_string(requirement.bindPointType) +
                         " (only memory bind points are supported)");
    for (uint32_t object = 0; object < requirement.numObjects; ++object) {
      arm::DataGraphPipelineSessionMemoryRequirementsInfo memory_info;
      memory_info.session = session_;
      memory_info.bindPoint = requirement.bindPoint;
      memory_info.objectIndex = object;
      VkMemoryRequirements2 memory{};
      memory.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
      arm_.vkGetDataGraphPipelineSessionMemoryRequirementsARM(dev, &memory_info, &memory);
      if (memory.memoryRequirements.size == 0) continue;
      UNIVK_ASSIGN_OR_RETURN(uint32_t type, device_->find_memory_type(memory.memoryRequirements.memoryTypeBits,
                                                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
      VkMemoryAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
      alloc.allocationSize = memory.memoryRequirements.size;
      alloc.memoryTypeIndex = type;
      VkDeviceMemory block = VK_NULL_HANDLE;
      UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkAllocateMemory(dev, &alloc, nullptr, &block));
      session_memory_.emplace_back(block, alloc.allocationSize);
      device_->note_allocation(1, static_cast<int64_t>(alloc.allocationSize));
      arm::BindDataGraphPipelineSessionMemoryInfo bind;
      bind.session = session_;
      bind.bindPoint = requirement.bindPoint;
      bind.objectIndex = object;
      bind.memory = block;
      UNIVK_VK_RETURN_IF_ERROR(arm_.vkBindDataGraphPipelineSessionMemoryARM(dev, 1, &bind));
    }
  }
  return ok_status();
}

NativeGraph::~NativeGraph() {
  if (!device_) return;
  const VkDevice dev = device_->handle();
  const VolkDeviceTable& vk = device_->vk();
  if (session_ != nullptr) arm_.vkDestroyDataGraphPipelineSessionARM(dev, session_, nullptr);
  for (const auto& [block, size] : session_memory_) {
    vk.vkFreeMemory(dev, block, nullptr);
    device_->note_allocation(-1, -static_cast<int64_t>(size));
  }
  if (pipeline_ != VK_NULL_HANDLE) vk.vkDestroyPipeline(dev, pipeline_, nullptr);
  if (module_ != VK_NULL_HANDLE) vk.vkDestroyShaderModule(dev, module_, nullptr);
  if (layout_ != VK_NULL_HANDLE) vk.vkDestroyPipelineLayout(dev, layout_, nullptr);
  for (VkDescriptorSetLayout l : set_layouts_)
    if (l != VK_NULL_HANDLE) vk.vkDestroyDescriptorSetLayout(dev, l, nullptr);
}

Result<std::unique_ptr<NativeGraphBinding>> NativeGraph::bind(std::span<const vulkan::BufferRange> ranges) const {
  if (ranges.size() != bindings_.size()) return internal_error(label_ + ": wrong number of tensor ranges");
  const VkDevice dev = device_->handle();
  std::unique_ptr<NativeGraphBinding> bound(new NativeGraphBinding());
  bound->device_ = device_;
  bound->arm_ = arm_;
  for (size_t i = 0; i < bindings_.size(); ++i) {
    const vulkan::BufferRange& range = ranges[i];
    const std::string where = label_ + ": resource " + std::to_string(bindings_[i].resource);
    const arm::TensorDescription description = describe(shapes_[i], formats_[i]);
    arm::TensorCreateInfo info;
    info.pDescription = &description;
    arm::Tensor tensor = nullptr;
    UNIVK_VK_RETURN_IF_ERROR(arm_.vkCreateTensorARM(dev, &info, nullptr, &tensor));
    bound->tensors_.push_back(tensor);
    arm::TensorMemoryRequirementsInfo requirements_info;
    requirements_info.tensor = tensor;
    VkMemoryRequirements2 requirements{};
    requirements.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    arm_.vkGetTensorMemoryRequirementsARM(dev, &requirements_info, &requirements);
    UNIVK_RETURN_IF_ERROR(check_tensor_memory(requirements.memoryRequirements, range, where));
    arm::BindTensorMemoryInfo bind;
    bind.tensor = tensor;
    bind.memory = range.memory;
    bind.memoryOffset = range.offset;
    UNIVK_VK_RETURN_IF_ERROR(arm_.vkBindTensorMemoryARM(dev, 1, &bind));
    arm::TensorViewCreateInfo view_info;
    view_info.tensor = tensor;
    view_info.format = formats_[i];
    arm::TensorView view = nullptr;
    UNIVK_VK_RETURN_IF_ERROR(arm_.vkCreateTensorViewARM(dev, &view_info, nullptr, &view));
    bound->views_.push_back(view);
  }

  const VkDescriptorPoolSize tensors = {arm::kDescriptorTypeTensor, static_cast<uint32_t>(bindings_.size())};
  UNIVK_ASSIGN_OR_RETURN(bound->pool_, vulkan::DescriptorPool::create(
                                           device_, static_cast<uint32_t>(set_layouts_.size()), 1, {&tensors, 1}));
  bound->sets_.assign(set_layouts_.size(), VK_NULL_HANDLE);
  std::vector<arm::WriteDescriptorSetTensor> tensor_writes(bindings_.size());
  std::vector<VkWriteDescriptorSet> writes(bindings_.size());
  for (size_t i = 0; i < bindings_.size(); ++i) {
    VkDescriptorSet& set = bound->sets_[bindings_[i].set];
    if (set == VK_NULL_HANDLE) {
      UNIVK_ASSIGN_OR_RETURN(set, bound->pool_.allocate(set_layouts_[bindings_[i].set]));
    }
    tensor_writes[i].tensorViewCount = 1;
    tensor_writes[i].pTensorViews = &bound->views_[i];
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].pNext = &tensor_writes[i];
    writes[i].dstSet = set;
    writes[i].dstBinding = bindings_[i].binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = arm::kDescriptorTypeTensor;
  }
  device_->vk().vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return bound;
}

void NativeGraph::record(VkCommandBuffer cmd, const NativeGraphBinding& binding) const {
  const VolkDeviceTable& vk = device_->vk();
  vk.vkCmdBindPipeline(cmd, arm::kPipelineBindPointDataGraph, pipeline_);
  for (uint32_t set = 0; set < binding.sets_.size(); ++set) {
    if (binding.sets_[set] == VK_NULL_HANDLE) continue;
    vk.vkCmdBindDescriptorSets(cmd, arm::kPipelineBindPointDataGraph, layout_, set, 1, &binding.sets_[set], 0, nullptr);
  }
  arm::DataGraphPipelineDispatchInfo info;
  arm_.vkCmdDispatchDataGraphARM(cmd, session_, &info);
}

NativeGraphBinding::~NativeGraphBinding() {
  if (!device_) return;
  const VkDevice dev = device_->handle();
  for (arm::TensorView view : views_) arm_.vkDestroyTensorViewARM(dev, view, nullptr);
  for (arm::Tensor tensor : tensors_) arm_.vkDestroyTensorARM(dev, tensor, nullptr);
}

}  // namespace univk::backends::vgf
