#include "vgf_delegate.h"

#include <algorithm>
#include <cstring>

#include "dispatch_emitters.h"
#include "lower_graph.h"
#include "requirements.h"
#include "resource_layout.h"
#include "univk/base/logging.h"
#include "univk/base/parallel_copy.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/dispatch_limits.h"
#include "univk/vulkan/pipeline_cache.h"
#include "univk/vulkan/queue.h"

namespace univk::backends::vgf {

using vulkan::BufferRange;

namespace {

std::string resource_name(uint32_t index) { return "resource " + std::to_string(index); }

// Copies a packed host tensor into a (possibly strided) resource, or back.
void copy_strided(const univk::vgf::Resource& r, const std::vector<int64_t>& strides, size_t elem, uint8_t* device,
                  uint8_t* host, bool to_device) {
  const Shape shape(r.shape);
  const int64_t n = shape.numel();
  std::vector<int64_t> coord(shape.rank(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < coord.size(); ++d) off += coord[d] * strides[d];
    if (to_device)
      std::memcpy(device + off * elem, host + i * elem, elem);
    else
      std::memcpy(host + i * elem, device + off * elem, elem);
    for (size_t d = coord.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

}  // namespace

Result<std::unique_ptr<VgfDelegate>> VgfDelegate::create(const backend::DelegateSpec& spec,
                                                         const univk::vgf::VgfFile& file, vulkan::DeviceLease device,
                                                         const DelegateOptions& options) {
  if (!device) return invalid_argument("VgfBackend: no device");
  std::unique_ptr<VgfDelegate> delegate(new VgfDelegate());
  delegate->device_ = std::move(device);
  delegate->options_ = options;
  Status s = delegate->init(spec, file);
  if (!s.ok()) return s.with_context("VgfBackend");
  return delegate;
}

VgfDelegate::~VgfDelegate() {
  // Wait only for this delegate's own work; the queue's other users are not our business.
  if (last_submission_ != 0) {
    Status s = device_->queue().wait_before_release(last_submission_);
    if (!s.ok()) {
      UNIVK_LOG(kError) << "VgfBackend: waiting for the last submission failed: " << s.to_string();
    }
  }
}

size_t VgfDelegate::staged_outputs() const {
  return static_cast<size_t>(std::count_if(output_staging_.begin(), output_staging_.end(),
                                           [](const vulkan::Buffer& b) { return static_cast<bool>(b); }));
}

uint64_t VgfDelegate::binding_limit() const {
  return std::min<uint64_t>(device_->properties().limits.maxStorageBufferRange, options_.max_binding_bytes);
}

std::vector<std::string> VgfDelegate::dispatch_labels() const {
  std::vector<std::string> labels;
  for (const auto& seg : segments_) {
    if (seg.graph)
      for (const auto& k : seg.graph->dispatches) labels.push_back(k.label);
    if (seg.native) labels.push_back("DATA_GRAPH");
    if (seg.compute) labels.push_back("COMPUTE");
  }
  return labels;
}

Status VgfDelegate::init(const backend::DelegateSpec& spec, const univk::vgf::VgfFile& file) {
  spec_ = spec;
  file_ = file;
  UNIVK_RETURN_IF_ERROR(check_runnable(file_));
  UNIVK_RETURN_IF_ERROR(check_resource_layouts(file_));

  // Model interface against the program's view of the call.
  if (spec.inputs.size() != file_.inputs.size() || spec.outputs.size() != file_.outputs.size())
    return invalid_argument("the program passes " + std::to_string(spec.inputs.size()) + " inputs / " +
                            std::to_string(spec.outputs.size()) + " outputs but the VGF has " +
                            std::to_string(file_.inputs.size()) + " / " + std::to_string(file_.outputs.size()));
  auto check_io = [&](const univk::vgf::BindingSlot& slot, const backend::TensorInfo& info, const char* what,
                      size_t i) -> Status {
    const univk::vgf::Resource& r = file_.resources[slot.resource_index];
    auto bytes = resource_byte_size(r);
    if (!bytes.ok()) return bytes.status().with_context(std::string("model ") + what + " " + std::to_string(i));
    const auto dtype = univk::vgf::dtype_from_vk_format(r.vk_format);
    if (!dtype || *dtype != info.dtype || Shape(r.shape).numel() != info.shape.numel())
      return invalid_argument(std::string("model ") + what + " " + std::to_string(i) + ": VGF has " +
                              univk::vgf::vk_format_name(r.vk_format) + " " + Shape(r.shape).to_string() +
                              ", the program " + std::string(dtype_name(info.dtype)) + " " + info.shape.to_string());
    return ok_status();
  };
  for (size_t i = 0; i < file_.inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_io(file_.inputs[i], spec.inputs[i], "input", i));
    input_resources_.push_back(file_.inputs[i].resource_index);
  }
  for (size_t i = 0; i < file_.outputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_io(file_.outputs[i], spec.outputs[i], "output", i));
    output_resources_.push_back(file_.outputs[i].resource_index);
  }
  // Alias groups by how many model inputs and outputs bind them.
  std::map<int64_t, int> io_bindings;
  for (uint32_t r : input_resources_) ++io_bindings[group_key(r)];
  for (uint32_t r : output_resources_) ++io_bindings[group_key(r)];
  copied_io_.assign(file_.resources.size(), false);
  for (uint32_t r = 0; r < file_.resources.size(); ++r) {
    if (!is_model_io(r)) continue;
    UNIVK_ASSIGN_OR_RETURN(auto strides, resource_element_strides(file_.resources[r]));
    copied_io_[r] = !strides_are_packed(file_.resources[r].shape, strides) || io_bindings[group_key(r)] > 1;
  }

  // Constants: every VGF constant once, 16-byte aligned, then inline TOSA constants.
  for (size_t i = 0; i < file_.constants.size(); ++i) {
    constant_bytes_.resize((constant_bytes_.size() + 15) / 16 * 16);
    constant_offsets_[static_cast<uint32_t>(i)] = constant_bytes_.size();
    auto data = file_.constants[i].data();
    constant_bytes_.insert(constant_bytes_.end(), data.begin(), data.end());
  }

  const bool has_compute =
      std::any_of(file_.segments.begin(), file_.segments.end(),
                  [](const univk::vgf::Segment& seg) { return seg.type == univk::vgf::ModuleType::kCompute; });
  if (has_compute && options_.robust_buffer_access && !device_->has(vulkan::Feature::kRobustBufferAccess))
    return unsupported(
        "the VGF has COMPUTE segments (shaders from the program file) and the device did not enable "
        "robustBufferAccess, which keeps them inside their bindings; load with "
        "vgf_robust_buffer_access=off to run them without it");

  std::vector<std::optional<spirv::TosaGraph>> graphs(file_.segments.size());
  for (size_t s = 0; s < file_.segments.size(); ++s) {
    const univk::vgf::Segment& seg = file_.segments[s];
    if (seg.type != univk::vgf::ModuleType::kGraph) continue;
    auto graph = spirv::read_tosa_graph(file_.modules[seg.module_index].spirv());
    if (!graph.ok()) return graph.status().with_context("segment " + std::to_string(s) + " '" + seg.name + "'");
    graphs[s] = std::move(graph).value();
  }
  UNIVK_RETURN_IF_ERROR(choose_path(graphs));

  uint64_t scratch_bytes = 0;
  for (size_t s = 0; s < file_.segments.size(); ++s) {
    const univk::vgf::Segment& seg = file_.segments[s];
    const univk::vgf::Module& module = file_.modules[seg.module_index];
    PreparedSegment prepared;
    const std::string where = "segment " + std::to_string(s) + " '" + seg.name + "'";
    if (seg.type == univk::vgf::ModuleType::kGraph && graph_path_ == GraphPath::kNative) {
      auto native = NativeGraph::create(device_, arm_, file_, s, *graphs[s]);
      if (!native.ok()) return native.status();
      prepared.native = std::move(native).value();
    } else if (seg.type == univk::vgf::ModuleType::kGraph) {
      const std::optional<spirv::TosaGraph>& graph = graphs[s];
      LoweringContext context;
      context.binding_limit = {binding_limit(),
                               std::max<uint64_t>(device_->properties().limits.minStorageBufferOffsetAlignment, 4)};
      context.file = &file_;
      context.segment = &seg;
      context.constant_offsets = constant_offsets_;
      context.constant_blob = &constant_bytes_;
      context.device = kernels::device_traits(*device_, options_.precision);
      context.device.winograd = options_.winograd;
      auto plan = lower_graph(*graph, context);
      if (!plan.ok()) return plan.status().with_context(where);
      scratch_bytes = std::max(scratch_bytes, plan->scratch_bytes);
      prepared.graph = std::move(plan.value());
    } else {
      auto compute = prepare_compute_segment(seg, module);
      if (!compute.ok()) return compute.status().with_context(where);
      prepared.compute = std::move(compute.value());
    }
    segments_.push_back(std::move(prepared));
  }

  // Constant buffer, uploaded once.
  if (!constant_bytes_.empty()) {
    UNIVK_ASSIGN_OR_RETURN(constants_, vulkan::Buffer::create(device_, constant_bytes_.size(),
                                                              vulkan::MemoryKind::kDeviceLocalHostVisible));
    std::memcpy(constants_.mapped(), constant_bytes_.data(), constant_bytes_.size());
  }
  if (scratch_bytes > 0) {
    UNIVK_ASSIGN_OR_RETURN(scratch_, vulkan::Buffer::create(device_, scratch_bytes, vulkan::MemoryKind::kDeviceLocal));
  }

  // Buffers of the resources the model interface does not touch; the model's inputs and
  // outputs get buffers only when execute() or record() needs them.
  return allocate_resources([&](const std::vector<uint32_t>& members) {
    return std::none_of(members.begin(), members.end(), [&](uint32_t r) { return is_model_io(r); });
  });
}

Status VgfDelegate::choose_path(const std::vector<std::optional<spirv::TosaGraph>>& graphs) {
  const bool has_graph = std::any_of(graphs.begin(), graphs.end(), [](const auto& g) { return g.has_value(); });
  if (!has_graph || options_.graph_path == GraphPath::kLowered) {
    graph_path_ = GraphPath::kLowered;
    return ok_status();
  }
  std::vector<const spirv::TosaGraph*> views;
  for (const auto& g : graphs) views.push_back(g ? &*g : nullptr);
  const std::vector<std::string> gaps = native_path_gaps(*device_, file_, views);
  UNIVK_ASSIGN_OR_RETURN(graph_path_, choose_graph_path(options_.graph_path, gaps, device_->enabled().device_name));
  if (graph_path_ == GraphPath::kNative) {
    UNIVK_ASSIGN_OR_RETURN(arm_, vulkan::DataGraphDispatch::load(*device_));
  } else if (options_.graph_path == GraphPath::kAuto) {
    UNIVK_LOG(kInfo) << "VgfBackend: GRAPH segments take the lowered path on '" << device_->enabled().device_name
                     << "' (native needs " << gaps.front() << (gaps.size() > 1 ? ", ..." : "") << ")";
  }
  return ok_status();
}

int64_t VgfDelegate::group_key(uint32_t r) const {
  const auto& alias = file_.resources[r].alias_group_id;
  return alias ? static_cast<int64_t>(*alias) : -1 - static_cast<int64_t>(r);
}

bool VgfDelegate::is_model_io(uint32_t r) const {
  return std::find(input_resources_.begin(), input_resources_.end(), r) != input_resources_.end() ||
         std::find(output_resources_.begin(), output_resources_.end(), r) != output_resources_.end();
}

Status VgfDelegate::allocate_resources(const std::function<bool(const std::vector<uint32_t>& members)>& wanted) {
  if (resource_buffer_of_.empty()) resource_buffer_of_.assign(file_.resources.size(), -1);
  // Alias groups share one buffer sized for the largest member; a group holding a model input
  // or output is "model io".
  std::map<int64_t, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < file_.resources.size(); ++i) {
    const univk::vgf::Resource& r = file_.resources[i];
    if (r.category == univk::vgf::ResourceCategory::kConstant) continue;
    if (r.vk_descriptor_type && *r.vk_descriptor_type != univk::vgf::vk::kDescriptorTypeStorageBuffer &&
        *r.vk_descriptor_type != univk::vgf::vk::kDescriptorTypeTensorArm &&
        *r.vk_descriptor_type != univk::vgf::vk::kDescriptorTypeUniformBuffer)
      return unsupported(resource_name(i) + ": descriptor type " +
                         univk::vgf::vk_descriptor_type_name(*r.vk_descriptor_type) +
                         " (only buffers and tensors are supported)");
    groups[group_key(i)].push_back(i);
  }
  for (const auto& [key, members] : groups) {
    if (!wanted(members) || resource_buffer_of_[members[0]] >= 0) continue;
    const bool model_io = std::any_of(members.begin(), members.end(), [&](uint32_t r) { return is_model_io(r); });
    uint64_t size = 4;
    for (uint32_t r : members) {
      auto bytes = resource_byte_size(file_.resources[r]);
      if (!bytes.ok()) return bytes.status().with_context(resource_name(r));
      size = std::max(size, *bytes);
    }
    // Model io is host-visible so execute() uploads and downloads with memcpy.
    UNIVK_ASSIGN_OR_RETURN(auto buffer, vulkan::Buffer::create(device_, size,
                                                               model_io ? vulkan::MemoryKind::kDeviceLocalHostVisible
                                                                        : vulkan::MemoryKind::kDeviceLocal));
    for (uint32_t r : members) resource_buffer_of_[r] = static_cast<int>(resource_buffers_.size());
    resource_buffers_.push_back(std::move(buffer));
  }
  return ok_status();
}

std::vector<BufferRange> VgfDelegate::own_resource_ranges() const {
  std::vector<BufferRange> ranges(file_.resources.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (resource_buffer_of_[i] < 0) continue;
    ranges[i] = resource_buffers_[resource_buffer_of_[i]].range();
  }
  return ranges;
}

Status VgfDelegate::prepare_execute() {
  if (own_recording_ != nullptr) return ok_status();
  UNIVK_RETURN_IF_ERROR(allocate_resources([](const std::vector<uint32_t>&) { return true; }));
  UNIVK_ASSIGN_OR_RETURN(command_pool_, vulkan::CommandPool::create(device_));
  UNIVK_ASSIGN_OR_RETURN(own_cmd_, command_pool_.allocate());
  const std::vector<BufferRange> ranges = own_resource_ranges();
  auto recording = std::make_unique<Recording>();
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device_, own_cmd_));
  vulkan::DispatchRecorder recorder(*device_, own_cmd_, timer_);
  UNIVK_RETURN_IF_ERROR(record_work(recorder, ranges, *recording));
  UNIVK_RETURN_IF_ERROR(record_output_readback(recorder, ranges));
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device_, own_cmd_));
  recording->stats.dispatches = recorder.counts().dispatches + recording->native_dispatches;
  recording->stats.barriers = recorder.counts().barriers;
  own_recording_ = recording.get();
  recordings_.push_back(std::move(recording));
  return ok_status();
}

Result<VgfDelegate::ComputeSegment> VgfDelegate::prepare_compute_segment(const univk::vgf::Segment& segment,
                                                                         const univk::vgf::Module& module) {
  if (segment.dispatch_shape.size() != 3 || segment.dispatch_shape[0] == 0 || segment.dispatch_shape[1] == 0 ||
      segment.dispatch_shape[2] == 0)
    return invalid_argument("COMPUTE segment needs a dispatch shape of 3 non-zero group counts");
  const std::array<uint32_t, 3> groups = {segment.dispatch_shape[0], segment.dispatch_shape[1],
                                          segment.dispatch_shape[2]};
  UNIVK_RETURN_IF_ERROR(
      vulkan::check_dispatch_groups(device_->properties().limits, groups, "COMPUTE segment '" + segment.name + "'"));
  vulkan::ComputePipelineDesc desc;
  desc.spirv = module.spirv();
  desc.entry_point = module.entry_point.empty() ? "main" : module.entry_point;
  desc.debug_name = "VGF compute module '" + module.name + "'";
  for (size_t i = 0; i < segment.set_infos.size(); ++i) {
    const uint32_t set = segment.set_number(i);
    if (set >= 8) return unsupported("descriptor set " + std::to_string(set) + " (at most 8 sets)");
    if (desc.sets.size() <= set) desc.sets.resize(set + 1);
    for (const auto& slot : segment.set_infos[i].bindings) {
      const univk::vgf::Resource& r = file_.resources[slot.resource_index];
      VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      if (r.vk_descriptor_type && *r.vk_descriptor_type == univk::vgf::vk::kDescriptorTypeUniformBuffer)
        type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
      else if (r.vk_descriptor_type && *r.vk_descriptor_type != univk::vgf::vk::kDescriptorTypeStorageBuffer)
        return unsupported("binding " + std::to_string(slot.binding) + " has descriptor type " +
                           univk::vgf::vk_descriptor_type_name(*r.vk_descriptor_type) +
                           " (COMPUTE segments run with storage and uniform buffers)");
      desc.sets[set].push_back({slot.binding, type});
    }
  }
  ComputeSegment cs;
  for (const auto& range : segment.push_constant_ranges)
    cs.push_constant_bytes = std::max(cs.push_constant_bytes, range.offset + range.size);
  desc.push_constant_bytes = cs.push_constant_bytes;
  UNIVK_ASSIGN_OR_RETURN(cs.pipeline, vulkan::get_or_create_pipeline(device_, desc));
  cs.groups = groups;
  return cs;
}

Result<BufferRange> VgfDelegate::resource_range(uint32_t index, const std::vector<BufferRange>& ranges) const {
  if (file_.resources[index].category == univk::vgf::ResourceCategory::kConstant) {
    for (size_t c = 0; c < file_.constants.size(); ++c)
      if (file_.constants[c].resource_index == index)
        return BufferRange{constants_.handle(), constant_offsets_.at(static_cast<uint32_t>(c)),
                           std::max<uint64_t>(file_.constants[c].data().size(), 4)};
    return invalid_argument(resource_name(index) + " is a CONSTANT entry without constant data");
  }
  if (ranges[index].buffer == VK_NULL_HANDLE) return internal_error(resource_name(index) + " has no buffer");
  return ranges[index];
}

Result<std::vector<HostTensor>> VgfDelegate::execute(std::span<const HostTensor> inputs) {
  UNIVK_RETURN_IF_ERROR(backend::check_inputs(inputs, spec_.inputs).with_context("VgfBackend execute"));
  if (own_recording_ == nullptr) return invalid_argument("VgfBackend: execute() before prepare_execute()");
  backend::ExecuteStats stats = own_recording_->stats;
  stats.submissions = 1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const uint32_t r = input_resources_[i];
    const univk::vgf::Resource& res = file_.resources[r];
    vulkan::Buffer& buffer = resource_buffers_[resource_buffer_of_[r]];
    if (res.strides.empty()) {
      parallel_memcpy(buffer.mapped(), inputs[i].bytes().data(), inputs[i].byte_size());
    } else {
      UNIVK_ASSIGN_OR_RETURN(auto strides, resource_element_strides(res));
      copy_strided(res, strides, dtype_size(inputs[i].dtype()), static_cast<uint8_t*>(buffer.mapped()),
                   const_cast<uint8_t*>(inputs[i].bytes().data()), true);
    }
    stats.bytes_uploaded += inputs[i].byte_size();
  }
  UNIVK_ASSIGN_OR_RETURN(last_submission_, device_->queue().submit(std::span<const VkCommandBuffer>(&own_cmd_, 1)));
  UNIVK_RETURN_IF_ERROR(device_->queue().wait(last_submission_));
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < output_resources_.size(); ++i) {
    const uint32_t r = output_resources_[i];
    const univk::vgf::Resource& res = file_.resources[r];
    const vulkan::Buffer& buffer = output_staging_[i] ? output_staging_[i] : resource_buffers_[resource_buffer_of_[r]];
    HostTensor out(spec_.outputs[i].dtype, spec_.outputs[i].shape);
    if (res.strides.empty()) {
      parallel_memcpy(out.bytes().data(), buffer.mapped(), out.byte_size());
    } else {
      UNIVK_ASSIGN_OR_RETURN(auto strides, resource_element_strides(res));
      copy_strided(res, strides, dtype_size(out.dtype()), static_cast<uint8_t*>(buffer.mapped()), out.bytes().data(),
                   false);
    }
    stats.bytes_downloaded += out.byte_size();
    outputs.push_back(std::move(out));
  }
  last_stats_ = stats;
  return outputs;
}

Status VgfDelegate::record(VkCommandBuffer cmd, std::span<const backend::DeviceTensor> inputs,
                           std::span<const backend::DeviceTensor> outputs) {
  if (inputs.size() != input_resources_.size() || outputs.size() != output_resources_.size())
    return invalid_argument("VgfBackend: record got the wrong number of device tensors");
  UNIVK_RETURN_IF_ERROR(allocate_resources([&](const std::vector<uint32_t>& members) {
                          return std::any_of(members.begin(), members.end(), [&](uint32_t r) { return copied_io_[r]; });
                        }).with_context("VgfBackend"));
  std::vector<BufferRange> ranges = own_resource_ranges();
  const BindingLimit limit{binding_limit(),
                           std::max<uint64_t>(device_->properties().limits.minStorageBufferOffsetAlignment, 4)};
  std::vector<Dispatch> copy_in, copy_out;
  auto bind = [&](uint32_t r, const backend::DeviceTensor& t, bool input) -> Status {
    const univk::vgf::Resource& res = file_.resources[r];
    if (copied_io_[r]) {
      // The tensor is packed; the resource keeps its own buffer and layout, reached by a copy.
      const DType dtype = *univk::vgf::dtype_from_vk_format(res.vk_format);
      const uint64_t packed_bytes = static_cast<uint64_t>(Shape(res.shape).numel()) * dtype_size(dtype);
      if (t.range.size < packed_bytes)
        return invalid_argument("VgfBackend: device tensor of " + std::to_string(t.range.size) + " bytes for " +
                                resource_name(r) + " of " + std::to_string(packed_bytes) + " packed bytes");
      TensorView packed;
      packed.storage = {StorageKind::kResource, static_cast<uint32_t>(ranges.size()), 0, packed_bytes};
      packed.dtype = dtype;
      packed.shape = res.shape;
      packed.strides = Shape(res.shape).contiguous_strides();
      ranges.push_back(t.range);
      TensorView own = packed;
      UNIVK_ASSIGN_OR_RETURN(own.storage.byte_size, resource_byte_size(res));
      own.storage.resource = r;
      UNIVK_ASSIGN_OR_RETURN(own.strides, resource_element_strides(res));
      auto dispatches = input ? emit_copy(packed, own, limit) : emit_copy(own, packed, limit);
      if (!dispatches.ok()) return dispatches.status().with_context("VgfBackend: copy of " + resource_name(r));
      auto& into = input ? copy_in : copy_out;
      into.insert(into.end(), dispatches->begin(), dispatches->end());
      return ok_status();
    }
    UNIVK_ASSIGN_OR_RETURN(uint64_t bytes, resource_byte_size(res));
    if (t.range.size < bytes)
      return invalid_argument("VgfBackend: device tensor of " + std::to_string(t.range.size) + " bytes for " +
                              resource_name(r) + " of " + std::to_string(bytes));
    // Every member of the resource's alias group follows it.
    for (size_t j = 0; j < file_.resources.size(); ++j)
      if (j == r || (res.alias_group_id && file_.resources[j].alias_group_id == res.alias_group_id))
        ranges[j] = t.range;
    return ok_status();
  };
  for (size_t i = 0; i < inputs.size(); ++i) UNIVK_RETURN_IF_ERROR(bind(input_resources_[i], inputs[i], true));
  for (size_t i = 0; i < outputs.size(); ++i) UNIVK_RETURN_IF_ERROR(bind(output_resources_[i], outputs[i], false));
  auto recording = std::make_unique<Recording>();
  vulkan::DispatchRecorder recorder(*device_, cmd, timer_);
  UNIVK_RETURN_IF_ERROR(record_work(recorder, ranges, *recording, copy_in, copy_out));
  recording->stats.dispatches = recorder.counts().dispatches + recording->native_dispatches;
  recording->stats.barriers = recorder.counts().barriers;
  last_stats_ = recording->stats;
  recordings_.push_back(std::move(recording));
  return ok_status();
}

}  // namespace univk::backends::vgf
