#include "vulkan_delegate.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "recorder.h"
#include "univk/base/logging.h"
#include "univk/base/parallel_copy.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::backends::vulkan {
namespace {

univk::vulkan::BufferRange whole(const univk::vulkan::Buffer& buffer) { return {buffer.handle(), 0, buffer.size()}; }

}  // namespace

Result<std::unique_ptr<VulkanDelegate>> VulkanDelegate::create(const backend::DelegateSpec& spec,
                                                               std::shared_ptr<const ComputeGraph> graph,
                                                               univk::vulkan::DeviceLease device,
                                                               const DelegateOptions& options) {
  if (!device) return invalid_argument("VulkanBackend: no device");
  std::unique_ptr<VulkanDelegate> d(new VulkanDelegate(std::move(device)));
  d->input_infos_ = spec.inputs;
  d->output_infos_ = spec.outputs;
  UNIVK_ASSIGN_OR_RETURN(d->prepared_, PreparedGraph::get_or_create(d->device_, spec, *graph, options.max_binding_bytes,
                                                                    options.precision));
  auto arena =
      univk::vulkan::Buffer::create(d->device_, d->plan().arena_bytes, univk::vulkan::MemoryKind::kDeviceLocal);
  if (!arena.ok()) return arena.status().with_context("VulkanBackend arena (one allocation)");
  d->arena_ = std::move(arena).value();
  return d;
}

VulkanDelegate::~VulkanDelegate() {
  if (last_submitted_ == 0) return;
  Status s = device_->queue().wait_before_release(last_submitted_);
  if (!s.ok()) {
    UNIVK_LOG(kError) << "VulkanBackend: waiting for the last submission at destroy: " << s.to_string();
  }
}

Status VulkanDelegate::prepare_execute() {
  if (command_buffer_ != VK_NULL_HANDLE) return ok_status();
  std::vector<univk::vulkan::Buffer> inputs, outputs;
  for (uint64_t bytes : plan().input_bytes) {
    UNIVK_ASSIGN_OR_RETURN(
        univk::vulkan::Buffer b,
        univk::vulkan::Buffer::create(device_, bytes, univk::vulkan::MemoryKind::kDeviceLocalHostVisible));
    inputs.push_back(std::move(b));
  }
  for (uint64_t bytes : plan().output_bytes) {
    UNIVK_ASSIGN_OR_RETURN(univk::vulkan::Buffer b,
                           univk::vulkan::Buffer::create(device_, bytes, univk::vulkan::MemoryKind::kHostVisible));
    outputs.push_back(std::move(b));
  }
  input_buffers_ = std::move(inputs);
  output_buffers_ = std::move(outputs);
  UNIVK_ASSIGN_OR_RETURN(command_pool_, univk::vulkan::CommandPool::create(device_));
  return record_own_command_buffer();
}

Result<univk::vulkan::DescriptorPool> VulkanDelegate::make_descriptor_pool() const {
  return univk::vulkan::DescriptorPool::create(device_, std::max<uint32_t>(descriptor_sets_needed(plan()), 1),
                                               std::max<uint32_t>(storage_descriptors_needed(plan()), 1));
}

Status VulkanDelegate::record_own_command_buffer() {
  const univk::vulkan::Device& dev = *device_;
  UNIVK_ASSIGN_OR_RETURN(univk::vulkan::DescriptorPool pool, make_descriptor_pool());
  std::vector<univk::vulkan::BufferRange> inputs, outputs;
  for (const auto& b : input_buffers_) inputs.push_back(whole(b));
  for (const auto& b : output_buffers_) outputs.push_back(whole(b));
  BoundBuffers bound{inputs, outputs, whole(prepared_->constants), whole(arena_)};
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, command_pool_.allocate());
  UNIVK_RETURN_IF_ERROR(univk::vulkan::begin_command_buffer(dev, cmd));
  UNIVK_ASSIGN_OR_RETURN(univk::vulkan::RecordCounts counts,
                         record_plan(dev, cmd, plan(), prepared_->pipelines, pool, bound, true, timer_));
  UNIVK_RETURN_IF_ERROR(univk::vulkan::end_command_buffer(dev, cmd));
  command_buffer_ = cmd;
  descriptor_pools_.push_back(std::move(pool));
  per_delegate_stats_.dispatches = counts.dispatches;
  per_delegate_stats_.barriers = counts.barriers;
  per_delegate_stats_.submissions = 1;
  for (uint64_t b : plan().input_bytes) per_delegate_stats_.bytes_uploaded += b;
  for (uint64_t b : plan().output_bytes) per_delegate_stats_.bytes_downloaded += b;
  return ok_status();
}

Result<std::vector<HostTensor>> VulkanDelegate::execute(std::span<const HostTensor> inputs) {
  UNIVK_RETURN_IF_ERROR(backend::check_inputs(inputs, input_infos_).with_context("VulkanBackend execute"));
  if (command_buffer_ == VK_NULL_HANDLE) return invalid_argument("VulkanBackend: execute() before prepare_execute()");
  for (size_t i = 0; i < inputs.size(); ++i) {
    parallel_memcpy(input_buffers_[i].mapped(), inputs[i].bytes().data(), inputs[i].byte_size());
  }
  const VkCommandBuffer cmds[] = {command_buffer_};
  univk::vulkan::Queue& queue = device_->queue();
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

Status VulkanDelegate::record(VkCommandBuffer cmd, std::span<const backend::DeviceTensor> inputs,
                              std::span<const backend::DeviceTensor> outputs) {
  // 16 bytes at least: the vec4 kernels (unary.comp) read and write 16-byte elements.
  const uint64_t alignment = storage_alignment(*device_);
  auto check = [&](std::span<const backend::DeviceTensor> given, const std::vector<uint64_t>& bytes, const char* what,
                   std::vector<univk::vulkan::BufferRange>& ranges) -> Status {
    if (given.size() != bytes.size()) {
      return invalid_argument(std::string("VulkanBackend record: expected ") + std::to_string(bytes.size()) + " " +
                              what + "s, got " + std::to_string(given.size()));
    }
    for (size_t i = 0; i < given.size(); ++i) {
      const univk::vulkan::BufferRange& r = given[i].range;
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
  std::vector<univk::vulkan::BufferRange> in_ranges, out_ranges;
  UNIVK_RETURN_IF_ERROR(check(inputs, plan().input_bytes, "input", in_ranges));
  UNIVK_RETURN_IF_ERROR(check(outputs, plan().output_bytes, "output", out_ranges));
  UNIVK_ASSIGN_OR_RETURN(univk::vulkan::DescriptorPool pool, make_descriptor_pool());
  BoundBuffers bound{in_ranges, out_ranges, whole(prepared_->constants), whole(arena_)};
  UNIVK_ASSIGN_OR_RETURN(univk::vulkan::RecordCounts counts,
                         record_plan(*device_, cmd, plan(), prepared_->pipelines, pool, bound, false, timer_));
  descriptor_pools_.push_back(std::move(pool));
  fused_stats_.dispatches = counts.dispatches;
  fused_stats_.barriers = counts.barriers;
  fused_ = true;
  return ok_status();
}

backend::ExecuteStats VulkanDelegate::stats() const { return fused_ ? fused_stats_ : per_delegate_stats_; }

}  // namespace univk::backends::vulkan
