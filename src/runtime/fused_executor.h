// FusedExecutor: runs a whole method as one submission on one shared device (fused mode).
//
// At load: program inputs and outputs get persistently mapped buffers (DEVICE_LOCAL|HOST_VISIBLE
// where the device has it; otherwise host-visible staging buffers plus device-local buffers,
// with the copies recorded in the same command buffer); constants are uploaded once; values
// passed between delegates live in one device-local arena planned so that values with disjoint
// lifetimes share memory (vulkan::plan_arena). Every delegate's record() is called once, into
// one command buffer. A vulkan::DispatchRecorder orders the calls by the values they read and
// write: one global barrier before a call that reads a value written since the last barrier
// (read-after-write) or writes arena bytes an earlier call still pending read or wrote (reused
// memory); staged copies are ordered the same way; one host-read barrier ends the buffer.
// run() submits once and waits once on its timeline value, on whatever the mapped input buffers
// hold; execute() copies inputs into them, runs, and copies the outputs out. Program inputs and
// outputs bound to caller memory (HostMemoryBinding) are imported buffers in place of the
// method's own mapped ones; they are flushed before and invalidated after each submission when
// their memory is not HOST_COHERENT.
//
// Ownership: owns its buffers and its command pool (and so the command buffer). Borrows the
// delegates only during create() (record). The Method destroys it in two steps:
// release_commands() (waits for the last submission, frees the command buffer) before the
// delegates are destroyed, and the buffers after them.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "univk/runtime/program.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"

namespace univk::runtime {

struct DelegateSlot;
class HostEvents;
class MethodProfiler;

// Where a fused method keeps program inputs and outputs (UNIVK_FUSED_IO picks; default auto).
enum class FusedIo {
  // Inputs in mapped DEVICE_LOCAL|HOST_VISIBLE memory. Outputs there too when that memory is also
  // HOST_CACHED (integrated GPUs, lavapipe); otherwise (a discrete GPU's BAR, which the CPU reads
  // at a small fraction of its speed) in mapped HOST_CACHED host memory that the delegates write
  // directly, which needs no copy command and no extra barrier. Staging where neither exists.
  kAuto,
  kStaged,       // every input and output through a staging copy recorded in the submission
  kHostOutputs,  // outputs in host memory even where device-local memory is host-cached (tests)
};
Result<FusedIo> fused_io_from_name(std::string_view name);  // "auto", "staged", "host_outputs"

class FusedExecutor {
 public:
  // `delegates` are the method's initialised delegates in instruction order, all on `device`;
  // the method has no KernelCall. With `profiler` (borrowed, may be null) each delegate call is
  // recorded inside a GPU timer span.
  static Result<std::unique_ptr<FusedExecutor>> create(const MethodDesc& method, std::span<DelegateSlot> delegates,
                                                       vulkan::DeviceLease device, FusedIo io,
                                                       std::span<const HostMemoryBinding> host_memory,
                                                       MethodProfiler* profiler);
  ~FusedExecutor();

  // Inputs were checked by the Method, which serialises calls (one execute at a time per Method).
  // `host` (null unless profiling) gets the phases: input copy, submit, wait, output copy.
  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs, HostEvents* host);
  // Submits on what the mapped input buffers hold; outputs land in their mapped buffers.
  Status run(HostEvents* host);
  // The mapped bytes of a program input or output value and how they reach the delegates.
  void* host(uint32_t value) const { return locations_[value].host; }
  IoPath path(uint32_t value) const { return locations_[value].path; }
  // Waits for this executor's last submission (errors are logged: destroy never fails) and
  // frees the command buffer. execute() must not be called afterwards.
  void release_commands();

  uint64_t arena_bytes() const { return arena_bytes_; }
  bool uses_staging() const { return staging_; }
  bool host_outputs() const { return host_outputs_; }
  uint32_t barrier_count() const { return barriers_; }

 private:
  // Where a value lives.
  struct Location {
    vulkan::BufferRange range;    // what the delegates read/write
    void* host = nullptr;         // mapped pointer for program inputs/outputs
    vulkan::BufferRange staging;  // host-visible copy when staging
    bool staged = false;
    IoPath path = IoPath::kMapped;
  };

  FusedExecutor() = default;
  Status allocate(const MethodDesc& method, FusedIo io, std::span<const HostMemoryBinding> host_memory);
  Status record(const MethodDesc& method, std::span<DelegateSlot> delegates, MethodProfiler* profiler);

  vulkan::DeviceLease device_;
  const MethodDesc* method_ = nullptr;
  std::vector<vulkan::Buffer> buffers_;  // arena, IO buffers, staging buffers, constants
  std::vector<Location> locations_;      // per value id
  std::vector<size_t> imported_;         // indices into buffers_ of imported caller memory
  uint64_t arena_bytes_ = 0;
  bool staging_ = false;
  bool host_outputs_ = false;
  uint32_t barriers_ = 0;
  std::optional<vulkan::CommandPool> pool_;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  uint64_t last_submitted_ = 0;
  uint64_t last_completed_ = 0;
};

}  // namespace univk::runtime
