// GpuTimer: named GPU time spans recorded as timestamp queries into command buffers, read back
// in nanoseconds and, where the device can, placed on the host's clock.
//
// Recording: begin(cmd, name) writes a timestamp once the commands before it have started
// (TOP_OF_PIPE), end(cmd, span) once every command before it has finished (ALL_COMMANDS, or
// BOTTOM_OF_PIPE without synchronization2). A span begun while another is open nests inside it
// (Span::parent). Each query is reset by a vkCmdResetQueryPool recorded just before its write, so
// a command buffer that holds spans can be resubmitted as it is; query pools are added in chunks
// as spans are recorded. A DispatchRecorder given a timer records one span per dispatch.
//
// Reading: after every submission holding the spans has completed, read() returns each span's
// begin and end in nanoseconds (ticks * timestampPeriod; differences masked to
// timestampValidBits, so they survive one wrap of the counter) and, where the device can
// calibrate, where the first span began on std::chrono::steady_clock (CLOCK_MONOTONIC on Linux).
//
// Ownership: owns its query pools and holds a DeviceLease, so the device outlives it. The owner
// keeps it alive while any command buffer holding its spans may run.
// Threading: not thread-safe; one owner records and reads (the Method serialises its calls).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <volk.h>

#include "univk/base/status.h"
#include "univk/vulkan/registry.h"

namespace univk::vulkan {

inline constexpr const char* kCalibratedTimestampsExtension = "VK_EXT_calibrated_timestamps";

class GpuTimer {
 public:
  struct Span {
    std::string name;
    int32_t parent = -1;  // index of the span it nests in, -1 for none
    uint32_t begin_query = 0;
    uint32_t end_query = 0;  // == begin_query until end() is recorded
  };
  // Begin and end of one span, in nanoseconds.
  struct Times {
    int64_t begin_ns = 0;
    int64_t end_ns = 0;
  };

  // Unsupported, naming the queue family and the device, when the device's queue family has no
  // timestamps (timestampValidBits = 0).
  static Result<std::unique_ptr<GpuTimer>> create(DeviceLease device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Opens a span in `cmd` and returns its index; OutOfMemory or Internal when a query pool
  // cannot be created.
  Result<uint32_t> begin(VkCommandBuffer cmd, std::string name);
  // Closes span `span` (the innermost open one) in `cmd`.
  Result<uint32_t> end(VkCommandBuffer cmd, uint32_t span);
  const std::vector<Span>& spans() const { return spans_; }

  // What read() returns: every span's times in nanoseconds from the first span's begin, and the
  // host steady_clock time (ns since its epoch) of that first begin when the device can
  // calibrate (VK_EXT_calibrated_timestamps enabled, with the CLOCK_MONOTONIC time domain).
  struct Readout {
    std::vector<Times> times;
    std::optional<int64_t> host_origin_ns;
  };
  // Waits for the queries' results; call after every submission holding the spans completed.
  Result<Readout> read() const;

 private:
  GpuTimer() = default;
  Result<uint32_t> write(VkCommandBuffer cmd, bool end);

  DeviceLease device_;
  std::vector<VkQueryPool> pools_;
  uint32_t queries_ = 0;
  std::vector<Span> spans_;
  std::vector<uint32_t> open_;  // spans begun and not yet ended, innermost last
  uint64_t valid_mask_ = 0;
  double period_ns_ = 1.0;
  bool calibrated_ = false;  // VK_EXT_calibrated_timestamps with CLOCK_MONOTONIC
};

}  // namespace univk::vulkan
