// GPU time of a method's work, per delegate, from timestamp queries.
//
// A Method does not expose the command buffer it submits, so this measures a replay: it
// initialises the method's delegates a second time on the same device, through the public
// Backend interface and the same DelegateSpecs the Method builds, gives every value of the
// method its own device-local buffer (inputs and constants uploaded once), and records each
// delegate's work with Delegate::record -- the call fused mode makes -- into one command
// buffer of its own:
//     reset, full barrier, timestamp 0, delegate 0, timestamp 1, full barrier, delegate 1, ...
// The GPU time of delegate k is timestamp k+1 - timestamp k; the total is the last stamp.
// It differs from the method's own fused command buffer in two ways: full barriers instead of
// the method's exact buffer barriers, and IO in device-local buffers instead of mapped ones.
//
// Ownership: everything (delegates, buffers, pool) lives inside profile_gpu and is destroyed
// after its last submission completed.
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
  runtime::ExecuteStats stats;  // the replayed delegate's counters (dispatches, barriers)
  uint64_t min_bytes = 0;       // bytes of its input and output tensors: the fewest it must move
  Summary gpu_ns;
};

struct GpuProfile {
  Summary total_ns;
  std::vector<DelegateProfile> delegates;
};

// Unsupported when the method has a CPU kernel or a delegate cannot record.
Result<GpuProfile> profile_gpu(const runtime::ProgramDesc& program, const runtime::MethodDesc& method,
                               const vulkan::DeviceLease& device, const runtime::LoadOptions& options,
                               std::span<const HostTensor> inputs, RepeatCounts counts);

// Bytes of a tensor (what a kernel that reads or writes it once must move).
uint64_t tensor_bytes(const runtime::TensorInfo& info);

}  // namespace univk::bench
