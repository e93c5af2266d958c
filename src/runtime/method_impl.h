// Method::Impl: the state of one loaded method (internal to src/runtime).
//
// Ownership: the Impl owns its delegates, (fused mode) the FusedExecutor with the method's
// buffers and command buffer, and (profiling) the MethodProfiler whose timers they record into; it holds the Program
// through a shared_ptr so payload spans stay valid. Destruction order is explicit in ~Impl: the fused command buffer is
// waited for and freed, then the delegates go (they may reference the method's buffers), then the buffers, then the
// profiler's timers.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "univk/runtime/program.h"
#include "univk/vulkan/pipeline_cache.h"

namespace univk::runtime {

class FusedExecutor;
class HostEvents;
class MethodProfiler;

// One DelegateCall instruction and the delegate initialised for it.
struct DelegateSlot {
  size_t instruction = 0;
  uint32_t delegate_index = 0;
  std::string backend_id;
  vulkan::DeviceKey device_key;
  bool standalone_device = false;
  std::unique_ptr<backend::Delegate> delegate;
  // Its share of load_method: the pipelines its init and recording looked up, and their time.
  vulkan::PipelineLoadStats pipelines;
  double load_seconds = 0;

  std::string label() const { return "instruction " + std::to_string(instruction) + " (" + backend_id + ")"; }
};

// One step of a delegate's load (init, record, prepare_execute) on this thread: while it lives,
// pipeline lookups count into the slot's `pipelines` (with progress lines naming the delegate),
// and its duration is added to `load_seconds`.
class DelegateLoadStep {
 public:
  explicit DelegateLoadStep(DelegateSlot& slot)
      : slot_(slot), scope_(slot.pipelines, slot.label()), start_(std::chrono::steady_clock::now()) {}
  ~DelegateLoadStep() {
    slot_.load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  DelegateLoadStep(const DelegateLoadStep&) = delete;
  DelegateLoadStep& operator=(const DelegateLoadStep&) = delete;

 private:
  DelegateSlot& slot_;
  vulkan::PipelineLoadScope scope_;
  std::chrono::steady_clock::time_point start_;
};

inline constexpr size_t kNeverRead = std::numeric_limits<size_t>::max();

class Method::Impl {
 public:
  Impl();
  ~Impl();

  // "input 0: expected float32[1,3,8,8], got float32[1,3,8,9]"
  Status check_inputs(std::span<const HostTensor> inputs) const;
  // `host` (null unless profiling) gets the call's host events.
  Result<std::vector<HostTensor>> execute_per_delegate(std::span<const HostTensor> inputs, HostEvents* host);
  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs);
  // per_delegate mode: allocates the view tensors on first use.
  Status ensure_host_views();
  Status run();

  std::shared_ptr<const Program> program;
  const MethodDesc* desc = nullptr;
  ExecutionMode mode = ExecutionMode::kPerDelegate;
  std::string mode_reason;  // Method::mode_reason()
  // Per value id: the constant as a host tensor (per_delegate mode); empty for other values.
  std::vector<HostTensor> constants;
  // Per value id: the last instruction reading it (kNeverRead when none), and whether it is a
  // method output. A value read for the last time and not an output can be moved, not copied.
  std::vector<size_t> last_read;
  std::vector<bool> is_output;
  // Per instruction: index into `delegates`, or -1 for a KernelCall.
  std::vector<int> slot_of_instruction;
  std::vector<DelegateSlot> delegates;
  std::unique_ptr<FusedExecutor> fused;      // fused mode only
  std::unique_ptr<MethodProfiler> profiler;  // LoadOptions::profile only
  // per_delegate mode: the tensors behind input_view/output_view (empty until the first view).
  std::vector<HostTensor> view_inputs, view_outputs;

  // Serialises execute() and the introspection that reads delegate counters: a Method may be
  // called from many threads, and its buffers, command buffers and delegates serve one call at
  // a time.
  mutable std::mutex mutex;
};

}  // namespace univk::runtime
