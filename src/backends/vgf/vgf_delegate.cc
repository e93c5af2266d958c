#include "vgf_delegate.h"

#include <algorithm>
#include <cstring>

#include "kernel_emitters.h"
#include "lower_graph.h"
#include "requirements.h"
#include "resource_layout.h"
#include "shader_library.h"
#include "univk/base/logging.h"
#include "univk/base/parallel_copy.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/dispatch_limits.h"
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
    if (to_device) std::memcpy(device + off * elem, host + i * elem, elem);
    else std::memcpy(host + i * elem, device + off * elem, elem);
    for (size_t d = coord.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

struct Range {
  VkBuffer buffer;
  uint64_t begin, end;
  bool overlaps(const Range& o) const { return buffer == o.buffer && begin < o.end && o.begin < end; }
};

bool any_overlap(const std::vector<Range>& a, const std::vector<Range>& b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.overlaps(y)) return true;
  return false;
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

std::vector<std::string> VgfDelegate::kernel_labels() const {
  std::vector<std::string> labels;
  for (const auto& seg : segments_) {
    if (seg.graph)
      for (const auto& k : seg.graph->kernels) labels.push_back(k.label);
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
  auto check_io = [&](const univk::vgf::BindingSlot& slot, const backend::TensorInfo& info, const char* what, size_t i) -> Status {
    const univk::vgf::Resource& r = file_.resources[slot.resource_index];
    auto bytes = resource_byte_size(r);
    if (!bytes.ok()) return bytes.status().with_context(std::string("model ") + what + " " + std::to_string(i));
    const auto dtype = univk::vgf::dtype_from_vk_format(r.vk_format);
    if (!dtype || *dtype != info.dtype || Shape(r.shape).numel() != info.shape.numel())
      return invalid_argument(std::string("model ") + what + " " + std::to_string(i) + ": VGF has " +
                              univk::vgf::vk_format_name(r.vk_format) + " " + Shape(r.shape).to_string() + ", the program " +
                              std::string(dtype_name(info.dtype)) + " " + info.shape.to_string());
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

  const bool has_compute = std::any_of(file_.segments.begin(), file_.segments.end(), [](const univk::vgf::Segment& seg) {
    return seg.type == univk::vgf::ModuleType::kCompute;
  });
  if (has_compute && options_.robust_buffer_access && !device_->has(vulkan::Feature::kRobustBufferAccess))
    return unsupported("the VGF has COMPUTE segments (shaders from the program file) and the device did not enable "
                       "robustBufferAccess, which keeps them inside their bindings; load with "
                       "vgf_robust_buffer_access=off to run them without it");

  uint64_t scratch_bytes = 0;
  for (size_t s = 0; s < file_.segments.size(); ++s) {
    const univk::vgf::Segment& seg = file_.segments[s];
    const univk::vgf::Module& module = file_.modules[seg.module_index];
    PreparedSegment prepared;
    const std::string where = "segment " + std::to_string(s) + " '" + seg.name + "'";
    if (seg.type == univk::vgf::ModuleType::kGraph) {
      auto graph = spirv::read_tosa_graph(module.spirv());
      if (!graph.ok()) return graph.status().with_context(where);
      LoweringContext context;
      context.binding_limit = {binding_limit(),
                               std::max<uint64_t>(device_->properties().limits.minStorageBufferOffsetAlignment, 4)};
      context.file = &file_;
      context.segment = &seg;
      context.constant_offsets = constant_offsets_;
      context.constant_blob = &constant_bytes_;
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
      return unsupported(resource_name(i) + ": descriptor type " + univk::vgf::vk_descriptor_type_name(*r.vk_descriptor_type) +
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
    UNIVK_ASSIGN_OR_RETURN(auto buffer, vulkan::Buffer::create(device_, size, model_io
                                                                                  ? vulkan::MemoryKind::kDeviceLocalHostVisible
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
    const vulkan::Buffer& b = resource_buffers_[resource_buffer_of_[i]];
    ranges[i] = {b.handle(), 0, b.size()};
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
  UNIVK_RETURN_IF_ERROR(record_work(own_cmd_, ranges, *recording));
  // Make the outputs visible to the host reads after the wait: in place when the mapped memory
  // is cached, else through a copy into cached host memory (uncached BAR reads crawl).
  output_staging_.clear();
  output_staging_.resize(output_resources_.size());
  for (size_t i = 0; i < output_resources_.size(); ++i) {
    const uint32_t r = output_resources_[i];
    const vulkan::Buffer& buffer = resource_buffers_[resource_buffer_of_[r]];
    if (buffer.host_cached() && !options_.always_stage_outputs) {
      vulkan::record_buffer_barrier(*device_, own_cmd_, ranges[r], VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                    VK_ACCESS_2_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
      ++recording->stats.barriers;
      continue;
    }
    UNIVK_ASSIGN_OR_RETURN(uint64_t bytes, resource_byte_size(file_.resources[r]));
    UNIVK_ASSIGN_OR_RETURN(output_staging_[i], vulkan::Buffer::create(device_, bytes, vulkan::MemoryKind::kHostVisible));
    const BufferRange staging{output_staging_[i].handle(), 0, output_staging_[i].size()};
    vulkan::record_buffer_barrier(*device_, own_cmd_, ranges[r], VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                                  VK_ACCESS_2_TRANSFER_READ_BIT);
    vulkan::record_copy(*device_, own_cmd_, ranges[r], staging);
    vulkan::record_buffer_barrier(*device_, own_cmd_, staging, VK_PIPELINE_STAGE_2_COPY_BIT,
                                  VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    recording->stats.barriers += 2;
  }
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device_, own_cmd_));
  own_recording_ = recording.get();
  recordings_.push_back(std::move(recording));
  return ok_status();
}

Result<const vulkan::ComputePipeline*> VgfDelegate::pipeline_for(const Kernel& kernel) {
  auto key = std::make_pair(kernel.shader, kernel.specialization);
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return &it->second;
  auto desc = vulkan::ComputePipelineDesc::storage_buffers(shader_spirv(kernel.shader),
                                                           1 + shader_tensor_bindings(kernel.shader), 0,
                                                           std::string("VgfBackend ") + shader_name(kernel.shader));
  for (auto [id, value] : kernel.specialization) desc.specialization.push_back({id, value});
  UNIVK_ASSIGN_OR_RETURN(auto pipeline, vulkan::ComputePipeline::create(device_, desc));
  auto [pos, inserted] = pipelines_.emplace(key, std::move(pipeline));
  return &pos->second;
}

Status VgfDelegate::record_work(VkCommandBuffer cmd, const std::vector<BufferRange>& resource_ranges,
                                Recording& recording, std::span<const Kernel> before, std::span<const Kernel> after) {
  const auto& limits = device_->properties().limits;
  const uint64_t align = std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 4);
  const uint64_t limit = binding_limit();
  const VolkDeviceTable& vk = device_->vk();

  // Where a TensorView's storage lives in this recording.
  auto storage_range = [&](const StorageRef& s) -> Result<BufferRange> {
    switch (s.kind) {
      case StorageKind::kResource: {
        const BufferRange& r = resource_ranges[s.resource];
        if (r.buffer == VK_NULL_HANDLE) return internal_error(resource_name(s.resource) + " has no buffer");
        return r;
      }
      case StorageKind::kConstant:
        return BufferRange{constants_.handle(), s.byte_offset, s.byte_size};
      case StorageKind::kScratch:
        return BufferRange{scratch_.handle(), s.byte_offset, s.byte_size};
    }
    return internal_error("bad storage kind");
  };

  // The work in recording order: a lowered kernel, or (kernel == nullptr) COMPUTE segment `segment`.
  struct Step {
    const Kernel* kernel;
    size_t segment;
  };
  std::vector<Step> steps;
  for (const Kernel& k : before) steps.push_back({&k, 0});
  for (size_t s = 0; s < segments_.size(); ++s) {
    if (segments_[s].compute) steps.push_back({nullptr, s});
    else
      for (const Kernel& k : segments_[s].graph->kernels) steps.push_back({&k, s});
  }
  for (const Kernel& k : after) steps.push_back({&k, 0});

  // Pass 1: parameter words of every kernel, each slice aligned for its descriptor.
  struct Bound {
    const Kernel* kernel;
    uint64_t params_offset;
    std::vector<BufferRange> tensors;
    std::vector<Range> reads, writes;
  };
  std::vector<Bound> bound;
  std::vector<uint32_t> words;
  uint32_t storage_descriptors = 0;
  for (const Step& step : steps) {
    if (step.kernel == nullptr || step.kernel->work_items == 0) continue;
    const Kernel& kernel = *step.kernel;
    Bound b{&kernel, 0, {}, {}, {}};
    std::vector<uint32_t> bases;
    std::vector<const TensorView*> views;
    for (const auto& v : kernel.outputs) views.push_back(&v);
    for (const auto& v : kernel.inputs) views.push_back(&v);
    for (size_t i = 0; i < views.size(); ++i) {
      const TensorView& v = *views[i];
      UNIVK_ASSIGN_OR_RETURN(BufferRange r, storage_range(v.storage));
      // Bind only the bytes the view touches, from its first element aligned down to the
      // descriptor alignment: the base word stays below the alignment and a tensor larger
      // than one binding can be covered by several kernels over slices.
      const uint64_t elem = dtype_size(v.dtype);
      const ByteSpan span = view_byte_span(v);
      if (span.end > r.size)
        return internal_error(kernel.label + ": a tensor view reaches past its storage (" + std::to_string(span.end) +
                              " > " + std::to_string(r.size) + " bytes)");
      const uint64_t start = r.offset + span.begin, end = r.offset + span.end;
      const uint64_t bind = start / align * align;
      if ((start - bind) % elem != 0) return unsupported("a tensor offset is not a multiple of its element size");
      if (end - bind > limit)
        return unsupported(kernel.label + ": a tensor view of " + std::to_string(end - bind) +
                           " bytes exceeds the binding limit of " + std::to_string(limit) +
                           " bytes (maxStorageBufferRange, or the max_binding_bytes option)");
      bases.push_back(static_cast<uint32_t>((start - bind) / elem));
      b.tensors.push_back({r.buffer, bind, end - bind});
      (i < kernel.outputs.size() ? b.writes : b.reads).push_back({r.buffer, start, end});
    }
    // Unused bindings of the shader get the first input's range (never accessed).
    const uint32_t wanted = shader_tensor_bindings(kernel.shader);
    while (bases.size() < wanted) {
      bases.push_back(0);
      b.tensors.push_back(b.tensors.back());
    }
    // Mode 2 of the elementwise shaders: aligned 4-element accesses when every base allows it.
    words.resize((words.size() * 4 + align - 1) / align * align / 4);
    b.params_offset = words.size() * 4;
    words.insert(words.end(), bases.begin(), bases.end());
    words.insert(words.end(), kernel.params.begin(), kernel.params.end());
    storage_descriptors += 1 + wanted;
    bound.push_back(std::move(b));
  }
  if (!words.empty()) {
    UNIVK_ASSIGN_OR_RETURN(recording.params, vulkan::Buffer::create(device_, words.size() * 4,
                                                                    vulkan::MemoryKind::kDeviceLocalHostVisible));
    std::memcpy(recording.params.mapped(), words.data(), words.size() * 4);
  }
  uint32_t compute_sets = 0, compute_descriptors = 0;
  for (size_t s = 0; s < segments_.size(); ++s)
    if (segments_[s].compute) {
      compute_sets += static_cast<uint32_t>(segments_[s].compute->pipeline.set_layouts().size());
      for (const auto& info : file_.segments[s].set_infos) compute_descriptors += static_cast<uint32_t>(info.bindings.size());
    }
  std::vector<VkDescriptorPoolSize> extra = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, compute_descriptors + 1}};
  UNIVK_ASSIGN_OR_RETURN(recording.pool, vulkan::DescriptorPool::create(
                                             device_, static_cast<uint32_t>(bound.size()) + compute_sets + 1,
                                             storage_descriptors + compute_descriptors + 1, extra));

  // Pass 2: record, with a barrier before a dispatch that touches what an earlier one wrote
  // (or writes what an earlier one read) since the last barrier.
  std::vector<Range> pending_reads, pending_writes;
  auto hazard_barrier = [&](const std::vector<Range>& reads, const std::vector<Range>& writes) {
    if (any_overlap(reads, pending_writes) || any_overlap(writes, pending_writes) || any_overlap(writes, pending_reads)) {
      vulkan::record_full_barrier(*device_, cmd);
      ++recording.stats.barriers;
      pending_reads.clear();
      pending_writes.clear();
    }
    pending_reads.insert(pending_reads.end(), reads.begin(), reads.end());
    pending_writes.insert(pending_writes.end(), writes.begin(), writes.end());
  };

  size_t next_bound = 0;
  for (const Step& step : steps) {
    if (step.kernel == nullptr) {
      // The module's own shader: every bound resource may be read and written.
      const size_t s = step.segment;
      const univk::vgf::Segment& info = file_.segments[s];
      const ComputeSegment& cs = *segments_[s].compute;
      std::vector<VkDescriptorSet> sets;
      for (VkDescriptorSetLayout layout : cs.pipeline.set_layouts()) {
        UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, recording.pool.allocate(layout));
        sets.push_back(set);
      }
      std::vector<Range> touched;
      std::vector<VkDescriptorBufferInfo> buffer_infos;
      std::vector<VkWriteDescriptorSet> writes;
      size_t total_bindings = 0;
      for (const auto& set_info : info.set_infos) total_bindings += set_info.bindings.size();
      buffer_infos.reserve(total_bindings);
      for (size_t i = 0; i < info.set_infos.size(); ++i) {
        for (const auto& slot : info.set_infos[i].bindings) {
          UNIVK_ASSIGN_OR_RETURN(BufferRange r, resource_range(slot.resource_index, resource_ranges));
          if (r.size > limit)
            return unsupported("COMPUTE segment " + std::to_string(s) + ": " + resource_name(slot.resource_index) + " of " +
                               std::to_string(r.size) + " bytes exceeds the binding limit of " + std::to_string(limit) +
                               " bytes (maxStorageBufferRange, or the max_binding_bytes option)");
          const auto type = file_.resources[slot.resource_index].vk_descriptor_type;
          buffer_infos.push_back({r.buffer, r.offset, r.size});
          VkWriteDescriptorSet w{};
          w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
          w.dstSet = sets[info.set_number(i)];
          w.dstBinding = slot.binding;
          w.descriptorCount = 1;
          w.descriptorType = type && *type == univk::vgf::vk::kDescriptorTypeUniformBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                                                     : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
          w.pBufferInfo = &buffer_infos.back();
          writes.push_back(w);
          touched.push_back({r.buffer, r.offset, r.offset + r.size});
        }
      }
      vk.vkUpdateDescriptorSets(device_->handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
      hazard_barrier(touched, touched);
      vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cs.pipeline.handle());
      if (!sets.empty())
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cs.pipeline.layout(), 0,
                                   static_cast<uint32_t>(sets.size()), sets.data(), 0, nullptr);
      if (cs.push_constant_bytes > 0) {
        // VGF files carry push constant ranges but no values: the shader sees zeros.
        std::vector<uint8_t> zeros(cs.push_constant_bytes, 0);
        vk.vkCmdPushConstants(cmd, cs.pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, cs.push_constant_bytes,
                              zeros.data());
      }
      vk.vkCmdDispatch(cmd, cs.groups[0], cs.groups[1], cs.groups[2]);
      ++recording.stats.dispatches;
      continue;
    }
    const Kernel& kernel = *step.kernel;
    if (kernel.work_items == 0) continue;
    const Bound& b = bound[next_bound++];
    Kernel specialised = kernel;
    if ((kernel.shader == ShaderId::kElementwiseF32 || kernel.shader == ShaderId::kElementwiseI32 ||
         kernel.shader == ShaderId::kElementwiseF16) &&
        kernel.specialization[0].second == 1) {
      const uint32_t* base = words.data() + b.params_offset / 4;
      bool aligned = kernel.params[0] % 4 == 0;  // element count
      for (size_t i = 0; i < 1 + kernel.inputs.size(); ++i) aligned = aligned && base[i] % 4 == 0;
      if (aligned) specialised.specialization[0].second = 2;
    }
    if (kernel.shader == ShaderId::kPoolF32 || kernel.shader == ShaderId::kPoolF16) {
      // Vector loads and stores need bases aligned to their width (pool.glsl).
      const uint32_t* base = words.data() + b.params_offset / 4;
      const bool quad_out = base[0] % 4 == 0;
      for (auto& [id, value] : specialised.specialization) {
        if (id == kPoolPairXConstant && base[1] % 2 != 0) value = 0;
        if (id == kPoolQuadLoadConstant && (!quad_out || base[1] % 4 != 0)) value = 0;
        if (id == kPoolEpilogueQuadConstant)
          for (size_t i = 1; i < kernel.inputs.size(); ++i)
            if (!quad_out || base[1 + i] % 4 != 0) value &= ~(1u << (i - 1));
        if (id == kPoolQuadXConstant && value != 0 && !quad_out) {
          value = 0;
          specialised.work_items = kernel.params[0];  // one invocation per output again
        }
      }
    }
    UNIVK_ASSIGN_OR_RETURN(const vulkan::ComputePipeline* pipeline, pipeline_for(specialised));
    UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, recording.pool.allocate(pipeline->set_layouts()[0]));
    std::vector<BufferRange> ranges;
    const uint64_t params_bytes = (shader_tensor_bindings(kernel.shader) + kernel.params.size()) * 4;
    ranges.push_back({recording.params.handle(), b.params_offset, params_bytes});
    ranges.insert(ranges.end(), b.tensors.begin(), b.tensors.end());
    recording.pool.write_storage_buffers(set, ranges);
    hazard_barrier(b.reads, b.writes);
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0, 1, &set, 0, nullptr);
    const auto grid = dispatch_grid(specialised.work_items, limits.maxComputeWorkGroupCount[0],
                                    limits.maxComputeWorkGroupCount[1]);
    if (uint64_t{grid[0]} * grid[1] * kLocalSize < specialised.work_items)
      return unsupported(kernel.label + ": " + std::to_string(specialised.work_items) +
                         " invocations exceed the device's workgroup-count limits");
    UNIVK_RETURN_IF_ERROR(vulkan::check_dispatch_groups(limits, {grid[0], grid[1], 1}, "kernel " + kernel.label));
    vk.vkCmdDispatch(cmd, grid[0], grid[1], 1);
    ++recording.stats.dispatches;
  }
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
  UNIVK_ASSIGN_OR_RETURN(cs.pipeline, vulkan::ComputePipeline::create(device_, desc));
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
  if (inputs.size() != input_resources_.size())
    return invalid_argument("VgfBackend: execute got " + std::to_string(inputs.size()) + " inputs, expected " +
                            std::to_string(input_resources_.size()));
  if (own_recording_ == nullptr) return invalid_argument("VgfBackend: execute() before prepare_execute()");
  backend::ExecuteStats stats = own_recording_->stats;
  stats.submissions = 1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const uint32_t r = input_resources_[i];
    const univk::vgf::Resource& res = file_.resources[r];
    vulkan::Buffer& buffer = resource_buffers_[resource_buffer_of_[r]];
    const DType dtype = *univk::vgf::dtype_from_vk_format(res.vk_format);
    if (inputs[i].dtype() != dtype || inputs[i].numel() != Shape(res.shape).numel())
      return invalid_argument("VgfBackend: input " + std::to_string(i) + " is " + inputs[i].describe());
    if (res.strides.empty()) {
      parallel_memcpy(buffer.mapped(), inputs[i].bytes().data(), inputs[i].byte_size());
    } else {
      UNIVK_ASSIGN_OR_RETURN(auto strides, resource_element_strides(res));
      copy_strided(res, strides, dtype_size(dtype), static_cast<uint8_t*>(buffer.mapped()),
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
    const vulkan::Buffer& buffer =
        output_staging_[i] ? output_staging_[i] : resource_buffers_[resource_buffer_of_[r]];
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
  std::vector<Kernel> copy_in, copy_out;
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
      auto kernels = input ? emit_copy(packed, own, limit) : emit_copy(own, packed, limit);
      if (!kernels.ok()) return kernels.status().with_context("VgfBackend: copy of " + resource_name(r));
      auto& into = input ? copy_in : copy_out;
      into.insert(into.end(), kernels->begin(), kernels->end());
      return ok_status();
    }
    UNIVK_ASSIGN_OR_RETURN(uint64_t bytes, resource_byte_size(res));
    if (t.range.size < bytes) return invalid_argument("VgfBackend: device tensor of " + std::to_string(t.range.size) +
                                                      " bytes for " + resource_name(r) + " of " + std::to_string(bytes));
    // Every member of the resource's alias group follows it.
    for (size_t j = 0; j < file_.resources.size(); ++j)
      if (j == r || (res.alias_group_id && file_.resources[j].alias_group_id == res.alias_group_id)) ranges[j] = t.range;
    return ok_status();
  };
  for (size_t i = 0; i < inputs.size(); ++i) UNIVK_RETURN_IF_ERROR(bind(input_resources_[i], inputs[i], true));
  for (size_t i = 0; i < outputs.size(); ++i) UNIVK_RETURN_IF_ERROR(bind(output_resources_[i], outputs[i], false));
  auto recording = std::make_unique<Recording>();
  UNIVK_RETURN_IF_ERROR(record_work(cmd, ranges, *recording, copy_in, copy_out));
  last_stats_ = recording->stats;
  recordings_.push_back(std::move(recording));
  return ok_status();
}

}  // namespace univk::backends::vgf
