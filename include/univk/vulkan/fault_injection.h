// Fault injection at the Vulkan dispatch tables: a test mode that makes the Nth Vulkan call fail
// with a chosen VkResult, so tests can prove that every failure path of univk ends in a clear
// Status (no crash, abort or leak) and leaves the device usable.
//
// How it works: while instrumentation is on, each Device (and Instance) created replaces the
// entries of its own dispatch table (VolkDeviceTable / InstanceDispatch, and each
// DataGraphDispatch loaded: the VK_ARM_tensors / VK_ARM_data_graph entry points) for every
// function that returns a VkResult with a counting trampoline that forwards to the real function. Tables of
// devices created while instrumentation is off are never touched, so normal runs pay nothing.
// Only calls that return a VkResult are counted (the others cannot fail).
//
//   fault_injection::set_instrumentation(true);      // before creating the devices under test
//   ... create device ...
//   fault_injection::count_calls();                  // measure: how many calls does X make?
//   run X;  uint64_t calls = fault_injection::calls();
//   for (uint64_t n = 1; n <= calls; ++n) {
//     fault_injection::ScopedFault fault(n, VK_ERROR_OUT_OF_DEVICE_MEMORY);
//     run X;  // ends in success or an error Status; fault.fired() says whether call n was reached
//   }
//
// A fault is one-shot: the Nth counted call after arm() returns `result` without reaching the
// driver (its outputs stay untouched); every other call, before and after, goes through.
// Host waits (vkWaitSemaphores, vkWaitForFences, vkQueueWaitIdle, vkDeviceWaitIdle) are the
// exception: they reach the driver and complete, then report `result`. A one-shot fault leaves
// the device running, so a wait that failed without waiting would let the caller free buffers
// the GPU still uses, which a really lost device never does. (A wait failing with
// OUT_OF_*_MEMORY while work is in flight is therefore not simulated.)
// State is process-wide and atomic (calls from any thread are counted); tests that need a
// deterministic count run the operation on one thread.
//
// Limits: every instrumented table must resolve each function to the same driver/layer entry
// point (true for any number of devices of one driver and layer stack). A table that does not
// is left uninstrumented and counted by mismatched_tables().
#pragma once

#include <cstdint>
#include <string>

#include <volk.h>

namespace univk::vulkan::fault_injection {

// Whether tables created from now on get trampolines. Default off.
void set_instrumentation(bool on);
bool instrumentation();

// Counting without failing: resets the counter.
void count_calls();
// Arms a one-shot fault: the `n`th counted call from now (1-based) returns `result`. Resets the
// counter and the fired state.
void arm(uint64_t n, VkResult result);
// Stops counting and failing.
void disarm();

// Counted calls since count_calls()/arm().
uint64_t calls();
// Whether the armed fault was injected, and into which function ("vkAllocateMemory").
bool fired();
std::string fired_function();
// Process totals, for reports: faults injected since start; tables instrumented; tables left
// alone because a function resolved to a different entry point than in an earlier table.
uint64_t faults_injected();
uint64_t instrumented_tables();
uint64_t mismatched_tables();

// Arms on construction, disarms on destruction.
class ScopedFault {
 public:
  ScopedFault(uint64_t n, VkResult result) { arm(n, result); }
  ~ScopedFault() { disarm(); }
  ScopedFault(const ScopedFault&) = delete;
  ScopedFault& operator=(const ScopedFault&) = delete;
  bool fired() const { return fault_injection::fired(); }
};

}  // namespace univk::vulkan::fault_injection
