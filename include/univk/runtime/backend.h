// The backend interface: how the method runtime talks to a delegate backend.
//
// Life of a delegate (DESIGN.md, "Program, runtime and execution"):
//   1. requirements(spec)  before any device exists; the method merges the requirements of all
//                          its delegates per device key, so load order never matters;
//   2. init(spec, lease)   on the resolved device: buffers, pipelines, constants, command buffers;
//   3. prepare_execute()   per_delegate mode, once at load: the delegate's own IO buffers and
//                          command buffer; then
//      execute(inputs)     per_delegate mode: upload, submit, wait on its own timeline value,
//                          download; or
//      record(cmd, io)     fused mode: record its dispatches once, reading/writing device tensors
//                          planned by the method; the method submits the whole forward once;
//   4. ~Delegate()         destroy: waits only for this delegate's own submissions.
//
// Ownership: the Method owns its Delegates. A Delegate holds a DeviceLease. The payload span
// borrows the program's bytes, which the Method keeps alive for the delegate's whole life.
//
// Threading: a Backend is a stateless factory; requirements() and init() may run on many
// threads at once. A Delegate belongs to one Method, which serialises every call on it
// (prepare_execute, execute, record, stats), so a delegate needs no lock of its own for them.
// Delegates of different Methods may run at the same time, on one shared device too: the
// device's Queue serialises submission, and objects a delegate shares with others on its device
// (see Device::shared_objects) are immutable after creation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/tensor.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/device_requirements.h"
#include "univk/vulkan/registry.h"

namespace univk::runtime {

// Runtime options of one backend, given at load time (e.g. vulkan_shared_context_mode).
using BackendOptions = std::map<std::string, std::string>;

struct TensorInfo {
  DType dtype = DType::kFloat32;
  Shape shape;
  size_t byte_size() const { return static_cast<size_t>(shape.numel()) * dtype_size(dtype); }
};

// Everything the program says about one delegate call.
struct DelegateSpec {
  std::string backend_id;
  std::span<const uint8_t> payload;  // borrowed, 16-byte aligned, valid for the delegate's life
  std::map<std::string, std::vector<uint8_t>> compile_specs;
  std::vector<TensorInfo> inputs;   // in the order of the DelegateCall's input values
  std::vector<TensorInfo> outputs;
};

// A tensor living in a device buffer (fused mode: zero-copy handoff between delegates).
struct DeviceTensor {
  vulkan::BufferRange range;
  TensorInfo info;
};

// Counters of the last execute() (or of one submission of the recorded work, in fused mode).
struct ExecuteStats {
  uint32_t dispatches = 0;
  uint32_t barriers = 0;
  uint32_t submissions = 0;
  uint64_t bytes_uploaded = 0;
  uint64_t bytes_downloaded = 0;
};

class Delegate {
 public:
  virtual ~Delegate() = default;

  virtual const vulkan::DeviceLease& device() const = 0;

  // per_delegate mode: creates what execute() needs (host-visible IO buffers, the delegate's own
  // recorded command buffer). The Method calls it once at load when it runs per_delegate, so no
  // set-up happens during a call; calling it again does nothing.
  virtual Status prepare_execute() = 0;

  // per_delegate mode, after prepare_execute() (an error otherwise). Inputs were checked by the
  // method against DelegateSpec::inputs.
  virtual Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs) = 0;

  // fused mode: record this delegate's work into `cmd` (already begun), reading `inputs` and
  // writing `outputs`. Called once at load; `cmd` is resubmitted on every execute. The method
  // records the barriers between delegates; the delegate records those between its own
  // dispatches. Buffers in `inputs`/`outputs` outlive the delegate.
  virtual Status record(VkCommandBuffer cmd, std::span<const DeviceTensor> inputs,
                        std::span<const DeviceTensor> outputs) = 0;

  // Counters of the work done per execute (per_delegate) or per recorded submission (fused).
  virtual ExecuteStats stats() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view id() const = 0;  // "VgfBackend", "VulkanBackend"
  // What the payload needs from a device. Pure: creates no Vulkan object.
  virtual Result<vulkan::DeviceRequirements> requirements(const DelegateSpec& spec) const = 0;
  virtual Result<std::unique_ptr<Delegate>> init(const DelegateSpec& spec, vulkan::DeviceLease device,
                                                 const BackendOptions& options) const = 0;
  // The runtime option keys init() reads. The method reads the shared-device keys
  // (vulkan::SharedDeviceOptions::kOptionKeys) for every backend, so they are not listed here.
  // Program::load_method refuses any key that neither lists (LoadOptions::check_keys).
  virtual std::vector<std::string_view> option_keys() const { return {}; }
};

// Backends by id. Backends are stateless factories, so one registry may serve many programs
// from many threads; registration happens before use.
class BackendRegistry {
 public:
  Status add(std::unique_ptr<Backend> backend);  // AlreadyExists for a duplicate id
  const Backend* find(std::string_view id) const;
  std::vector<std::string> ids() const;

 private:
  std::vector<std::unique_ptr<Backend>> backends_;
};

}  // namespace univk::runtime
