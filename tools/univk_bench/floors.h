// The floors a model's latency and bandwidth are compared with, measured on the device and
// queue the model ran on, in the same process run:
//   round trip  an empty command buffer through Queue::submit + Queue::wait (host time): the
//               least any submit-and-wait execution can cost;
//   copy        vkCmdCopyBuffer between two device-local buffers, timed with timestamp queries
//               (GPU time) and on the host (submit + wait). Bandwidth counts the bytes read plus
//               the bytes written (2 x size), the same way a kernel's fewest bytes are counted.
#pragma once

#include <cstdint>

#include "stats.h"
#include "univk/base/status.h"
#include "univk/vulkan/registry.h"

namespace univk::bench {

struct RepeatCounts {
  int warmup = 0;
  int iterations = 1;
};

// Nanoseconds per empty submit-and-wait.
Result<Summary> measure_round_trip(const vulkan::DeviceLease& device, RepeatCounts counts);

struct CopyFloor {
  uint64_t bytes = 0;   // size of one buffer
  Summary gpu_ns;       // from timestamps around the copy
  Summary host_ns;      // submit + wait
  double bytes_per_second() const;  // 2 * bytes / gpu_ns.p50
};

Result<CopyFloor> measure_copy(const vulkan::DeviceLease& device, uint64_t bytes, RepeatCounts counts);

}  // namespace univk::bench
