// Program::load_method: backends, requirements, devices, delegates, execution mode.
//
// Order (docs/RUNTIME.md, "What load_method does"): every delegate's payload is prepared and its
// requirements are merged per device key; one lease is acquired per key with the merged
// requirements; only then are delegates initialised. So the order of delegates in the method
// never changes which device gets which features.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "fused_executor.h"
#include "method_impl.h"
#include "method_profiler.h"
#include "univk/base/logging.h"
#include "univk/reference/kernels.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/device.h"

namespace univk::runtime {

namespace {

// Delegates that share one device: all those with the same key (shared modes), or a single
// delegate with mode `disabled` (a private device).
struct DeviceGroup {
  vulkan::SharedDeviceOptions shared;
  vulkan::DeviceRequirements requirements;
  std::vector<size_t> members;  // indices into the pending list
  vulkan::DeviceLease lease;
};

struct PendingDelegate {
  size_t instruction = 0;
  uint32_t delegate_index = 0;
  const backend::Backend* backend = nullptr;
  backend::DelegateSpec spec;
  std::unique_ptr<backend::PreparedPayload> prepared;  // set by plan_devices
  BackendOptions options;
  vulkan::SharedDeviceOptions shared;
  size_t group = 0;
};

std::string where(size_t instruction, const std::string& backend_id) {
  return "instruction " + std::to_string(instruction) + " (" + backend_id + ")";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

std::string group_members(const DeviceGroup& group, const std::vector<PendingDelegate>& pending) {
  std::vector<std::string> names;
  for (size_t m : group.members) names.push_back(where(pending[m].instruction, pending[m].spec.backend_id));
  return join(names);
}

Status check_cpu_kernels(const MethodDesc& method, bool require_no_cpu_fallback) {
  for (size_t k = 0; k < method.instructions.size(); ++k) {
    const auto* call = std::get_if<KernelCallDesc>(&method.instructions[k]);
    if (call == nullptr) continue;
    if (require_no_cpu_fallback) {
      return incompatible("method '" + method.name + "' instruction " + std::to_string(k) + ": operator '" + call->op +
                          "' would run on the CPU, and require_no_cpu_fallback is set");
    }
    if (!reference::is_supported_op(call->op)) {
      return unsupported("method '" + method.name + "' instruction " + std::to_string(k) + ": operator '" + call->op +
                         "' has no CPU kernel");
    }
  }
  return ok_status();
}

Result<std::vector<PendingDelegate>> collect_delegates(const ProgramDesc& program, const MethodDesc& method,
                                                       const LoadOptions& options) {
  std::vector<PendingDelegate> pending;
  for (size_t k = 0; k < method.instructions.size(); ++k) {
    const auto* call = std::get_if<DelegateCallDesc>(&method.instructions[k]);
    if (call == nullptr) continue;
    const DelegateDesc& delegate = program.delegates[call->delegate];
    const std::string context = where(k, delegate.backend_id);
    PendingDelegate p;
    p.instruction = k;
    p.delegate_index = call->delegate;
    p.backend = options.backends->find(delegate.backend_id);
    if (p.backend == nullptr) {
      return not_found(context + ": backend '" + delegate.backend_id +
                       "' is not registered (registered: " + join(options.backends->ids()) + ")");
    }
    p.spec.backend_id = delegate.backend_id;
    p.spec.payload = delegate.payload;
    p.spec.compile_specs = delegate.compile_specs;
    for (uint32_t v : call->inputs) p.spec.inputs.push_back(method.values[v].info);
    for (uint32_t v : call->outputs) p.spec.outputs.push_back(method.values[v].info);
    p.options = options.options_for(delegate.backend_id);
    auto shared = vulkan::SharedDeviceOptions::from_options(p.options);
    if (!shared.ok()) return shared.status().with_context(context);
    p.shared = std::move(shared).value();
    pending.push_back(std::move(p));
  }
  return pending;
}

// Prepares every delegate's payload, groups delegates by device key and merges their
// requirements. No device or Vulkan object is created here. `profile`: the devices should place
// GPU timestamps on the host clock (LoadOptions::profile).
Result<std::vector<DeviceGroup>> plan_devices(std::vector<PendingDelegate>& pending, bool profile) {
  std::vector<DeviceGroup> groups;
  std::map<vulkan::DeviceKey, size_t> group_of_key;
  for (size_t i = 0; i < pending.size(); ++i) {
    PendingDelegate& p = pending[i];
    auto prepared = p.backend->prepare(p.spec);
    if (!prepared.ok()) return prepared.status().with_context(where(p.instruction, p.spec.backend_id));
    p.prepared = std::move(prepared).value();
    size_t group = groups.size();
    if (p.shared.mode != vulkan::SharedMode::kDisabled) {
      auto [it, inserted] = group_of_key.emplace(p.shared.key, groups.size());
      group = it->second;
      if (!inserted && groups[group].shared.mode != p.shared.mode) {
        const PendingDelegate& first = pending[groups[group].members.front()];
        return invalid_argument(where(first.instruction, first.spec.backend_id) + " and " +
                                where(p.instruction, p.spec.backend_id) + " share device " + p.shared.key.to_string() +
                                " with different modes (" + std::string(vulkan::shared_mode_name(first.shared.mode)) +
                                ", " + std::string(vulkan::shared_mode_name(p.shared.mode)) + ")");
      }
    }
    if (group == groups.size()) {
      groups.emplace_back();
      groups[group].shared = p.shared;
    }
    groups[group].requirements.merge(p.prepared->requirements());
    // The method's own optional need: caller memory imported as program IO (LoadOptions::host_memory).
    groups[group].requirements.optional_extensions.insert(vulkan::kExternalMemoryHostExtension);
    if (profile) groups[group].requirements.optional_extensions.insert(vulkan::kCalibratedTimestampsExtension);
    groups[group].members.push_back(i);
    p.group = group;
  }
  return groups;
}

// Index, size and uniqueness of each caller memory binding (alignment needs the device and is
// checked by the import).
Status check_host_memory(const MethodDesc& method, std::span<const HostMemoryBinding> host_memory) {
  std::vector<bool> bound(method.values.size(), false);
  for (const HostMemoryBinding& b : host_memory) {
    const std::vector<uint32_t>& ids = b.output ? method.outputs : method.inputs;
    const std::string what = std::string(b.output ? "output " : "input ") + std::to_string(b.index);
    if (b.index >= ids.size()) {
      return invalid_argument("host memory for " + what + ": method '" + method.name + "' has " +
                              std::to_string(ids.size()) + (b.output ? " outputs" : " inputs"));
    }
    const uint32_t v = ids[b.index];
    const TensorInfo& info = method.values[v].info;
    if (b.data == nullptr) return invalid_argument("host memory for " + what + ": null pointer");
    if (b.bytes < info.byte_size()) {
      return invalid_argument("host memory for " + what + ": " + std::to_string(b.bytes) + " bytes for " +
                              std::string(dtype_name(info.dtype)) + info.shape.to_string() + " (" +
                              std::to_string(info.byte_size()) + " bytes)");
    }
    if (method.values[v].is_constant()) return invalid_argument("host memory for " + what + ": it is a constant");
    if (bound[v]) {
      return invalid_argument("host memory for " + what +
                              ": its value is already bound (an output that is an input, or bound twice)");
    }
    bound[v] = true;
  }
  return ok_status();
}

// Why the method cannot run fused (empty when it can): fused mode needs at least one delegate,
// no CPU kernel, and every delegate on one device.
std::string fused_blocker(const MethodDesc& method, const std::vector<DeviceGroup>& groups) {
  for (size_t k = 0; k < method.instructions.size(); ++k) {
    if (const auto* call = std::get_if<KernelCallDesc>(&method.instructions[k])) {
      return "instruction " + std::to_string(k) + " runs operator '" + call->op + "' on the CPU";
    }
  }
  if (groups.empty()) return "it has no delegate";
  for (const DeviceGroup& group : groups) {
    if (group.lease != groups.front().lease) return "its delegates use more than one device";
  }
  return {};
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f s", seconds);
  return text;
}

// The info lines of a finished load: one per delegate (what its pipelines cost), then the
// method's mode and why.
void log_load(const Method::Impl& impl, std::chrono::steady_clock::time_point start) {
  if (!log_enabled(LogLevel::kInfo)) return;
  for (const DelegateSlot& slot : impl.delegates) {
    const vulkan::PipelineLoadStats& p = slot.pipelines;
    UNIVK_LOG(kInfo) << "method '" << impl.desc->name << "' " << slot.label() << " on device "
                     << (slot.standalone_device ? std::string(kPrivateDeviceName) : slot.device_key.to_string())
                     << ": ready in " << seconds_text(slot.load_seconds) << "; compiled " << p.created << " pipeline"
                     << (p.created == 1 ? "" : "s") << " in " << seconds_text(p.create_seconds) << ", "
                     << (p.looked_up - p.created) << " found in the device's cache";
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  UNIVK_LOG(kInfo) << "method '" << impl.desc->name << "' loaded in " << seconds_text(total) << ": "
                   << impl.delegates.size() << " delegate call" << (impl.delegates.size() == 1 ? "" : "s") << ", mode "
                   << execution_mode_name(impl.mode) << " (" << impl.mode_reason << ")";
}

}  // namespace

Result<std::unique_ptr<Method>> Program::load_method_or_throw(std::string_view name, const LoadOptions& options) const {
  const MethodDesc* method = nullptr;
  for (const auto& m : desc_.methods) {
    if (m.name == name) method = &m;
  }
  if (method == nullptr) {
    return not_found("no method '" + std::string(name) + "' in the program (methods: " + join(method_names()) + ")");
  }
  if (options.backends == nullptr) return invalid_argument("LoadOptions::backends is null");
  if (options.registry == nullptr) return invalid_argument("LoadOptions::registry is null");
  UNIVK_RETURN_IF_ERROR(options.check_keys());
  UNIVK_RETURN_IF_ERROR(check_cpu_kernels(*method, options.require_no_cpu_fallback));
  UNIVK_RETURN_IF_ERROR(check_host_memory(*method, options.host_memory));

  const auto load_start = std::chrono::steady_clock::now();
  auto impl = std::make_unique<Method::Impl>();
  impl->program = shared_from_this();
  impl->desc = method;

  UNIVK_ASSIGN_OR_RETURN(auto pending, collect_delegates(desc_, *method, options));
  UNIVK_ASSIGN_OR_RETURN(auto groups, plan_devices(pending, options.profile));
  for (DeviceGroup& group : groups) {
    auto lease = options.registry->acquire(group.shared, group.requirements, options.config);
    if (!lease.ok()) {
      return lease.status().with_context("device " +
                                         (group.shared.mode == vulkan::SharedMode::kDisabled
                                              ? std::string("(standalone)")
                                              : group.shared.key.to_string()) +
                                         " for " + group_members(group, pending));
    }
    group.lease = std::move(lease).value();
  }

  impl->slot_of_instruction.assign(method->instructions.size(), -1);
  for (PendingDelegate& p : pending) {
    DelegateSlot slot;
    slot.instruction = p.instruction;
    slot.delegate_index = p.delegate_index;
    slot.backend_id = p.spec.backend_id;
    slot.device_key = p.shared.key;
    slot.standalone_device = p.shared.mode == vulkan::SharedMode::kDisabled;
    Result<std::unique_ptr<backend::Delegate>> delegate = [&] {
      DelegateLoadStep step(slot);
      return p.prepared->init(groups[p.group].lease, p.options);
    }();
    p.prepared.reset();
    if (!delegate.ok()) return delegate.status().with_context(where(p.instruction, p.spec.backend_id));
    slot.delegate = std::move(delegate).value();
    impl->slot_of_instruction[p.instruction] = static_cast<int>(impl->delegates.size());
    impl->delegates.push_back(std::move(slot));
  }

  impl->last_read.assign(method->values.size(), kNeverRead);
  for (size_t k = 0; k < method->instructions.size(); ++k) {
    for (uint32_t v : instruction_inputs(method->instructions[k])) impl->last_read[v] = k;
  }
  impl->is_output.assign(method->values.size(), false);
  for (uint32_t v : method->outputs) impl->is_output[v] = true;

  std::string not_fusable = fused_blocker(*method, groups);
  if (options.mode == ExecutionMode::kFused && !not_fusable.empty()) {
    return unsupported("method '" + method->name + "' cannot run fused: " + not_fusable);
  }
  if (options.mode != ExecutionMode::kPerDelegate && not_fusable.empty()) {
    const char* io_name = std::getenv("UNIVK_FUSED_IO");
    auto io = fused_io_from_name(io_name != nullptr && *io_name != '\0' ? io_name : "auto");
    if (!io.ok()) return io.status().with_context("UNIVK_FUSED_IO");
    if (options.profile) {
      UNIVK_ASSIGN_OR_RETURN(impl->profiler, MethodProfiler::create(*method, impl->delegates));
    }
    auto fused = FusedExecutor::create(*method, impl->delegates, groups.front().lease, *io, options.host_memory,
                                       impl->profiler.get());
    if (fused.ok()) {
      impl->fused = std::move(fused).value();
      impl->mode = ExecutionMode::kFused;
      impl->mode_reason = options.mode == ExecutionMode::kFused
                              ? "requested"
                              : "auto: every delegate is on one device and no operator runs on the CPU";
      log_load(*impl, load_start);
      return std::make_unique<Method>(std::move(impl));
    }
    // In auto mode, a delegate that cannot record (Unsupported) means per_delegate instead.
    // Host memory bindings need fused mode: their error (e.g. no VK_EXT_external_memory_host) stands.
    if (options.mode == ExecutionMode::kFused || fused.status().code() != StatusCode::kUnsupported ||
        !options.host_memory.empty()) {
      return fused.status().with_context("method '" + method->name + "' (fused)");
    }
    not_fusable = "a delegate cannot be recorded into the method's command buffer: " + fused.status().to_string();
  }
  impl->mode_reason = options.mode == ExecutionMode::kPerDelegate ? std::string("requested") : "auto: " + not_fusable;
  if (!options.host_memory.empty()) {
    return unsupported("method '" + method->name + "' runs per_delegate" +
                       (not_fusable.empty() ? std::string() : " (" + not_fusable + ")") +
                       ": host memory bindings need fused mode");
  }
  impl->mode = ExecutionMode::kPerDelegate;
  // A fused attempt that failed may have left spans in the profiler's timers that no command
  // buffer writes: per_delegate starts from fresh ones.
  if (options.profile) {
    UNIVK_ASSIGN_OR_RETURN(impl->profiler, MethodProfiler::create(*method, impl->delegates));
  }
  for (size_t i = 0; i < impl->delegates.size(); ++i) {
    DelegateSlot& slot = impl->delegates[i];
    if (impl->profiler) impl->profiler->begin_delegate(i);
    {
      DelegateLoadStep step(slot);
      UNIVK_RETURN_IF_ERROR(slot.delegate->prepare_execute().with_context(slot.label()));
    }
    if (impl->profiler) impl->profiler->end_delegate(i);
  }
  impl->constants.resize(method->values.size());
  for (size_t v = 0; v < method->values.size(); ++v) {
    const ValueDesc& value = method->values[v];
    if (!value.is_constant()) continue;
    HostTensor tensor(value.info.dtype, value.info.shape);
    if (!value.constant_bytes.empty())
      std::memcpy(tensor.bytes().data(), value.constant_bytes.data(), value.constant_bytes.size());
    impl->constants[v] = std::move(tensor);
  }
  log_load(*impl, load_start);
  return std::make_unique<Method>(std::move(impl));
}

}  // namespace univk::runtime
