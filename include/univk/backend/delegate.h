// Delegate: one delegate call of a method, initialised on a device.
//
// Life (after Backend::prepare and PreparedPayload::init, backend.h):
//   prepare_execute()   per_delegate mode, once at load: the delegate's own IO buffers and
//                       command buffer; then
//   execute(inputs)     per_delegate mode: upload, submit, wait on its own timeline value,
//                       download; or
//   record(cmd, io)     fused mode: record its dispatches once, reading/writing device tensors
//                       planned by the method; the method submits the whole forward once;
//   ~Delegate()         waits only for this delegate's own submissions.
//
// Ownership: the Method owns its Delegates. A Delegate holds a DeviceLease and borrows the
// payload bytes of its DelegateSpec.
//
// Threading: a Delegate belongs to one Method, which serialises every call on it
// (prepare_execute, execute, record, stats), so a delegate needs no lock of its own for them.
// Delegates of different Methods may run at the same time, on one shared device too: the
// device's Queue serialises submission, and objects a delegate shares with others on its device
// (see Device::shared_objects) are immutable after creation.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include <volk.h>

#include "univk/backend/delegate_spec.h"
#include "univk/base/status.h"
#include "univk/tensor/tensor.h"
#include "univk/vulkan/registry.h"

namespace univk::vulkan {
class GpuTimer;
}

namespace univk::backend {

class Delegate {
 public:
  virtual ~Delegate();

  virtual const vulkan::DeviceLease& device() const = 0;

  // per_delegate mode: creates what execute() needs (host-visible IO buffers, the delegate's own
  // recorded command buffer). The Method calls it once at load when it runs per_delegate, so no
  // set-up happens during a call; calling it again does nothing.
  virtual Status prepare_execute() = 0;

  // per_delegate mode, after prepare_execute() (an error otherwise). The method checked the
  // inputs against DelegateSpec::inputs; a delegate checks them again with check_inputs below
  // before it touches its buffers (tests and tools drive delegates without a Method).
  virtual Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs) = 0;

  // fused mode: record this delegate's work into `cmd` (already begun), reading `inputs` and
  // writing `outputs`. Called once at load; `cmd` is resubmitted on every execute. The method
  // records the barriers between delegates; the delegate records those between its own
  // dispatches. Buffers in `inputs`/`outputs` outlive the delegate.
  virtual Status record(VkCommandBuffer cmd, std::span<const DeviceTensor> inputs,
                        std::span<const DeviceTensor> outputs) = 0;

  // Profiling (LoadOptions::profile): the Method calls this once, before prepare_execute() and
  // record(); the delegate then records its dispatches through DispatchRecorders given `timer`,
  // so each dispatch gets a timer span named by its label. `timer` is borrowed and outlives
  // every command buffer the delegate records. The default records no per-dispatch spans (the
  // Method still times the call as a whole).
  virtual void set_gpu_timer(vulkan::GpuTimer* timer);

  // Counters of the work done per execute (per_delegate) or per recorded submission (fused).
  virtual ExecuteStats stats() const = 0;

  // How the delegate runs its graphs when its backend has more than one way, decided at init
  // (VgfBackend: "native" for VK_ARM_data_graph pipelines, "lowered" for univk's compute
  // kernels); empty for a backend with one way.
  virtual std::string_view graph_path() const { return {}; }
};

// The input check of the contract, shared by the Method and every delegate's execute(): one
// tensor against the TensorInfo the program declares for it (dtype, shape, and the bytes it
// holds: a moved-from or default tensor holds none). InvalidArgument
//   "input 1: expected float32[2,3], got int32[2,3]"
//   "input 1: expected float32[] (4 bytes), got float32[] holding 0 bytes"
Status check_input(size_t index, const HostTensor& input, const TensorInfo& expected);
// The count, then check_input for each: "takes 2 inputs, got 1" or check_input's error.
// Delegates add their context ("VgfBackend execute: takes 2 inputs, got 1").
Status check_inputs(std::span<const HostTensor> inputs, std::span<const TensorInfo> expected);

}  // namespace univk::backend
