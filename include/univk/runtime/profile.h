// Profile: where the time of one Method execute went, on the host and on the GPU.
//
// A Method loaded with LoadOptions::profile records GPU timestamps into its command buffers (at
// load, once) and times its host phases on every execute()/run(); Method::profile() returns the
// last call's Profile (docs/RUNTIME.md, "Profiling"). Every time is in nanoseconds from the
// start of that call on the host's steady clock; GPU times are placed on that clock by
// calibration (VK_EXT_calibrated_timestamps) when the device has it, otherwise by aligning the
// first GPU timestamp with the first submission (GpuAlignment says which).
//
// Events:
//   host  execute       the whole call
//   host  phase         fused: input copy, submit, wait, output copy (run(): submit and wait)
//   host  delegate      per_delegate: one delegate call (its upload, submit, wait, download)
//   host  cpu_operator  a KernelCall run by univk::reference
//   gpu   delegate      one delegate call: fused, between timestamps around its recorded work;
//                       per_delegate, from its first dispatch's start to its last one's end
//   gpu   dispatch      one compute dispatch, inside its delegate call (parent)
//
// Plain data: a Profile owns its strings and is safe to copy and share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"

namespace univk::runtime {

enum class ProfileTrack { kHost, kGpu };
enum class ProfileKind { kExecute, kPhase, kDelegate, kCpuOperator, kDispatch };
std::string_view profile_track_name(ProfileTrack track);  // "host", "gpu"
std::string_view profile_kind_name(ProfileKind kind);     // "execute", "phase", "delegate", ...

enum class GpuAlignment {
  kNone,        // no GPU event (the method ran nothing on the GPU, or only per_delegate host work)
  kCalibrated,  // VK_EXT_calibrated_timestamps: device and host clocks sampled together
  kSubmit,      // the first GPU timestamp placed at the host time of the first submission
                // (fused) or of the first delegate call's start (per_delegate): the GPU's
                // queueing delay is unknown, so GPU events may sit early by up to that delay
};
std::string_view gpu_alignment_name(GpuAlignment alignment);  // "none", "calibrated", "submit"

struct ProfileEvent {
  ProfileTrack track = ProfileTrack::kHost;
  ProfileKind kind = ProfileKind::kExecute;
  // execute: "execute" or "run"; phase: "input copy", "submit", "wait", "output copy";
  // delegate: the backend id; cpu_operator: the operator; dispatch: its label without the
  // "dispatch " prefix (e.g. "ADD of operator 3", "conv2d_nhwc").
  std::string name;
  std::string backend;       // delegate and dispatch events: the backend id
  int64_t instruction = -1;  // delegate, cpu_operator and dispatch events: the method instruction
  int32_t parent = -1;       // index in Profile::events of the enclosing event on its track
  int64_t start_ns = 0;      // from the call's start, host steady clock
  int64_t duration_ns = 0;
  // The PyTorch nodes behind the instruction (the program's debug metadata: node names joined by
  // ", "; MethodDesc::sources has their source locations), empty when the program has none.
  std::string source;
};

struct Profile {
  std::string method;
  std::string mode;  // "fused" or "per_delegate"
  GpuAlignment alignment = GpuAlignment::kNone;
  std::vector<ProfileEvent> events;

  // The events of one kind (e.g. every dispatch), in event order.
  std::vector<const ProfileEvent*> of_kind(ProfileKind kind) const;
  // A fixed-width table, one event a line, nested events indented under their parent.
  std::string table() const;
  // Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev): one complete ("X") event per
  // ProfileEvent on thread "host" or "gpu" of one process, times in microseconds; names say the
  // backend and the operator ("VulkanBackend: ADD of operator 3").
  std::string chrome_trace() const;
  // chrome_trace() into `path`; InvalidArgument naming the path when it cannot be written.
  Status write_chrome_trace(const std::string& path) const;
};

}  // namespace univk::runtime
