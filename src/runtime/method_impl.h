// Method::Impl: the state of one loaded method (internal to src/runtime).
//
// Ownership: the Impl owns its delegates, (fused mode) the FusedExecutor with the method's
// buffers and command buffer, and (profiling) the MethodProfiler whose timers they record into; it holds the Program
// through a shared_ptr so payload spans stay valid. Destruction order is explicit in ~Impl: the fused command buffer is
// waited for and freed, then the delegates go (they may reference the method's buffers), then the buffers, then the
// profiler's timers.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "univk/runtime/program.h"

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
