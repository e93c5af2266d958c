#include "vulkan_delegate.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "recorder.h"
#include "univk/base/logging.h"
#include "univk/base/parallel_copy.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::backends::detail {
namespace {

std::vector<ComputeTensorType> to_types(const std::vector<runtime::TensorInfo>& infos) {
  std::vector<ComputeTensorType> out;
  for (const auto& info : infos) out.push_back({info.dtype, info.shape});
  return out;
}

uint64_t storage_alignment(const vulkan::Device& device) {
  return std::max<uint64_t>(device.properties().limits.minStorageBufferOffsetAlignment, 16);
}

vulkan::BufferRange whole(const vulkan::Buffer& buffer) { return {buffer.handle(), 0, buffer.size()}; }

}  // namespace

Result<std::unique_ptr<VulkanDelegate>> VulkanDelegate::create(const runtime::DelegateSpec& spec,
                                                               vulkan::DeviceLease device) {
  if (!device) return invalid_argument("VulkanBackend: no device");
  UNIVK_ASSIGN_OR_RETURN(ComputeGraph graph, parse_compute_graph(spec.payload));
  std::unique_ptr<VulkanDelegate> d(new VulkanDelegate(std::move(device)));
  d->input_infos_ = spec.inputs;
  d->output_infos_ = spec.outputs;
  const vulkan::Device& dev = *d->device_;
  UNIVK_ASSIGN_OR_RETURN(d->plan_, plan_graph(graph, to_types(spec.inputs), to_types(spec.outputs),
                                              storage_alignment(dev)));
  const uint64_t max_range = dev.properties().limits.maxStorageBufferRange;
  for (const PlannedDispatch& pd : d->plan_.dispatches) {
    for (const BufferRef& ref : pd.buffers) {
      if (ref.size > max_range) {
        return unsupported("a tensor of " + std::to_string(ref.size) + " bytes exceeds the device's " +
                           "maxStorageBufferRange of " + std::to_string(max_range));
      }
    }
  }
  UNIVK_ASSIGN_OR_RETURN(d->pipelines_, PipelineSet::create(d->device_, d->plan_));
  UNIVK_ASSIGN_OR_RETURN(d->command_pool_, vulkan::CommandPool::create(d->device_));
  UNIVK_ASSIGN_OR_RETURN(d->arena_,
                         vulkan::Buffer::create(d->device_, d->plan_.arena_bytes, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_RETURN_IF_ERROR(d->upload_constants(graph));
  for (uint64_t bytes : d->plan_.input_bytes) {
    UNIVK_ASSIGN_OR_RETURN(vulkan::Buffer b,
                           vulkan::Buffer::create(d->device_, bytes, vulkan::MemoryKind::kDeviceLocalHostVisible));
    d->input_buffers_.push_back(std::move(b));
  }
  for (uint64_t bytes : d->plan_.output_bytes) {
    UNIVK_ASSIGN_OR_RETURN(vulkan::Buffer b, vulkan::Buffer::create(d->device_, bytes, vulkan::MemoryKind::kHostVisible));
    d->output_buffers_.push_back(std::move(b));
  }
  UNIVK_RETURN_IF_ERROR(d->record_own_command_buffer());
  return d;
}

VulkanDelegate::~VulkanDelegate() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_submitted_ == 0) return;
  Status s = device_->queue().wait_before_release(last_submitted_);
  if (!s.ok()) {
    UNIVK_LOG(kError) << "VulkanBackend: waiting for the last submission at destroy: " << s.to_string();
  }
}

Status VulkanDelegate::upload_constants(const ComputeGraph& graph) {
  UNIVK_ASSIGN_OR_RETURN(constants_, vulkan::Buffer::create(device_, plan_.constant_bytes,
                                                            vulkan::MemoryKind::kDeviceLocal));
  if (plan_.constants.empty()) return ok_status();
  UNIVK_ASSIGN_OR_RETURN(vulkan::Buffer staging,
                         vulkan::Buffer::create(device_, plan_.constant_bytes, vulkan::MemoryKind::kHostVisible,
                                                VK_BUFFER_USAGE_TRANSFER_SRC_BIT));
  auto* dst = static_cast<uint8_t*>(staging.mapped());
  for (const ConstantUpload& c : plan_.constants) {
    const std::vector<uint8_t>& bytes = graph.values[c.value].constant;
    std::memcpy(dst + c.offset, bytes.data(), bytes.size());
  }
  const vulkan::Device& dev = *device_;
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, command_pool_.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(dev, cmd));
  vulkan::record_copy(dev, cmd, whole(staging), {constants_.handle(), 0, plan_.constant_bytes});
  // Later submissions on this queue read the constants in compute shaders.
  vulkan::record_buffer_barrier(dev, cmd, {constants_.handle(), 0, plan_.constant_bytes},
                                VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT);
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(dev, cmd));
  const VkCommandBuffer cmds[] = {cmd};
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, dev.queue().submit(cmds));
  last_submitted_ = value;
  // The staging buffer must outlive the copy.
  return dev.queue().wait(value);
}

Result<vulkan::DescriptorPool> VulkanDelegate::make_descriptor_pool() const {
  return vulkan::DescriptorPool::create(device_, std::max<uint32_t>(descriptor_sets_needed(plan_), 1),
                                        std::max<uint32_t>(storage_descriptors_needed(plan_), 1));
}

Status VulkanDelegate::record_own_command_buffer() {
  const vulkan::Device& dev = *device_;
  UNIVK_ASSIGN_OR_RETURN(vulkan::DescriptorPool pool, make_descriptor_pool());
  std::vector<vulkan::BufferRange> inputs, outputs;
  for (const auto& b : input_buffers_) inputs.push_back(whole(b));
  for (const auto& b : output_buffers_) outputs.push_back(whole(b));
  BoundBuffers bound{inputs, outputs, whole(constants_), whole(arena_)};
  UNIVK_ASSIGN_OR_RETURN(command_buffer_, command_pool_.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(dev, command_buffer_));
  UNIVK_ASSIGN_OR_RETURN(RecordCounts counts, record_plan(dev, command_buffer_, plan_, pipelines_, pool, bound, true));
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(dev, command_buffer_));
  descriptor_pools_.push_back(std::move(pool));
  per_delegate_stats_.dispatches = counts.dispatches;
  per_delegate_stats_.barriers = counts.barriers;
  per_delegate_stats_.submissions = 1;
  for (uint64_t b : plan_.input_bytes) per_delegate_stats_.bytes_uploaded += b;
  for (uint64_t b : plan_.output_bytes) per_delegate_stats_.bytes_downloaded += b;
  return ok_status();
}

Result<std::vector<HostTensor>> VulkanDelegate::execute(std::span<const HostTensor> inputs) {
  if (inputs.size() != input_infos_.size()) {
    return invalid_argument("VulkanBackend: expected " + std::to_string(input_infos_.size()) + " inputs, got " +
                            std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != input_infos_[i].dtype || inputs[i].shape() != input_infos_[i].shape) {
      return invalid_argument("VulkanBackend: input " + std::to_string(i) + " is " + inputs[i].describe() +
                              ", expected " + std::string(dtype_name(input_infos_[i].dtype)) +
                              input_infos_[i].shape.to_string());
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < inputs.size(); ++i) {
    parallel_memcpy(input_buffers_[i].mapped(), inputs[i].bytes().data(), inputs[i].byte_size());
  }
  const VkCommandBuffer cmds[] = {command_buffer_};
  vulkan::Queue& queue = device_->queue();
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, queue.submit(cmds));
  last_submitted_ = value;
  UNIVK_RETURN_IF_ERROR(queue.wait(value));
  std::vector<HostTensor> outputs;
  outputs.reserve(output_infos_.size());
  for (size_t i = 0; i < output_infos_.size(); ++i) {
    HostTensor t(output_infos_[i].dtype, output_infos_[i].shape);
    parallel_memcpy(t.bytes().data(), output_buffers_[i].mapped(), t.byte_size());
    outputs.push_back(std::move(t));
  }
  return outputs;
}

Status VulkanDelegate::record(VkCommandBuffer cmd, std::span<const runtime::DeviceTensor> inputs,
                              std::span<const runtime::DeviceTensor> outputs) {
  // 16 bytes at least: the vec4 kernels (unary.comp) read and write 16-byte elements.
  const uint64_t alignment = storage_alignment(*device_);
  auto check = [&](std::span<const runtime::DeviceTensor> given, const std::vector<uint64_t>& bytes,
                   const char* what, std::vector<vulkan::BufferRange>& ranges) -> Status {
    if (given.size() != bytes.size()) {
      return invalid_argument(std::string("VulkanBackend record: expected ") + std::to_string(bytes.size()) + " " +
                              what + "s, got " + std::to_string(given.size()));
    }
    for (size_t i = 0; i < given.size(); ++i) {
      const vulkan::BufferRange& r = given[i].range;
      if (r.buffer == VK_NULL_HANDLE || r.size < bytes[i] || r.offset % alignment != 0) {
        return invalid_argument(std::string("VulkanBackend record: ") + what + " " + std::to_string(i) +
                                " range (offset " + std::to_string(r.offset) + ", " + std::to_string(r.size) +
                                " bytes) needs " + std::to_string(bytes[i]) + " bytes at an offset aligned to " +
                                std::to_string(alignment));
      }
      ranges.push_back({r.buffer, r.offset, bytes[i]});
    }
    return ok_status();
  };
  std::vector<vulkan::BufferRange> in_ranges, out_ranges;
  UNIVK_RETURN_IF_ERROR(check(inputs, plan_.input_bytes, "input", in_ranges));
  UNIVK_RETURN_IF_ERROR(check(outputs, plan_.output_bytes, "output", out_ranges));
  std::lock_guard<std::mutex> lock(mutex_);
  UNIVK_ASSIGN_OR_RETURN(vulkan::DescriptorPool pool, make_descriptor_pool());
  BoundBuffers bound{in_ranges, out_ranges, whole(constants_), whole(arena_)};
  UNIVK_ASSIGN_OR_RETURN(RecordCounts counts, record_plan(*device_, cmd, plan_, pipelines_, pool, bound, false));
  descriptor_pools_.push_back(std::move(pool));
  fused_stats_.dispatches = counts.dispatches;
  fused_stats_.barriers = counts.barriers;
  fused_ = true;
  return ok_status();
}

runtime::ExecuteStats VulkanDelegate::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fused_ ? fused_stats_ : per_delegate_stats_;
}

}  // namespace univk::backends::detail
