// Method: input checks, per_delegate execution and introspection.
#include <algorithm>
#include <cstring>
#include <optional>

#include "fused_executor.h"
#include "method_impl.h"
#include "method_profiler.h"
#include "univk/reference/kernels.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::runtime {

namespace {

std::string describe(const TensorInfo& info) { return std::string(dtype_name(info.dtype)) + info.shape.to_string(); }

std::string instruction_name(const MethodDesc& desc, const ProgramDesc& program, size_t index) {
  const auto& instruction = desc.instructions[index];
  if (const auto* call = std::get_if<DelegateCallDesc>(&instruction)) {
    return "instruction " + std::to_string(index) + " (" + program.delegates[call->delegate].backend_id + ")";
  }
  return "instruction " + std::to_string(index) + " (CPU kernel '" + std::get<KernelCallDesc>(instruction).op + "')";
}

}  // namespace

Method::Impl::Impl() = default;

Method::Impl::~Impl() {
  // The fused command buffer references the delegates' pipelines and the method's buffers: wait
  // for its last submission and free it first, then destroy the delegates, then the buffers.
  if (fused) fused->release_commands();
  delegates.clear();
  fused.reset();
  profiler.reset();
}

Status Method::Impl::check_inputs(std::span<const HostTensor> inputs) const {
  if (inputs.size() != desc->inputs.size()) {
    return invalid_argument("method '" + desc->name + "' takes " + std::to_string(desc->inputs.size()) +
                            " inputs, got " + std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(backend::check_input(i, inputs[i], desc->values[desc->inputs[i]].info));
  }
  return ok_status();
}

Result<std::vector<HostTensor>> Method::Impl::execute(std::span<const HostTensor> inputs) {
  UNIVK_RETURN_IF_ERROR(check_inputs(inputs));
  if (!profiler)
    return mode == ExecutionMode::kFused ? fused->execute(inputs, nullptr) : execute_per_delegate(inputs, nullptr);
  HostEvents host;
  const size_t call = host.begin(ProfileKind::kExecute, "execute");
  auto outputs = mode == ExecutionMode::kFused ? fused->execute(inputs, &host) : execute_per_delegate(inputs, &host);
  if (!outputs.ok()) return outputs;
  host.end(call);
  UNIVK_RETURN_IF_ERROR(profiler->finish(std::string(execution_mode_name(mode)), std::move(host)));
  return outputs;
}

Result<std::vector<HostTensor>> Method::Impl::execute_per_delegate(std::span<const HostTensor> inputs,
                                                                   HostEvents* host) {
  const ProgramDesc& program_desc = program->desc();
  std::vector<HostTensor> values(desc->values.size());
  std::vector<bool> present(desc->values.size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[desc->inputs[i]] = inputs[i];
    present[desc->inputs[i]] = true;
  }

  for (size_t k = 0; k < desc->instructions.size(); ++k) {
    const InstructionDesc& instruction = desc->instructions[k];
    const std::vector<uint32_t>& in_ids = instruction_inputs(instruction);
    const std::vector<uint32_t>& out_ids = instruction_outputs(instruction);

    std::vector<HostTensor> args;
    args.reserve(in_ids.size());
    for (size_t j = 0; j < in_ids.size(); ++j) {
      const uint32_t v = in_ids[j];
      if (desc->values[v].is_constant()) {
        args.push_back(constants[v]);
        continue;
      }
      // Move a value on its last read, unless it is an output or read again by this instruction.
      bool read_again = false;
      for (size_t later = j + 1; later < in_ids.size(); ++later) read_again |= in_ids[later] == v;
      if (last_read[v] == k && !is_output[v] && !read_again) {
        args.push_back(std::move(values[v]));
        present[v] = false;
      } else {
        args.push_back(values[v]);
      }
    }

    const int slot = slot_of_instruction[k];
    size_t event = 0;
    if (host != nullptr) {
      if (slot >= 0) {
        const std::string& backend_id = delegates[static_cast<size_t>(slot)].backend_id;
        event = host->begin(ProfileKind::kDelegate, backend_id, static_cast<int64_t>(k), backend_id);
        host->anchor_gpu_at(event);
      } else {
        event =
            host->begin(ProfileKind::kCpuOperator, std::get<KernelCallDesc>(instruction).op, static_cast<int64_t>(k));
      }
    }
    Result<std::vector<HostTensor>> results = [&]() -> Result<std::vector<HostTensor>> {
      if (slot >= 0) return delegates[static_cast<size_t>(slot)].delegate->execute(args);
      const auto& call = std::get<KernelCallDesc>(instruction);
      return reference::run_op(call.op, call.attributes, args);
    }();
    if (host != nullptr) host->end(event);
    if (!results.ok()) return results.status().with_context(instruction_name(*desc, program_desc, k));
    if (results->size() != out_ids.size()) {
      return internal_error(instruction_name(*desc, program_desc, k) + " returned " + std::to_string(results->size()) +
                            " outputs, the program declares " + std::to_string(out_ids.size()));
    }
    for (size_t j = 0; j < out_ids.size(); ++j) {
      const TensorInfo& expected = desc->values[out_ids[j]].info;
      HostTensor& got = (*results)[j];
      if (got.dtype() != expected.dtype || got.shape() != expected.shape) {
        return internal_error(instruction_name(*desc, program_desc, k) + " output " + std::to_string(j) + " is " +
                              got.describe() + ", the program declares " + describe(expected));
      }
      values[out_ids[j]] = std::move(got);
      present[out_ids[j]] = true;
    }
  }

  std::vector<HostTensor> outputs;
  outputs.reserve(desc->outputs.size());
  for (size_t i = 0; i < desc->outputs.size(); ++i) {
    const uint32_t v = desc->outputs[i];
    if (desc->values[v].is_constant()) {
      outputs.push_back(constants[v]);
      continue;
    }
    // The last mention of a value moves it; earlier ones (an output listed twice) copy.
    const bool listed_again = std::find(desc->outputs.begin() + static_cast<std::ptrdiff_t>(i) + 1, desc->outputs.end(),
                                        v) != desc->outputs.end();
    outputs.push_back(listed_again ? values[v] : std::move(values[v]));
  }
  return outputs;
}

Status Method::Impl::ensure_host_views() {
  if (!view_inputs.empty() || !view_outputs.empty()) return ok_status();
  std::vector<HostTensor> in, out;
  for (uint32_t v : desc->inputs) {
    UNIVK_ASSIGN_OR_RETURN(auto t, HostTensor::allocate(desc->values[v].info.dtype, desc->values[v].info.shape));
    in.push_back(std::move(t));
  }
  for (uint32_t v : desc->outputs) {
    UNIVK_ASSIGN_OR_RETURN(auto t, HostTensor::allocate(desc->values[v].info.dtype, desc->values[v].info.shape));
    out.push_back(std::move(t));
  }
  view_inputs = std::move(in);
  view_outputs = std::move(out);
  return ok_status();
}

Status Method::Impl::run() {
  std::optional<HostEvents> host;
  size_t call = 0;
  if (profiler) {
    host.emplace();
    call = host->begin(ProfileKind::kExecute, "run");
  }
  HostEvents* events = host ? &*host : nullptr;
  if (mode == ExecutionMode::kFused) {
    UNIVK_RETURN_IF_ERROR(fused->run(events));
  } else {
    UNIVK_RETURN_IF_ERROR(ensure_host_views());
    UNIVK_ASSIGN_OR_RETURN(auto outputs, execute_per_delegate(view_inputs, events));
    // Copied into the views' own storage: the views' pointers must not move.
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::memcpy(view_outputs[i].bytes().data(), outputs[i].bytes().data(), view_outputs[i].byte_size());
    }
  }
  if (!host) return ok_status();
  host->end(call);
  return profiler->finish(std::string(execution_mode_name(mode)), std::move(*host));
}

std::string_view io_path_name(IoPath path) {
  switch (path) {
    case IoPath::kMapped:
      return "mapped";
    case IoPath::kImported:
      return "imported";
    case IoPath::kStaged:
      return "staged";
    case IoPath::kHost:
      return "host";
  }
  return "unknown";
}

bool IoInfo::zero_copy() const {
  auto direct = [](IoPath p) { return p == IoPath::kMapped || p == IoPath::kImported; };
  return std::all_of(inputs.begin(), inputs.end(), direct) && std::all_of(outputs.begin(), outputs.end(), direct);
}

Method::Method(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Method::~Method() = default;

const std::string& Method::name() const { return impl_->desc->name; }
ExecutionMode Method::mode() const { return impl_->mode; }
const std::string& Method::mode_reason() const { return impl_->mode_reason; }

std::vector<TensorInfo> Method::input_infos() const {
  std::vector<TensorInfo> infos;
  for (uint32_t v : impl_->desc->inputs) infos.push_back(impl_->desc->values[v].info);
  return infos;
}

std::vector<TensorInfo> Method::output_infos() const {
  std::vector<TensorInfo> infos;
  for (uint32_t v : impl_->desc->outputs) infos.push_back(impl_->desc->values[v].info);
  return infos;
}

std::vector<std::optional<QuantizationDesc>> Method::input_quantization() const {
  std::vector<std::optional<QuantizationDesc>> out;
  for (uint32_t v : impl_->desc->inputs) out.push_back(impl_->desc->values[v].quantization);
  return out;
}

std::vector<std::optional<QuantizationDesc>> Method::output_quantization() const {
  std::vector<std::optional<QuantizationDesc>> out;
  for (uint32_t v : impl_->desc->outputs) out.push_back(impl_->desc->values[v].quantization);
  return out;
}

Result<std::vector<HostTensor>> Method::execute(std::span<const HostTensor> inputs) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return catch_out_of_memory([&] { return impl_->execute(inputs); });
}

Result<InputView> Method::input_view(size_t index) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const MethodDesc& desc = *impl_->desc;
  if (index >= desc.inputs.size()) {
    return invalid_argument("method '" + desc.name + "' has " + std::to_string(desc.inputs.size()) + " inputs, input " +
                            std::to_string(index) + " asked for");
  }
  const TensorInfo& info = desc.values[desc.inputs[index]].info;
  if (impl_->fused) {
    return InputView{info, {static_cast<uint8_t*>(impl_->fused->host(desc.inputs[index])), info.byte_size()}};
  }
  UNIVK_RETURN_IF_ERROR(impl_->ensure_host_views());
  return InputView{info, impl_->view_inputs[index].bytes()};
}

Result<OutputView> Method::output_view(size_t index) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const MethodDesc& desc = *impl_->desc;
  if (index >= desc.outputs.size()) {
    return invalid_argument("method '" + desc.name + "' has " + std::to_string(desc.outputs.size()) +
                            " outputs, output " + std::to_string(index) + " asked for");
  }
  const TensorInfo& info = desc.values[desc.outputs[index]].info;
  if (impl_->fused) {
    return OutputView{info, {static_cast<const uint8_t*>(impl_->fused->host(desc.outputs[index])), info.byte_size()}};
  }
  UNIVK_RETURN_IF_ERROR(impl_->ensure_host_views());
  // An output that is also an input shows the input's bytes, as in fused mode.
  const auto input = std::find(desc.inputs.begin(), desc.inputs.end(), desc.outputs[index]);
  if (input != desc.inputs.end()) {
    return OutputView{info, impl_->view_inputs[static_cast<size_t>(input - desc.inputs.begin())].bytes()};
  }
  return OutputView{info, impl_->view_outputs[index].bytes()};
}

Status Method::run() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return catch_out_of_memory([&] { return impl_->run(); });
}

IoInfo Method::io_info() const {
  IoInfo info;
  const MethodDesc& desc = *impl_->desc;
  auto path = [&](uint32_t v) { return impl_->fused ? impl_->fused->path(v) : IoPath::kHost; };
  for (uint32_t v : desc.inputs) info.inputs.push_back(path(v));
  for (uint32_t v : desc.outputs) info.outputs.push_back(path(v));
  return info;
}

Result<Profile> Method::profile() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!impl_->profiler) {
    return invalid_argument("method '" + impl_->desc->name + "' was loaded without LoadOptions::profile");
  }
  return impl_->profiler->last();
}

std::string DelegateCallInfo::device_name() const {
  return standalone_device ? std::string(kPrivateDeviceName) : device_key.to_string();
}

std::vector<DelegateCallInfo> Method::delegate_calls() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<DelegateCallInfo> infos;
  for (const DelegateSlot& slot : impl_->delegates) {
    DelegateCallInfo info;
    info.instruction = slot.instruction;
    info.delegate = slot.delegate_index;
    info.backend_id = slot.backend_id;
    info.device_key = slot.device_key;
    info.standalone_device = slot.standalone_device;
    const vulkan::DeviceLease& device = slot.delegate->device();
    if (device) {
      info.device = device->handle();
      info.queue = device->queue().handle();
    }
    info.stats = slot.delegate->stats();
    info.load_ms = slot.load_seconds * 1000.0;
    info.pipelines_compiled = slot.pipelines.created;
    info.pipelines_reused = slot.pipelines.looked_up - slot.pipelines.created;
    info.graph_path = slot.delegate->graph_path();
    infos.push_back(std::move(info));
  }
  return infos;
}

std::vector<InstructionInfo> Method::instructions() const {
  std::vector<InstructionInfo> infos;
  const ProgramDesc& program_desc = impl_->program->desc();
  for (const InstructionDesc& instruction : impl_->desc->instructions) {
    InstructionInfo info;
    if (const auto* call = std::get_if<DelegateCallDesc>(&instruction)) {
      info.name = program_desc.delegates[call->delegate].backend_id;
    } else {
      info.on_cpu = true;
      info.name = std::get<KernelCallDesc>(instruction).op;
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

FusedInfo Method::fused_info() const {
  FusedInfo info;
  if (impl_->fused) {
    info.arena_bytes = impl_->fused->arena_bytes();
    info.barriers = impl_->fused->barrier_count();
    info.staged_io = impl_->fused->uses_staging();
    info.host_outputs = impl_->fused->host_outputs();
  }
  return info;
}

}  // namespace univk::runtime
