// Profile: names and the printable table (profile.h).
#include <cstdio>

#include "univk/runtime/profile.h"

namespace univk::runtime {

std::string_view profile_track_name(ProfileTrack track) { return track == ProfileTrack::kHost ? "host" : "gpu"; }

std::string_view profile_kind_name(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::kExecute:
      return "execute";
    case ProfileKind::kPhase:
      return "phase";
    case ProfileKind::kDelegate:
      return "delegate";
    case ProfileKind::kCpuOperator:
      return "cpu_operator";
    case ProfileKind::kDispatch:
      return "dispatch";
  }
  return "unknown";
}

std::string_view gpu_alignment_name(GpuAlignment alignment) {
  switch (alignment) {
    case GpuAlignment::kNone:
      return "none";
    case GpuAlignment::kCalibrated:
      return "calibrated";
    case GpuAlignment::kSubmit:
      return "submit";
  }
  return "unknown";
}

std::vector<const ProfileEvent*> Profile::of_kind(ProfileKind kind) const {
  std::vector<const ProfileEvent*> out;
  for (const ProfileEvent& e : events) {
    if (e.kind == kind) out.push_back(&e);
  }
  return out;
}

std::string Profile::table() const {
  std::string out = "profile of method '" + method + "' (" + mode +
                    "), GPU clock alignment: " + std::string(gpu_alignment_name(alignment)) + "\n";
  char line[512];
  std::snprintf(line, sizeof(line), "%-5s %-12s %5s %12s %12s  %s\n", "track", "kind", "instr", "start_us", "time_us",
                "name");
  out += line;
  for (const ProfileEvent& e : events) {
    int depth = 0;
    for (int32_t p = e.parent; p >= 0; p = events[static_cast<size_t>(p)].parent) ++depth;
    std::string name(static_cast<size_t>(depth) * 2, ' ');
    if (e.kind == ProfileKind::kDispatch) name += e.backend + ": ";
    name += e.name;
    if (!e.source.empty()) name += "  [" + e.source + "]";
    const std::string instruction = e.instruction < 0 ? "-" : std::to_string(e.instruction);
    std::snprintf(line, sizeof(line), "%-5s %-12s %5s %12.1f %12.1f  ",
                  std::string(profile_track_name(e.track)).c_str(), std::string(profile_kind_name(e.kind)).c_str(),
                  instruction.c_str(), e.start_ns / 1e3, e.duration_ns / 1e3);
    out += line + name + "\n";
  }
  return out;
}

}  // namespace univk::runtime
