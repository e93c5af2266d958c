// Profile::chrome_trace: the Trace Event Format's JSON object form, written with base/json.h.
#include <algorithm>
#include <fstream>
#include <numeric>

#include "univk/base/json.h"
#include "univk/runtime/profile.h"

namespace univk::runtime {

namespace {

constexpr int kPid = 1;
int tid(ProfileTrack track) { return track == ProfileTrack::kHost ? 1 : 2; }

// Microseconds with nanosecond resolution.
std::string microseconds(int64_t ns) { return json_number(static_cast<double>(ns) / 1e3, 15); }

std::string trace_name(const ProfileEvent& e) {
  switch (e.kind) {
    case ProfileKind::kDelegate:
      return e.backend + " (instruction " + std::to_string(e.instruction) + ")";
    case ProfileKind::kDispatch:
      return e.backend + ": " + e.name;
    case ProfileKind::kCpuOperator:
      return "cpu: " + e.name;
    default:
      return e.name;
  }
}

std::string thread_name(int thread, const std::string& name) {
  return "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(kPid) +
         ",\"tid\":" + std::to_string(thread) + ",\"args\":{\"name\":" + json_quote(name) + "}}";
}

}  // namespace

std::string Profile::chrome_trace() const {
  // Per thread by start time, an enclosing event before the events it holds (longer first), so
  // viewers nest them.
  std::vector<size_t> order(events.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const ProfileEvent& x = events[a];
    const ProfileEvent& y = events[b];
    if (tid(x.track) != tid(y.track)) return tid(x.track) < tid(y.track);
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.duration_ns > y.duration_ns;
  });
  std::string out = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"method\":" + json_quote(method) +
                    ",\"mode\":" + json_quote(mode) +
                    ",\"gpu_alignment\":" + json_quote(gpu_alignment_name(alignment)) + "},\"traceEvents\":[\n";
  out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(kPid) +
         ",\"args\":{\"name\":" + json_quote("univk " + method) + "}},\n";
  out += thread_name(tid(ProfileTrack::kHost), "host") + ",\n" + thread_name(tid(ProfileTrack::kGpu), "gpu");
  for (size_t i : order) {
    const ProfileEvent& e = events[i];
    out += ",\n{\"ph\":\"X\",\"pid\":" + std::to_string(kPid) + ",\"tid\":" + std::to_string(tid(e.track)) +
           ",\"name\":" + json_quote(trace_name(e)) + ",\"cat\":" + json_quote(profile_kind_name(e.kind)) +
           ",\"ts\":" + microseconds(e.start_ns) + ",\"dur\":" + microseconds(e.duration_ns) + ",\"args\":{";
    std::string args;
    if (!e.backend.empty()) args += "\"backend\":" + json_quote(e.backend);
    if (e.instruction >= 0)
      args += std::string(args.empty() ? "" : ",") + "\"instruction\":" + std::to_string(e.instruction);
    if (!e.source.empty()) args += std::string(args.empty() ? "" : ",") + "\"source\":" + json_quote(e.source);
    out += args + "}}";
  }
  return out + "\n]}\n";
}

Status Profile::write_chrome_trace(const std::string& path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return invalid_argument("cannot open trace file '" + path + "' for writing");
  file << chrome_trace();
  file.close();
  if (!file) return invalid_argument("cannot write trace file '" + path + "'");
  return ok_status();
}

}  // namespace univk::runtime
