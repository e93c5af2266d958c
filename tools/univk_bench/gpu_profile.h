// GPU time of a method's work, per delegate call, from the runtime's own profiling
// (LoadOptions::profile, docs/RUNTIME.md "Profiling"): a second Method of the program, loaded
// with profiling on the same device and options, runs the same inputs; each execute's profile
// gives the GPU time of every delegate call from the timestamps the runtime writes into the
// method's real command buffers (fused: around each delegate's recorded work; per_delegate:
// from the delegate's first dispatch to its last). The total is, fused, from the first call's
// start to the last call's end (barriers between calls included); per_delegate, the sum of the
// calls (the host work between them is not GPU time). The timed latency comes from a Method
// without profiling, so these timestamps cost it nothing.
//
// Ownership: the profiled Method lives inside profile_gpu only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "floors.h"
#include "stats.h"
#include "univk/runtime/program.h"

namespace univk::bench {

struct DelegateProfile {
  size_t instruction = 0;
  std::string backend_id;
  runtime::ExecuteStats stats;  // the profiled delegate's counters (dispatches, barriers)
  uint64_t min_bytes = 0;       // bytes of its input and output tensors: the fewest it must move
  Summary gpu_ns;
};

struct GpuProfile {
  Summary total_ns;
  std::vector<DelegateProfile> delegates;
};

// Unsupported when the method runs no delegate on the GPU, or its device has no timestamps.
Result<GpuProfile> profile_gpu(const runtime::Program& program, const std::string& method,
                               const runtime::LoadOptions& options, std::span<const HostTensor> inputs,
                               RepeatCounts counts);

// Bytes of a tensor (what a kernel that reads or writes it once must move).
uint64_t tensor_bytes(const runtime::TensorInfo& info);

}  // namespace univk::bench
