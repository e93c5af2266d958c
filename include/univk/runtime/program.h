// Program and Method: load a .uvk program file and run its methods.
//
//   UNIVK_ASSIGN_OR_RETURN(auto program, univk::runtime::Program::load("model.uvk"));
//   univk::runtime::LoadOptions options;
//   options.all_backends["vulkan_shared_context_mode"] = "lookup_or_create";
//   UNIVK_ASSIGN_OR_RETURN(auto method, program->load_method("forward", options));
//   UNIVK_ASSIGN_OR_RETURN(auto outputs, method->execute(inputs));
//
// load_method asks every delegate of the method for its device requirements first, merges them
// per device key, acquires one device lease per key, and only then initialises the delegates,
// so the order of delegates never matters. A method runs in one of two modes:
//   per_delegate  each delegate uploads, submits, waits and returns host tensors;
//   fused         values between delegates stay in device buffers planned by the method, each
//                 delegate records its work once at load, and execute submits once and waits
//                 once; program inputs/outputs go through persistently mapped buffers.
// CPU kernels (KernelCall) run on univk::reference (the CPU fallback).
//
// Ownership: a Program owns the file's bytes (an mmap or a vector) and its ProgramDesc; it is
// shared (std::shared_ptr) and immutable, so load_method may be called from several threads.
// A Method owns its delegates, buffers and command buffers and keeps its Program alive, so
// Programs and Methods may be destroyed in any order. Devices are leased from the
// DeviceRegistry and live while any delegate (or application pin) holds them.
// Threading: Program is immutable; load_method may be called from many threads. A Method may be
// called from many threads at once: execute() calls on one Method are serialised by the Method
// (each call runs alone on its buffers and command buffer, so every caller gets its own correct
// outputs); callers need no lock. Everything a Method needs is prepared by load_method, so no
// call does first-use set-up. Different Methods run concurrently, even on one shared device.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <volk.h>

#include "univk/base/file_map.h"
#include "univk/base/status.h"
#include "univk/runtime/backend_registry.h"
#include "univk/runtime/builtin_backends.h"
#include "univk/runtime/profile.h"
#include "univk/runtime/program_desc.h"
#include "univk/tensor/tensor.h"
#include "univk/vulkan/registry.h"
#include "univk/vulkan/runtime_config.h"

namespace univk::runtime {

enum class ExecutionMode {
  kAuto,  // fused when every delegate shares one device and there is no CPU kernel
  kPerDelegate,
  kFused,  // Unsupported at load when the method cannot run fused (the error says why)
};
std::string_view execution_mode_name(ExecutionMode mode);  // "auto", "per_delegate", "fused"
Result<ExecutionMode> execution_mode_from_name(std::string_view name);

// Caller memory that a fused method uses as one program input's or output's buffer, imported
// with VK_EXT_external_memory_host (docs/USER_GUIDE.md, "Zero-copy IO"). `data` must be aligned
// to the device's minImportedHostPointerAlignment and `bytes` a multiple of it, at least the
// tensor's size. The caller keeps the memory allocated and does not free or unmap it until the
// Method is destroyed.
struct HostMemoryBinding {
  bool output = false;  // output `index` instead of input `index`
  size_t index = 0;
  void* data = nullptr;
  size_t bytes = 0;
};

struct LoadOptions {
  // Runtime options per backend id (e.g. "VulkanBackend" -> {vulkan_shared_context_mode:
  // disabled}). They override `all_backends` key by key.
  std::map<std::string, BackendOptions> backend_options;
  // Runtime options given to every backend.
  BackendOptions all_backends;
  ExecutionMode mode = ExecutionMode::kAuto;
  // Makes every KernelCall (CPU operator) a load error naming the operator.
  bool require_no_cpu_fallback = false;
  // Instance and device selection for devices this load creates.
  vulkan::RuntimeConfig config = vulkan::RuntimeConfig::from_environment();
  // Borrowed; must outlive the load_method call (leases it hands out stay valid after).
  vulkan::DeviceRegistry* registry = &vulkan::DeviceRegistry::process_default();
  // Borrowed; must outlive the load_method call.
  const BackendRegistry* backends = &builtin_backends();
  // Caller memory imported as program input/output buffers (fused mode only; Unsupported in
  // per_delegate mode or without VK_EXT_external_memory_host, InvalidArgument for a bad index,
  // alignment or size, each naming the input or output). The memory must outlive the Method.
  std::vector<HostMemoryBinding> host_memory;
  // Profiling (profile.h, docs/RUNTIME.md "Profiling"): records GPU timestamps around every
  // delegate call and dispatch into the method's command buffers (once, at load) and times the
  // host phases of every execute()/run(); Method::profile() returns the last call's. Unsupported
  // at load, naming the device, when a device's queue has no timestamps. Off, nothing is
  // recorded or timed.
  bool profile = false;

  // The options one backend gets: all_backends overridden by backend_options[backend_id].
  BackendOptions options_for(const std::string& backend_id) const;
  // Every key must be one a backend reads, so a misspelt option is an error instead of being
  // ignored: a key of backend_options[id] one that backend `id` lists (Backend::option_keys) or
  // a shared-device key; a key of all_backends one that some registered backend lists or a
  // shared-device key. InvalidArgument naming the key and the known keys; NotFound for
  // backend_options of a backend id that `backends` does not hold. load_method checks this first.
  Status check_keys() const;
};

// How reports show a delegate's device when it is private (standalone_device).
inline constexpr std::string_view kPrivateDeviceName = "private";

// What the Method did for one DelegateCall instruction (for tools and tests).
struct DelegateCallInfo {
  size_t instruction = 0;  // index in the method's instruction list
  uint32_t delegate = 0;   // index into ProgramDesc::delegates
  std::string backend_id;
  // The shared device's registry key. A private device has none: this then holds the options'
  // key, which names no registry entry (see device_name()).
  vulkan::DeviceKey device_key;
  bool standalone_device = false;  // vulkan_shared_context_mode=disabled: a private device
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  ExecuteStats stats;  // the delegate's counters (last execute, or per submission when fused)
  // Delegate::graph_path(): VgfBackend "native" | "lowered"; empty for other backends.
  std::string graph_path;
  // What load_method spent on this delegate call: its init and recording (or per_delegate
  // set-up), and the pipelines they created (compiled) or found in the device's cache.
  double load_ms = 0;
  uint32_t pipelines_compiled = 0;
  uint32_t pipelines_reused = 0;

  // The device as reports show it: kPrivateDeviceName for a private device, else the key
  // ("default/0").
  std::string device_name() const;
};

struct InstructionInfo {
  bool on_cpu = false;  // a KernelCall run by univk::reference
  std::string name;     // the operator (KernelCall) or the backend id (DelegateCall)
};

// How a fused method laid out its memory and work (all zero in per_delegate mode).
struct FusedInfo {
  uint64_t arena_bytes = 0;   // device memory for values passed between delegates
  uint32_t barriers = 0;      // buffer barriers the method recorded between/after delegates
  bool staged_io = false;     // inputs/outputs go through staging copies (no DEVICE_LOCAL|HOST_VISIBLE)
  bool host_outputs = false;  // outputs live in host-cached memory the delegates write directly
};

// Where the bytes of one program input or output live, as seen through Method's views.
enum class IoPath {
  kMapped,    // the method's persistently mapped buffer that the delegates read or write: no copy
  kImported,  // caller memory given in LoadOptions::host_memory, imported: no copy
  kStaged,    // a mapped staging buffer; the submission copies it to or from device-local memory
  kHost,      // per_delegate mode: a host tensor the method owns; each delegate uploads and
              // downloads its own IO, so run() copies like execute()
};
std::string_view io_path_name(IoPath path);  // "mapped", "imported", "staged", "host"

struct IoInfo {
  std::vector<IoPath> inputs, outputs;
  // True when every input and output is kMapped or kImported: run() then moves no program IO
  // byte on the host or the GPU beyond what the delegates' own kernels read and write.
  bool zero_copy() const;
};

// A view of one program input (writable) or output (read-only) in memory the Method owns or
// imported; it owns nothing. See Method::input_view for how long it stays valid.
struct InputView {
  TensorInfo info;
  std::span<uint8_t> bytes;  // exactly info.byte_size() bytes
  template <typename T>
  std::span<T> data() const {
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
};
struct OutputView {
  TensorInfo info;
  std::span<const uint8_t> bytes;  // exactly info.byte_size() bytes
  template <typename T>
  std::span<const T> data() const {
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
};

class Method {
 public:
  class Impl;
  explicit Method(std::unique_ptr<Impl> impl);
  ~Method();  // waits for this method's own pending submission, then destroys its delegates
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;

  const std::string& name() const;
  ExecutionMode mode() const;  // the resolved mode: kPerDelegate or kFused
  // Why mode() is what it is: "requested" when LoadOptions::mode named it, else "auto: " and
  // the reason, e.g. "auto: instruction 1 runs operator 'relu' on the CPU" or "auto: every
  // delegate is on one device and no operator runs on the CPU".
  const std::string& mode_reason() const;
  std::vector<TensorInfo> input_infos() const;
  std::vector<TensorInfo> output_infos() const;
  // Per input/output, its quantization when the program records one (int8 inputs and outputs
  // of a quantized model exported with quantized IO), else nullopt.
  std::vector<std::optional<QuantizationDesc>> input_quantization() const;
  std::vector<std::optional<QuantizationDesc>> output_quantization() const;

  // Checks count, dtype and shape of `inputs` ("input 0: expected float32[1,3,8,8], got
  // float32[1,3,8,9]"), runs every instruction and returns the method's outputs (new tensors
  // owned by the caller). Host memory running out is OutOfMemory naming the size; GPU work that
  // makes no progress for RuntimeConfig::execute_timeout_ms is Timeout, and the device is then
  // unusable.
  // In fused mode this passes through the same mapped memory that input_view/output_view show:
  // afterwards the input views hold `inputs` and the output views the outputs. In per_delegate
  // mode it leaves the views alone.
  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs);

  // Zero-copy IO (docs/USER_GUIDE.md, "Zero-copy IO"): write inputs into input_view(i), call
  // run(), read outputs from output_view(i). io_info() says per input and output whether this
  // copies anything (IoPath); only kMapped and kImported are zero-copy.
  //
  // Lifetime: a view's pointer stays valid until the Method is destroyed (the memory never
  // moves). An output view's contents are those of the last completed run()/execute() and are
  // overwritten by the next one; before the first they are unspecified. An output that is also
  // a program input shows the input's bytes.
  // Coherency: the method's mapped memory is HOST_COHERENT; imported memory that is not is
  // flushed before each submission and invalidated after it by run()/execute().
  // Threading: the views are plain memory the Method does not lock. The caller must not write an
  // input view or read an output view while a run() or execute() of this Method is in progress
  // on any thread; between calls, any thread may use them.
  // InvalidArgument naming the index and the count for an index past the inputs or outputs.
  // per_delegate mode: the views are host tensors the Method allocates on the first view call.
  Result<InputView> input_view(size_t index);
  Result<OutputView> output_view(size_t index);
  // Runs the method on the bytes in the input views; outputs go to the output views. Errors as
  // execute() (Timeout, DeviceLost, OutOfMemory), never a check of the inputs' bytes.
  Status run();
  IoInfo io_info() const;

  // The last execute()'s or run()'s Profile (a copy the caller owns). InvalidArgument when the
  // method was loaded without LoadOptions::profile, NotFound before its first call. Serialised
  // with execute() like every call: it never sees a call half done.
  Result<Profile> profile() const;

  std::vector<DelegateCallInfo> delegate_calls() const;
  std::vector<InstructionInfo> instructions() const;
  FusedInfo fused_info() const;

 private:
  std::unique_ptr<Impl> impl_;
};

class Program : public std::enable_shared_from_this<Program> {
 public:
  // Maps the file read-only; payloads are handed to backends straight from the mapping.
  static Result<std::shared_ptr<Program>> load(const std::string& path);
  // Takes the bytes (copied once into aligned storage if they are not 16-byte aligned).
  static Result<std::shared_ptr<Program>> load_bytes(std::vector<uint8_t> bytes);

  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  std::vector<std::string> method_names() const;
  const ProgramDesc& desc() const { return desc_; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  // NotFound naming the method (and listing those that exist) when absent; InvalidArgument for
  // an unknown runtime option key (LoadOptions::check_keys); errors of backend lookup, option
  // parsing, device acquisition and delegate init carry the instruction index and backend id.
  Result<std::unique_ptr<Method>> load_method(std::string_view name, const LoadOptions& options = {}) const;

 private:
  struct AlignedFree {
    void operator()(uint8_t* p) const;
  };
  Program() = default;
  // load_method's body; a host allocation failure inside throws std::bad_alloc, which
  // load_method turns into OutOfMemory.
  Result<std::unique_ptr<Method>> load_method_or_throw(std::string_view name, const LoadOptions& options) const;
  MappedFile mapped_;
  std::vector<uint8_t> vector_bytes_;
  std::unique_ptr<uint8_t, AlignedFree> aligned_copy_;
  std::span<const uint8_t> bytes_;
  ProgramDesc desc_;
};

}  // namespace univk::runtime
