// What one univk-bench run measured, and how it is printed (text for people, one JSON object
// for scripts such as bench/compare_pytorch.py).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floors.h"
#include "gpu_profile.h"
#include "json_output.h"
#include "stats.h"
#include "univk/runtime/program.h"

namespace univk::bench {

struct DeviceDescription {
  std::string name;
  std::string key;  // DeviceRegistry key, "default/0"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_version = 0;
  uint32_t api_version = 0;
  double timestamp_period_ns = 0;
};

struct BenchResult {
  std::string program;
  std::string method;
  std::string mode_requested;
  std::string mode;  // the mode the method resolved to
  DeviceDescription device;
  int warmup = 0;
  int iterations = 0;
  uint64_t seed = 0;
  std::vector<runtime::TensorInfo> inputs, outputs;
  // Program inputs + outputs + constants: the fewest bytes one forward must move.
  uint64_t min_bytes = 0;
  Summary latency_ns;  // Method::execute, host-in to host-out
  // Method::run on inputs already in the input views, outputs left in the output views
  // (zero-copy IO when io.zero_copy(); io says per input and output).
  Summary zero_copy_latency_ns;
  runtime::IoInfo io;
  std::vector<runtime::DelegateCallInfo> calls;
  runtime::FusedInfo fused;
  Summary round_trip_ns;
  CopyFloor copy;
  std::vector<DispatchFloor> dispatch_floors;  // 0, 1 and 3 dispatches
  std::optional<GpuProfile> gpu;               // absent when not measured; gpu_error says why
  std::string gpu_error;
};

// Achieved bandwidth (bytes / GPU time) as a fraction of the copy floor's bandwidth; 0 when
// either is unknown.
double fraction_of_copy(uint64_t bytes, double gpu_ns, const CopyFloor& copy);

std::string format_text(const BenchResult& result);
tools::Json format_json(const BenchResult& result);

}  // namespace univk::bench
