// VgfDelegate's recording: the work in order (copy-in dispatches, every segment, copy-out dispatches),
// each dispatch's descriptor ranges and parameter words, then each dispatch and COMPUTE
// segment recorded through the device runtime's DispatchRecorder, which places the barriers.
#include <algorithm>
#include <cstring>

#include "lower_graph.h"
#include "shader_library.h"
#include "shader_variants.h"
#include "univk/base/logging.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/gpu_timer.h"
#include "univk/vulkan/pipeline_cache.h"
#include "vgf_delegate.h"

namespace univk::backends::vgf {

using vulkan::BufferAccess;
using vulkan::BufferRange;

namespace {

std::string resource_name(uint32_t index) { return "resource " + std::to_string(index); }

std::string binding_limit_message(uint64_t bytes, uint64_t limit) {
  return std::to_string(bytes) + " bytes exceeds the binding limit of " + std::to_string(limit) +
         " bytes (maxStorageBufferRange, or the max_binding_bytes option)";
}

}  // namespace

struct VgfDelegate::Step {
  const Dispatch* dispatch = nullptr;  // null: COMPUTE segment `segment`
  size_t segment = 0;
};

struct VgfDelegate::BoundDispatch {
  const Dispatch* dispatch = nullptr;
  uint64_t params_offset = 0;  // bytes into the parameter buffer
  // Binding 1.. (outputs, inputs, unused bindings); a kernel-library dispatch: bindings 0.. in
  // the kernel's order.
  std::vector<BufferRange> tensors;
  std::vector<BufferAccess> accesses;  // the bytes the views touch exactly
  std::vector<uint32_t> bases;         // a kernel-library dispatch's base element offset per operand
};

std::vector<VgfDelegate::Step> VgfDelegate::work_steps(std::span<const Dispatch> before,
                                                       std::span<const Dispatch> after) const {
  std::vector<Step> steps;
  for (const Dispatch& k : before) steps.push_back({&k, 0});
  for (size_t s = 0; s < segments_.size(); ++s) {
    if (segments_[s].compute || segments_[s].native) {
      steps.push_back({nullptr, s});
    } else {
      for (const Dispatch& k : segments_[s].graph->dispatches) steps.push_back({&k, s});
    }
  }
  for (const Dispatch& k : after) steps.push_back({&k, 0});
  return steps;
}

Result<std::vector<VgfDelegate::BoundDispatch>> VgfDelegate::bind_dispatches(
    const std::vector<Step>& steps, const std::vector<BufferRange>& resource_ranges,
    std::vector<uint32_t>& words) const {
  const uint64_t align = std::max<uint64_t>(device_->properties().limits.minStorageBufferOffsetAlignment, 4);
  const uint64_t limit = binding_limit();
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

  std::vector<BoundDispatch> bound;
  for (const Step& step : steps) {
    if (step.dispatch == nullptr || step.dispatch->work_items == 0) continue;
    const Dispatch& dispatch = *step.dispatch;
    BoundDispatch b;
    b.dispatch = &dispatch;
    std::vector<uint32_t> bases;
    std::vector<const TensorView*> views;
    std::vector<bool> writes;
    const bool last_read = dispatch.kernel && dispatch.kernel->last_binding_offset && dispatch.inputs.size() > 4;
    if (dispatch.kernel) {
      // The kernel library's order: input/A, weight/B, bias, output, residual, scratch; an
      // absent operand is bound to input 0 and never touched, absent scratch to the output (the
      // shader writes that binding in its split-K path, so validation counts it as written).
      // An int8 convolution's residual skip tensor (input 4) takes the scratch binding, read.
      const auto& in = dispatch.inputs;
      auto input = [&](size_t i) { return &(i < in.size() ? in[i] : in[0]); };
      views = {input(0), input(1),
               input(2), &dispatch.outputs[0],
               input(3), last_read ? input(4) : dispatch.scratch ? &*dispatch.scratch : &dispatch.outputs[0]};
      writes = {false, false, false, true, false, !last_read};
    } else {
      for (const auto& v : dispatch.outputs) views.push_back(&v);
      for (const auto& v : dispatch.inputs) views.push_back(&v);
      writes.assign(views.size(), false);
      for (size_t i = 0; i < dispatch.outputs.size(); ++i) writes[i] = true;
    }
    for (size_t i = 0; i < views.size(); ++i) {
      const TensorView& v = *views[i];
      UNIVK_ASSIGN_OR_RETURN(BufferRange r, storage_range(v.storage));
      // Bind only the bytes the view touches, from its first element aligned down to the
      // descriptor alignment: the base word stays below the alignment and a tensor larger
      // than one binding can be covered by several dispatches over slices.
      const uint64_t elem = dtype_size(v.dtype);
      const ByteSpan span = view_byte_span(v);
      if (span.end > r.size) {
        return internal_error(dispatch.label + ": a tensor view reaches past its storage (" + std::to_string(span.end) +
                              " > " + std::to_string(r.size) + " bytes)");
      }
      const uint64_t start = r.offset + span.begin, end = r.offset + span.end;
      const uint64_t bind = start / align * align;
      if ((start - bind) % elem != 0) return unsupported("a tensor offset is not a multiple of its element size");
      if (end - bind > limit) {
        return unsupported(dispatch.label + ": a tensor view of " + binding_limit_message(end - bind, limit));
      }
      bases.push_back(static_cast<uint32_t>((start - bind) / elem));
      b.tensors.push_back({r.buffer, bind, end - bind});
      b.accesses.push_back({{r.buffer, start, end - start}, writes[i]});
    }
    if (dispatch.kernel) {
      // The scratch binding has no offset word: its region must start at its descriptor.
      if (dispatch.scratch && bases.back() != 0) return internal_error(dispatch.label + ": unaligned kernel scratch");
      if (!last_read) bases.pop_back();
      b.bases = std::move(bases);
      bound.push_back(std::move(b));
      continue;
    }
    // Unused bindings of the shader get the first input's range (never accessed).
    const uint32_t wanted = shader_tensor_bindings(dispatch.shader);
    while (bases.size() < wanted) {
      bases.push_back(0);
      b.tensors.push_back(b.tensors.back());
    }
    words.resize((words.size() * 4 + align - 1) / align * align / 4);
    b.params_offset = words.size() * 4;
    words.insert(words.end(), bases.begin(), bases.end());
    words.insert(words.end(), dispatch.params.begin(), dispatch.params.end());
    bound.push_back(std::move(b));
  }
  return bound;
}

Status VgfDelegate::create_recording_objects(const std::vector<BoundDispatch>& bound,
                                             const std::vector<uint32_t>& words, Recording& recording) const {
  if (!words.empty()) {
    UNIVK_ASSIGN_OR_RETURN(recording.params, vulkan::Buffer::create(device_, words.size() * 4,
                                                                    vulkan::MemoryKind::kDeviceLocalHostVisible));
    std::memcpy(recording.params.mapped(), words.data(), words.size() * 4);
  }
  uint32_t sets = static_cast<uint32_t>(bound.size()), storage_descriptors = 0, compute_descriptors = 0;
  for (const BoundDispatch& b : bound) storage_descriptors += static_cast<uint32_t>(1 + b.tensors.size());
  for (size_t s = 0; s < segments_.size(); ++s) {
    if (!segments_[s].compute) continue;
    sets += static_cast<uint32_t>(segments_[s].compute->pipeline->set_layouts().size());
    for (const auto& info : file_.segments[s].set_infos)
      compute_descriptors += static_cast<uint32_t>(info.bindings.size());
  }
  // COMPUTE segments may bind uniform buffers as well as storage buffers.
  const std::vector<VkDescriptorPoolSize> extra = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, compute_descriptors + 1}};
  UNIVK_ASSIGN_OR_RETURN(recording.pool, vulkan::DescriptorPool::create(
                                             device_, sets + 1, storage_descriptors + compute_descriptors + 1, extra));
  return ok_status();
}

Status VgfDelegate::record_dispatch(vulkan::DispatchRecorder& recorder, const BoundDispatch& b,
                                    const std::vector<uint32_t>& words, Recording& recording) {
  const Dispatch& dispatch = *b.dispatch;
  const std::string label = "dispatch " + dispatch.label;
  if (dispatch.kernel) {
    kernels::KernelDispatch planned = *dispatch.kernel;
    UNIVK_RETURN_IF_ERROR(kernels::add_binding_offsets(planned, b.bases));
    UNIVK_LOG(kDebug) << "VgfBackend " << label << ": " << kernels::describe(planned);
    UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<const vulkan::ComputePipeline> pipeline,
                           vulkan::get_or_create_pipeline(device_, kernels::pipeline_desc(planned)));
    recording.pipelines.push_back(pipeline);
    return kernels::record_kernel(recorder, recording.pool, *pipeline, planned, b.tensors, label);
  }
  const Dispatch selected = select_variant_for_bases(
      dispatch, std::span<const uint32_t>(words).subspan(b.params_offset / 4, b.tensors.size()));
  auto desc = vulkan::ComputePipelineDesc::storage_buffers(shader_spirv(dispatch.shader), 1 + b.tensors.size(), 0,
                                                           std::string("VgfBackend ") + shader_name(dispatch.shader));
  for (auto [id, value] : selected.specialization) desc.specialization.push_back({id, value});
  UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<const vulkan::ComputePipeline> pipeline,
                         vulkan::get_or_create_pipeline(device_, desc));
  recording.pipelines.push_back(pipeline);

  const auto& limits = device_->properties().limits;
  const auto grid =
      dispatch_grid(selected.work_items, limits.maxComputeWorkGroupCount[0], limits.maxComputeWorkGroupCount[1]);
  if (uint64_t{grid[0]} * grid[1] * kLocalSize < selected.work_items) {
    return unsupported(dispatch.label + ": " + std::to_string(selected.work_items) +
                       " invocations exceed the device's workgroup-count limits");
  }
  // Binding 0: the parameter words (bases, then the dispatch's own); 1..: the tensors.
  std::vector<vulkan::DescriptorWrite> descriptors;
  const uint64_t params_bytes = (b.tensors.size() + dispatch.params.size()) * 4;
  descriptors.push_back(
      {0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, {recording.params.handle(), b.params_offset, params_bytes}});
  for (size_t i = 0; i < b.tensors.size(); ++i) {
    descriptors.push_back({0, static_cast<uint32_t>(1 + i), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b.tensors[i]});
  }
  vulkan::DispatchDesc recorded;
  recorded.pipeline = pipeline.get();
  recorded.descriptors = descriptors;
  recorded.groups = {grid[0], grid[1], 1};
  recorded.accesses = b.accesses;
  recorded.label = label;
  return recorder.dispatch(recording.pool, recorded);
}

Status VgfDelegate::record_compute_segment(vulkan::DispatchRecorder& recorder, size_t s,
                                           const std::vector<BufferRange>& resource_ranges, Recording& recording) {
  const univk::vgf::Segment& info = file_.segments[s];
  const ComputeSegment& cs = *segments_[s].compute;
  const uint64_t limit = binding_limit();
  std::vector<vulkan::DescriptorWrite> descriptors;
  std::vector<BufferAccess> accesses;
  for (size_t i = 0; i < info.set_infos.size(); ++i) {
    for (const auto& slot : info.set_infos[i].bindings) {
      UNIVK_ASSIGN_OR_RETURN(BufferRange r, resource_range(slot.resource_index, resource_ranges));
      if (r.size > limit) {
        return unsupported("COMPUTE segment " + std::to_string(s) + ": " + resource_name(slot.resource_index) + " of " +
                           binding_limit_message(r.size, limit));
      }
      const auto type = file_.resources[slot.resource_index].vk_descriptor_type;
      const bool uniform = type && *type == univk::vgf::vk::kDescriptorTypeUniformBuffer;
      descriptors.push_back({info.set_number(i), slot.binding,
                             uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, r});
      // The module's own shader: every bound resource may be read and written.
      accesses.push_back({r, /*write=*/true});
    }
  }
  // VGF files carry push constant ranges but no values: the shader sees zeros.
  const std::vector<uint8_t> zeros(cs.push_constant_bytes, 0);
  const std::string label = "COMPUTE segment '" + info.name + "'";
  vulkan::DispatchDesc dispatch;
  dispatch.pipeline = cs.pipeline.get();
  dispatch.descriptors = descriptors;
  dispatch.push_constants = zeros;
  dispatch.groups = cs.groups;
  dispatch.accesses = accesses;
  dispatch.label = label;
  return recorder.dispatch(recording.pool, dispatch);
}

Status VgfDelegate::record_native_segment(vulkan::DispatchRecorder& recorder, size_t s,
                                          const std::vector<BufferRange>& resource_ranges, Recording& recording) {
  const NativeGraph& native = *segments_[s].native;
  std::vector<BufferRange> ranges;
  std::vector<BufferAccess> accesses;
  for (const NativeBinding& b : native.bindings()) {
    UNIVK_ASSIGN_OR_RETURN(BufferRange r, resource_range(b.resource, resource_ranges));
    ranges.push_back(r);
    accesses.push_back({r, b.output});
  }
  UNIVK_ASSIGN_OR_RETURN(std::unique_ptr<NativeGraphBinding> bound, native.bind(ranges));
  recorder.before_command(accesses);
  // The data-graph dispatch bypasses the recorder's dispatch(), so it opens its own profiling
  // span, named as dispatch_labels() names it.
  uint32_t span = 0;
  if (timer_ != nullptr) {
    UNIVK_ASSIGN_OR_RETURN(span, timer_->begin(recorder.command_buffer(), "DATA_GRAPH"));
  }
  native.record(recorder.command_buffer(), *bound);
  if (timer_ != nullptr) {
    UNIVK_RETURN_IF_ERROR(timer_->end(recorder.command_buffer(), span).status());
  }
  recording.native_bindings.push_back(std::move(bound));
  ++recording.native_dispatches;
  return ok_status();
}

Status VgfDelegate::record_work(vulkan::DispatchRecorder& recorder, const std::vector<BufferRange>& resource_ranges,
                                Recording& recording, std::span<const Dispatch> before,
                                std::span<const Dispatch> after) {
  const std::vector<Step> steps = work_steps(before, after);
  std::vector<uint32_t> words;
  UNIVK_ASSIGN_OR_RETURN(std::vector<BoundDispatch> bound, bind_dispatches(steps, resource_ranges, words));
  UNIVK_RETURN_IF_ERROR(create_recording_objects(bound, words, recording));
  vulkan::expect_pipelines(static_cast<uint32_t>(bound.size()));  // one lookup per dispatch
  size_t next_bound = 0;
  for (const Step& step : steps) {
    if (step.dispatch == nullptr && segments_[step.segment].native) {
      UNIVK_RETURN_IF_ERROR(record_native_segment(recorder, step.segment, resource_ranges, recording));
    } else if (step.dispatch == nullptr) {
      UNIVK_RETURN_IF_ERROR(record_compute_segment(recorder, step.segment, resource_ranges, recording));
    } else if (step.dispatch->work_items != 0) {
      UNIVK_RETURN_IF_ERROR(record_dispatch(recorder, bound[next_bound++], words, recording));
    }
  }
  return ok_status();
}

Status VgfDelegate::record_output_readback(vulkan::DispatchRecorder& recorder, const std::vector<BufferRange>& ranges) {
  // In place when the mapped memory is cached, else through a copy into cached host memory
  // (uncached BAR reads crawl). The recorder orders the copies after the dispatches that wrote
  // the outputs; one host-read barrier then covers the outputs and the copies.
  const VkCommandBuffer cmd = recorder.command_buffer();
  output_staging_.clear();
  output_staging_.resize(output_resources_.size());
  for (size_t i = 0; i < output_resources_.size(); ++i) {
    const uint32_t r = output_resources_[i];
    const vulkan::Buffer& buffer = resource_buffers_[resource_buffer_of_[r]];
    if (buffer.host_cached() && !options_.always_stage_outputs) continue;
    UNIVK_ASSIGN_OR_RETURN(uint64_t bytes, resource_byte_size(file_.resources[r]));
    UNIVK_ASSIGN_OR_RETURN(output_staging_[i],
                           vulkan::Buffer::create(device_, bytes, vulkan::MemoryKind::kHostVisible));
    const BufferRange staging{output_staging_[i].handle(), 0, output_staging_[i].size()};
    const BufferAccess copy[] = {{ranges[r], /*write=*/false}, {staging, /*write=*/true}};
    recorder.before_command(copy);
    vulkan::record_copy(*device_, cmd, ranges[r], staging);
  }
  if (!output_resources_.empty()) recorder.host_read_barrier();
  return ok_status();
}

}  // namespace univk::backends::vgf
