#include "fused_executor.h"

#include <algorithm>
#include <cstring>

#include "method_impl.h"
#include "method_profiler.h"
#include "univk/base/logging.h"
#include "univk/base/parallel_copy.h"
#include "univk/vulkan/arena_plan.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/queue.h"

namespace univk::runtime {

namespace {

// Every range is at least 4 bytes: zero-sized descriptor ranges and barriers are invalid.
uint64_t device_size(const TensorInfo& info) { return std::max<uint64_t>((info.byte_size() + 3) / 4 * 4, 4); }

}  // namespace

Result<FusedIo> fused_io_from_name(std::string_view name) {
  if (name == "auto") return FusedIo::kAuto;
  if (name == "staged") return FusedIo::kStaged;
  if (name == "host_outputs") return FusedIo::kHostOutputs;
  return invalid_argument("fused IO '" + std::string(name) + "' is not auto, staged or host_outputs");
}

Result<std::unique_ptr<FusedExecutor>> FusedExecutor::create(const MethodDesc& method,
                                                             std::span<DelegateSlot> delegates,
                                                             vulkan::DeviceLease device, FusedIo io,
                                                             std::span<const HostMemoryBinding> host_memory,
                                                             MethodProfiler* profiler) {
  std::unique_ptr<FusedExecutor> executor(new FusedExecutor());
  executor->device_ = std::move(device);
  executor->method_ = &method;
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(executor->device_));
  executor->pool_.emplace(std::move(pool));
  UNIVK_RETURN_IF_ERROR(executor->allocate(method, io, host_memory));
  UNIVK_RETURN_IF_ERROR(executor->record(method, delegates, profiler));
  return executor;
}

FusedExecutor::~FusedExecutor() { release_commands(); }

void FusedExecutor::release_commands() {
  if (device_ && last_submitted_ > last_completed_) {
    Status waited = device_->queue().wait_before_release(last_submitted_);
    if (!waited.ok()) {
      UNIVK_LOG(kError) << "fused method: waiting for the last submission: " << waited.to_string();
    }
    last_completed_ = last_submitted_;
  }
  cmd_ = VK_NULL_HANDLE;
  pool_.reset();
}

Status FusedExecutor::allocate(const MethodDesc& method, FusedIo io, std::span<const HostMemoryBinding> host_memory) {
  const size_t value_count = method.values.size();
  locations_.assign(value_count, {});
  // Caller memory first: the loader checked indices, sizes and that no value is bound twice.
  std::vector<bool> imported(value_count, false);
  for (const HostMemoryBinding& binding : host_memory) {
    const uint32_t v = binding.output ? method.outputs[binding.index] : method.inputs[binding.index];
    const std::string what = std::string(binding.output ? "output " : "input ") + std::to_string(binding.index);
    auto buffer = vulkan::Buffer::import_host(device_, binding.data, binding.bytes);
    if (!buffer.ok()) return buffer.status().with_context("host memory for " + what);
    locations_[v].range = {buffer->handle(), 0, device_size(method.values[v].info), buffer->memory(),
                           buffer->memory_type()};
    locations_[v].host = buffer->mapped();
    locations_[v].path = IoPath::kImported;
    imported[v] = true;
    imported_.push_back(buffers_.size());
    buffers_.push_back(std::move(buffer).value());
  }
  std::vector<bool> is_input(value_count, false), is_output(value_count, false);
  for (uint32_t v : method.inputs) is_input[v] = true;
  for (uint32_t v : method.outputs) is_output[v] = true;

  // The host reads outputs back, and uncached memory (a discrete GPU's BAR) is very slow to
  // read: outputs go to device-local memory only when it is also host-cached.
  const bool cached_device_memory =
      device_
          ->find_memory_type(~0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
          .ok();

  // Binds `buffer` as the value's memory when it was created; false when it could not be (no
  // such memory type, or not enough of it: the caller tries the next placement).
  auto place_mapped = [&](uint32_t v, Result<vulkan::Buffer> buffer, bool need_device_local) -> Result<bool> {
    if (!buffer.ok()) {
      const StatusCode code = buffer.status().code();
      if (code != StatusCode::kOutOfMemory && code != StatusCode::kNotFound) return buffer.status();
      return false;
    }
    if (need_device_local && !buffer->device_local()) return false;
    locations_[v].range = buffer->range();
    locations_[v].host = buffer->mapped();
    buffers_.push_back(std::move(buffer).value());
    return true;
  };

  // Program inputs, outputs and constants: persistently mapped; see FusedIo for the placement.
  auto make_io = [&](uint32_t v, bool host_reads) -> Status {
    const uint64_t size = device_size(method.values[v].info);
    if (io != FusedIo::kStaged) {
      const bool host_memory = host_reads && (io == FusedIo::kHostOutputs || !cached_device_memory);
      if (host_memory) {
        UNIVK_ASSIGN_OR_RETURN(bool placed,
                               place_mapped(v, vulkan::Buffer::create(device_, size, vulkan::MemoryKind::kHostVisible),
                                            /*need_device_local=*/false));
        if (placed) {
          host_outputs_ = true;
          return ok_status();
        }
      } else {
        UNIVK_ASSIGN_OR_RETURN(
            bool placed,
            place_mapped(v, vulkan::Buffer::create(device_, size, vulkan::MemoryKind::kDeviceLocalHostVisible),
                         /*need_device_local=*/true));
        if (placed) return ok_status();
      }
    }
    Location& loc = locations_[v];
    UNIVK_ASSIGN_OR_RETURN(auto host, vulkan::Buffer::create(device_, size, vulkan::MemoryKind::kHostVisible));
    UNIVK_ASSIGN_OR_RETURN(auto local, vulkan::Buffer::create(device_, size, vulkan::MemoryKind::kDeviceLocal));
    loc.staged = true;
    loc.path = IoPath::kStaged;
    loc.staging = {host.handle(), 0, size};
    loc.host = host.mapped();
    loc.range = {local.handle(), 0, size, local.memory(), local.memory_type()};
    buffers_.push_back(std::move(host));
    buffers_.push_back(std::move(local));
    staging_ = true;
    return ok_status();
  };

  // Values written by an instruction and read only by later instructions go to the arena.
  std::vector<size_t> writer(value_count, kNeverRead), last_read(value_count, kNeverRead);
  for (size_t k = 0; k < method.instructions.size(); ++k) {
    for (uint32_t v : instruction_inputs(method.instructions[k])) last_read[v] = k;
    for (uint32_t v : instruction_outputs(method.instructions[k])) writer[v] = k;
  }
  std::vector<vulkan::ArenaRequest> requests;
  std::vector<uint32_t> arena_values;
  std::vector<uint32_t> staged_constants;
  for (uint32_t v = 0; v < value_count; ++v) {
    const ValueDesc& value = method.values[v];
    if (value.is_constant()) {
      // Uploaded once; the host copy goes through make_io's buffers.
      UNIVK_RETURN_IF_ERROR(make_io(v, /*host_reads=*/false));
      if (!value.constant_bytes.empty())
        std::memcpy(locations_[v].host, value.constant_bytes.data(), value.constant_bytes.size());
      if (locations_[v].staged) staged_constants.push_back(v);
    } else if (imported[v]) {
      continue;
    } else if (is_input[v] || is_output[v]) {
      UNIVK_RETURN_IF_ERROR(make_io(v, /*host_reads=*/!is_input[v]));
    } else if (writer[v] != kNeverRead) {
      const size_t last = last_read[v] == kNeverRead ? writer[v] : std::max(last_read[v], writer[v]);
      requests.push_back({device_size(value.info), writer[v], last});
      arena_values.push_back(v);
    }
  }

  if (!requests.empty()) {
    const uint64_t alignment = std::max<uint64_t>(16, device_->properties().limits.minStorageBufferOffsetAlignment);
    const vulkan::ArenaPlan plan = vulkan::plan_arena(requests, alignment);
    UNIVK_ASSIGN_OR_RETURN(auto arena, vulkan::Buffer::create(device_, plan.total, vulkan::MemoryKind::kDeviceLocal));
    for (size_t i = 0; i < arena_values.size(); ++i) {
      locations_[arena_values[i]].range = {arena.handle(), plan.offsets[i], requests[i].size, arena.memory(),
                                           arena.memory_type()};
    }
    arena_bytes_ = plan.total;
    buffers_.push_back(std::move(arena));
  }

  if (!staged_constants.empty()) {
    // One upload at load; the fused submissions wait on its timeline value (execute() passes
    // the last submitted value), which orders the copies before any read.
    UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer upload, pool_->allocate());
    UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device_, upload));
    for (uint32_t v : staged_constants)
      vulkan::record_copy(*device_, upload, locations_[v].staging, locations_[v].range);
    UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device_, upload));
    UNIVK_ASSIGN_OR_RETURN(last_submitted_, device_->queue().submit(std::span<const VkCommandBuffer>(&upload, 1)));
    UNIVK_RETURN_IF_ERROR(device_->queue().wait(last_submitted_));
    last_completed_ = last_submitted_;
  }
  return ok_status();
}

Status FusedExecutor::record(const MethodDesc& method, std::span<DelegateSlot> delegates, MethodProfiler* profiler) {
  UNIVK_ASSIGN_OR_RETURN(cmd_, pool_->allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device_, cmd_));
  // Orders the method's own commands (staging copies) and the delegate calls by the values they
  // read and write. A delegate orders its own dispatches; the values it reads and writes stay
  // pending here until the next barrier, since its internal barriers are not known.
  vulkan::DispatchRecorder recorder(*device_, cmd_);
  auto read = [&](const vulkan::BufferRange& range) { return vulkan::BufferAccess{range, /*write=*/false}; };
  auto write = [&](const vulkan::BufferRange& range) { return vulkan::BufferAccess{range, /*write=*/true}; };

  const size_t value_count = method.values.size();
  std::vector<bool> gpu_written(value_count, false);  // written by a command of this buffer

  for (uint32_t v : method.inputs) {
    const Location& loc = locations_[v];
    if (!loc.staged) continue;
    const vulkan::BufferAccess copy[] = {read(loc.staging), write(loc.range)};
    recorder.before_command(copy);
    vulkan::record_copy(*device_, cmd_, loc.staging, loc.range);
    gpu_written[v] = true;
  }

  size_t slot = 0;
  for (size_t k = 0; k < method.instructions.size(); ++k) {
    const auto& call = std::get<DelegateCallDesc>(method.instructions[k]);
    const size_t s = slot++;
    DelegateSlot& delegate = delegates[s];
    // One barrier before the call when it reads a value written since the last barrier, or
    // writes arena bytes an earlier call read or wrote (reused memory).
    std::vector<vulkan::BufferAccess> accesses;
    for (uint32_t v : call.inputs) accesses.push_back(read(locations_[v].range));
    for (uint32_t v : call.outputs) accesses.push_back(write(locations_[v].range));
    recorder.before_command(accesses);

    std::vector<backend::DeviceTensor> inputs, outputs;
    for (uint32_t v : call.inputs) inputs.push_back({locations_[v].range, method.values[v].info});
    for (uint32_t v : call.outputs) outputs.push_back({locations_[v].range, method.values[v].info});
    vulkan::GpuTimer* timer = profiler != nullptr ? profiler->timer(s) : nullptr;
    uint32_t span = 0;
    if (timer != nullptr) {
      UNIVK_ASSIGN_OR_RETURN(span, timer->begin(cmd_, delegate.backend_id));
      profiler->set_call_span(s, span);
      profiler->begin_delegate(s);
    }
    Status recorded;
    {
      DelegateLoadStep step(delegate);
      recorded = delegate.delegate->record(cmd_, inputs, outputs);
    }
    if (timer != nullptr) {
      profiler->end_delegate(s);
      if (recorded.ok()) recorded = timer->end(cmd_, span).status();
    }
    if (!recorded.ok()) {
      return recorded.with_context("instruction " + std::to_string(k) + " (" + delegate.backend_id + ") record");
    }
    for (uint32_t v : call.outputs) gpu_written[v] = true;
  }

  // Device -> host for every output a delegate wrote (a program input returned as an output is
  // already in its mapped buffer): staged outputs are copied to their host buffers (one barrier
  // before the copies), then one barrier makes every write visible to the host.
  std::vector<uint32_t> outputs;
  for (uint32_t v : method.outputs) {
    if (std::find(method.inputs.begin(), method.inputs.end(), v) == method.inputs.end()) outputs.push_back(v);
  }
  std::sort(outputs.begin(), outputs.end());
  outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
  bool host_reads = false;
  for (uint32_t v : outputs) {
    const Location& loc = locations_[v];
    if (!gpu_written[v]) continue;
    host_reads = true;
    if (!loc.staged) continue;
    const vulkan::BufferAccess copy[] = {read(loc.range), write(loc.staging)};
    recorder.before_command(copy);
    vulkan::record_copy(*device_, cmd_, loc.range, loc.staging);
  }
  if (host_reads) recorder.host_read_barrier();
  barriers_ = recorder.counts().barriers;
  return vulkan::end_command_buffer(*device_, cmd_);
}

Status FusedExecutor::run(HostEvents* host) {
  if (cmd_ == VK_NULL_HANDLE) return internal_error("fused method: executed after release");
  for (size_t b : imported_) UNIVK_RETURN_IF_ERROR(buffers_[b].flush_host_writes());
  vulkan::Queue& queue = device_->queue();
  size_t event = 0;
  if (host != nullptr) {
    event = host->begin(ProfileKind::kPhase, "submit");
    host->anchor_gpu_at(event);
  }
  // Waiting (on the GPU) for this executor's previous submission orders this one after it.
  UNIVK_ASSIGN_OR_RETURN(const uint64_t value,
                         queue.submit(std::span<const VkCommandBuffer>(&cmd_, 1), last_submitted_));
  last_submitted_ = value;
  if (host != nullptr) {
    host->end(event);
    event = host->begin(ProfileKind::kPhase, "wait");
  }
  UNIVK_RETURN_IF_ERROR(queue.wait(value));
  last_completed_ = value;
  if (host != nullptr) host->end(event);
  for (size_t b : imported_) UNIVK_RETURN_IF_ERROR(buffers_[b].invalidate_for_host_reads());
  return ok_status();
}

Result<std::vector<HostTensor>> FusedExecutor::execute(std::span<const HostTensor> inputs, HostEvents* host) {
  if (cmd_ == VK_NULL_HANDLE) return internal_error("fused method: executed after release");
  size_t event = 0;
  if (host != nullptr) event = host->begin(ProfileKind::kPhase, "input copy");
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].byte_size() != 0) {
      parallel_memcpy(locations_[method_->inputs[i]].host, inputs[i].bytes().data(), inputs[i].byte_size());
    }
  }
  if (host != nullptr) host->end(event);
  UNIVK_RETURN_IF_ERROR(run(host));

  if (host != nullptr) event = host->begin(ProfileKind::kPhase, "output copy");
  std::vector<HostTensor> outputs;
  outputs.reserve(method_->outputs.size());
  for (uint32_t v : method_->outputs) {
    // A program input returned as an output: the caller's tensor has the bytes.
    auto input = std::find(method_->inputs.begin(), method_->inputs.end(), v);
    if (input != method_->inputs.end()) {
      outputs.push_back(inputs[static_cast<size_t>(input - method_->inputs.begin())]);
      continue;
    }
    const ValueDesc& desc = method_->values[v];
    HostTensor out(desc.info.dtype, desc.info.shape);
    parallel_memcpy(out.bytes().data(), locations_[v].host, out.byte_size());
    outputs.push_back(std::move(out));
  }
  if (host != nullptr) host->end(event);
  return outputs;
}

}  // namespace univk::runtime
