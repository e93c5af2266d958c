#include "gpu_profile.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <variant>

#include "timestamps.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::bench {

namespace {

// Every range is at least 4 bytes (zero-sized descriptor ranges are invalid), like the method's.
uint64_t device_size(const runtime::TensorInfo& info) {
  return std::max<uint64_t>((tensor_bytes(info) + 3) / 4 * 4, 4);
}

struct ReplayDelegate {
  size_t instruction = 0;
  const runtime::DelegateCallDesc* call = nullptr;
  std::string backend_id;
  std::unique_ptr<backend::Delegate> delegate;
};

Result<std::vector<ReplayDelegate>> init_delegates(const runtime::ProgramDesc& program,
                                                   const runtime::MethodDesc& method, const vulkan::DeviceLease& device,
                                                   const runtime::LoadOptions& options) {
  std::vector<ReplayDelegate> out;
  for (size_t k = 0; k < method.instructions.size(); ++k) {
    const auto* call = std::get_if<runtime::DelegateCallDesc>(&method.instructions[k]);
    if (call == nullptr) {
      return unsupported("instruction " + std::to_string(k) + " runs operator '" +
                         std::get<runtime::KernelCallDesc>(method.instructions[k]).op + "' on the CPU");
    }
    const runtime::DelegateDesc& desc = program.delegates[call->delegate];
    const backend::Backend* found = options.backends->find(desc.backend_id);
    if (found == nullptr) return not_found("backend '" + desc.backend_id + "' is not registered");
    backend::DelegateSpec spec;
    spec.backend_id = desc.backend_id;
    spec.payload = desc.payload;
    spec.compile_specs = desc.compile_specs;
    for (uint32_t v : call->inputs) spec.inputs.push_back(method.values[v].info);
    for (uint32_t v : call->outputs) spec.outputs.push_back(method.values[v].info);
    auto delegate = backend::create_delegate(*found, spec, device, options.options_for(desc.backend_id));
    if (!delegate.ok()) return delegate.status().with_context("instruction " + std::to_string(k) + " init");
    out.push_back({k, call, desc.backend_id, std::move(delegate).value()});
  }
  return out;
}

// One device-local buffer per value; program inputs and constants are uploaded once.
Result<std::vector<vulkan::Buffer>> make_value_buffers(const runtime::MethodDesc& method,
                                                       const vulkan::DeviceLease& device,
                                                       std::span<const HostTensor> inputs) {
  std::vector<vulkan::Buffer> buffers;
  std::vector<const uint8_t*> host_bytes(method.values.size(), nullptr);
  for (size_t i = 0; i < method.inputs.size() && i < inputs.size(); ++i) {
    host_bytes[method.inputs[i]] = inputs[i].bytes().data();
  }
  uint64_t upload_bytes = 0;
  for (size_t v = 0; v < method.values.size(); ++v) {
    const runtime::ValueDesc& value = method.values[v];
    if (value.is_constant()) host_bytes[v] = value.constant_bytes.data();
    UNIVK_ASSIGN_OR_RETURN(auto buffer,
                           vulkan::Buffer::create(device, device_size(value.info), vulkan::MemoryKind::kDeviceLocal));
    buffers.push_back(std::move(buffer));
    if (host_bytes[v] != nullptr) upload_bytes += tensor_bytes(value.info);
  }
  if (upload_bytes == 0) return buffers;

  UNIVK_ASSIGN_OR_RETURN(auto staging, vulkan::Buffer::create(device, upload_bytes, vulkan::MemoryKind::kHostVisible));
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  uint64_t offset = 0;
  for (size_t v = 0; v < method.values.size(); ++v) {
    const uint64_t bytes = tensor_bytes(method.values[v].info);
    if (host_bytes[v] == nullptr || bytes == 0) continue;
    std::memcpy(static_cast<uint8_t*>(staging.mapped()) + offset, host_bytes[v], bytes);
    vulkan::record_copy(*device, cmd, {staging.handle(), offset, bytes}, {buffers[v].handle(), 0, bytes});
    offset += bytes;
  }
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  UNIVK_ASSIGN_OR_RETURN(const uint64_t value, device->queue().submit(std::span<const VkCommandBuffer>(&cmd, 1)));
  UNIVK_RETURN_IF_ERROR(device->queue().wait(value));
  return buffers;
}

std::vector<backend::DeviceTensor> device_tensors(const runtime::MethodDesc& method,
                                                  const std::vector<uint32_t>& values,
                                                  const std::vector<vulkan::Buffer>& buffers) {
  std::vector<backend::DeviceTensor> out;
  for (uint32_t v : values) out.push_back({{buffers[v].handle(), 0, buffers[v].size()}, method.values[v].info});
  return out;
}

}  // namespace

uint64_t tensor_bytes(const runtime::TensorInfo& info) { return info.byte_size(); }

Result<GpuProfile> profile_gpu(const runtime::ProgramDesc& program, const runtime::MethodDesc& method,
                               const vulkan::DeviceLease& device, const runtime::LoadOptions& options,
                               std::span<const HostTensor> inputs, RepeatCounts counts) {
  UNIVK_ASSIGN_OR_RETURN(auto delegates, init_delegates(program, method, device, options));
  if (delegates.empty()) return unsupported("the method has no delegate");
  UNIVK_ASSIGN_OR_RETURN(auto buffers, make_value_buffers(method, device, inputs));
  const uint32_t stamps = static_cast<uint32_t>(delegates.size()) + 1;
  UNIVK_ASSIGN_OR_RETURN(auto timestamps, TimestampPool::create(device, stamps));
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());

  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  timestamps.record_reset(cmd);
  // Orders the uploads and the previous submission of this buffer before the first delegate.
  vulkan::record_full_barrier(*device, cmd);
  timestamps.record_write(cmd, 0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
  for (size_t d = 0; d < delegates.size(); ++d) {
    const ReplayDelegate& r = delegates[d];
    if (d > 0) vulkan::record_full_barrier(*device, cmd);
    auto ins = device_tensors(method, r.call->inputs, buffers);
    auto outs = device_tensors(method, r.call->outputs, buffers);
    Status recorded = r.delegate->record(cmd, ins, outs);
    if (!recorded.ok()) {
      return recorded.with_context("instruction " + std::to_string(r.instruction) + " (" + r.backend_id + ") record");
    }
    timestamps.record_write(cmd, static_cast<uint32_t>(d + 1), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  }
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));

  std::vector<std::vector<double>> per_delegate(delegates.size());
  std::vector<double> totals;
  vulkan::Queue& queue = device->queue();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0, measured = 0; measured < counts.iterations; ++i) {
    UNIVK_ASSIGN_OR_RETURN(const uint64_t value, queue.submit(std::span<const VkCommandBuffer>(&cmd, 1)));
    UNIVK_RETURN_IF_ERROR(queue.wait(value));
    UNIVK_ASSIGN_OR_RETURN(auto ns, timestamps.read_ns());
    if (warming_up(counts, i, start)) continue;
    ++measured;
    for (size_t d = 0; d < delegates.size(); ++d) per_delegate[d].push_back(ns[d + 1] - ns[d]);
    totals.push_back(ns.back());
  }

  GpuProfile profile;
  profile.total_ns = summarize(std::move(totals));
  for (size_t d = 0; d < delegates.size(); ++d) {
    const ReplayDelegate& r = delegates[d];
    DelegateProfile p;
    p.instruction = r.instruction;
    p.backend_id = r.backend_id;
    p.stats = r.delegate->stats();
    for (uint32_t v : r.call->inputs) p.min_bytes += tensor_bytes(method.values[v].info);
    for (uint32_t v : r.call->outputs) p.min_bytes += tensor_bytes(method.values[v].info);
    p.gpu_ns = summarize(std::move(per_delegate[d]));
    profile.delegates.push_back(std::move(p));
  }
  return profile;
}

}  // namespace univk::bench
