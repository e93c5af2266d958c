// MethodProfiler: the state behind LoadOptions::profile (internal to src/runtime).
//
// At load it creates one vulkan::GpuTimer per device the method's delegates use and hands it to
// each delegate (Delegate::set_gpu_timer) before they record; the fused executor opens one span
// per delegate call around Delegate::record. On each execute()/run() the Method times its host
// phases with a HostEvents (one per call) and finish() turns those and the GPU spans into the
// Profile that Method::profile() returns (profile.h describes the events).
//
// Ownership: owns the timers and the last Profile; borrows the delegates only in create() and
// attach(). It must outlive every command buffer holding its timers' spans: the Method destroys
// it after its delegates and its fused executor.
// Threading: none of its own; the Method serialises calls.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "univk/backend/delegate.h"
#include "univk/runtime/profile.h"
#include "univk/runtime/program_desc.h"
#include "univk/vulkan/gpu_timer.h"

namespace univk::runtime {

struct DelegateSlot;

// Host events of one call, timed on steady_clock from the call's start.
class HostEvents {
 public:
  using Clock = std::chrono::steady_clock;
  HostEvents() : start_(Clock::now()) {}
  // Opens an event nested in the innermost open one; returns its index.
  size_t begin(ProfileKind kind, std::string name, int64_t instruction = -1, std::string backend = {});
  void end(size_t event);
  // The start of `event` is where the first GPU timestamp goes when the device cannot calibrate
  // (the first call counts).
  void anchor_gpu_at(size_t event);
  Clock::time_point start() const { return start_; }

  std::vector<ProfileEvent> events;
  std::optional<int64_t> gpu_anchor_ns;

 private:
  int64_t now_ns() const;
  Clock::time_point start_;
  std::vector<size_t> open_;
};

class MethodProfiler {
 public:
  // One timer per device of `delegates`; Unsupported when a device has no timestamps.
  static Result<std::unique_ptr<MethodProfiler>> create(const MethodDesc& method, std::span<DelegateSlot> delegates);
  // Hands each delegate its device's timer and notes which spans each one records from now on
  // (call around each delegate's prepare_execute() / record(): begin_delegate, then end_delegate).
  void begin_delegate(size_t slot);
  void end_delegate(size_t slot);
  // The fused executor's span around delegate call `slot` (set while recording it).
  void set_call_span(size_t slot, uint32_t span) { slots_[slot].call_span = static_cast<int32_t>(span); }
  vulkan::GpuTimer* timer(size_t slot) const { return slots_[slot].timer; }

  // Builds the call's Profile from `host` and the GPU spans (all submissions have completed).
  Status finish(std::string mode, HostEvents host);
  // The last finished Profile; FailedPrecondition before the first call.
  Result<Profile> last() const;

 private:
  struct Slot {
    backend::Delegate* delegate = nullptr;
    std::string backend_id;
    size_t instruction = 0;
    vulkan::GpuTimer* timer = nullptr;
    uint32_t first_span = 0, end_span = 0;  // spans recorded by the delegate itself
    int32_t call_span = -1;                 // fused: the method's span around the call
  };
  MethodProfiler() = default;

  const MethodDesc* method_ = nullptr;
  std::vector<std::unique_ptr<vulkan::GpuTimer>> timers_;
  std::vector<Slot> slots_;
  std::optional<Profile> last_;
};

}  // namespace univk::runtime
