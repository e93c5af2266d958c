#include "report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace univk::bench {

namespace {

std::string printf_string(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string us(double ns) { return printf_string("%.1f us", ns / 1e3); }
std::string gbps(double bytes_per_second) { return printf_string("%.2f GB/s", bytes_per_second / 1e9); }
std::string percent(double fraction) { return printf_string("%.1f%%", fraction * 100.0); }
std::string times(double ratio) { return printf_string("%.2fx", ratio); }

std::string bytes_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return printf_string("%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  if (bytes >= (uint64_t{1} << 20)) return printf_string("%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (uint64_t{1} << 10)) return printf_string("%.2f KiB", static_cast<double>(bytes) / (1 << 10));
  return std::to_string(bytes) + " B";
}

std::string describe(const runtime::TensorInfo& info) {
  return std::string(dtype_name(info.dtype)) + info.shape.to_string();
}

std::string describe_all(const std::vector<runtime::TensorInfo>& infos) {
  std::string out;
  for (const auto& info : infos) out += (out.empty() ? "" : ", ") + describe(info);
  return out;
}

double bytes_per_second(uint64_t bytes, double ns) { return ns > 0 ? static_cast<double>(bytes) / (ns * 1e-9) : 0.0; }

// "inputs mapped, outputs mapped"
std::string io_paths(const runtime::IoInfo& io) {
  auto list = [](const std::vector<runtime::IoPath>& paths) {
    std::string out;
    for (runtime::IoPath p : paths) out += (out.empty() ? "" : "/") + std::string(runtime::io_path_name(p));
    return out.empty() ? std::string("none") : out;
  };
  return "inputs " + list(io.inputs) + ", outputs " + list(io.outputs);
}

// --- JSON: every time in microseconds ------------------------------------------------------

using tools::Json;

Json io_paths_json(const std::vector<runtime::IoPath>& paths) {
  Json out = Json::array();
  for (runtime::IoPath p : paths) out.push_back(runtime::io_path_name(p));
  return out;
}

Json summary_us(const Summary& s) {
  return {{"count", s.count},
          {"min", tools::json_number(s.min / 1e3)},
          {"p50", tools::json_number(s.p50 / 1e3)},
          {"p90", tools::json_number(s.p90 / 1e3)},
          {"mean", tools::json_number(s.mean / 1e3)},
          {"max", tools::json_number(s.max / 1e3)}};
}

Json tensors_json(const std::vector<runtime::TensorInfo>& infos) {
  Json out = Json::array();
  for (const auto& info : infos) out.push_back({{"dtype", dtype_name(info.dtype)}, {"shape", info.shape.dims()}});
  return out;
}

Json stats_json(const runtime::ExecuteStats& s) {
  return {{"dispatches", s.dispatches},
          {"barriers", s.barriers},
          {"submissions", s.submissions},
          {"bytes_uploaded", s.bytes_uploaded},
          {"bytes_downloaded", s.bytes_downloaded}};
}

}  // namespace

double fraction_of_copy(uint64_t bytes, double gpu_ns, const CopyFloor& copy) {
  const double floor = copy.bytes_per_second();
  return floor > 0 && gpu_ns > 0 ? bytes_per_second(bytes, gpu_ns) / floor : 0.0;
}

std::string format_text(const BenchResult& r) {
  std::ostringstream o;
  o << "program    " << r.program << "  method " << r.method << "  mode " << r.mode << " (requested "
    << r.mode_requested << ")\n";
  o << "device     " << r.device.name << "  key " << r.device.key << "\n";
  o << "inputs     " << describe_all(r.inputs) << "  (random, seed " << r.seed << ")\n";
  o << "outputs    " << describe_all(r.outputs) << "\n";
  for (const auto& call : r.calls) {
    o << "  instruction " << call.instruction << "  " << call.backend_id << ": " << call.stats.dispatches
      << " dispatches, " << call.stats.submissions << " submissions\n";
  }
  if (r.mode == "fused") {
    o << "fused      arena " << bytes_text(r.fused.arena_bytes) << ", " << r.fused.barriers << " barriers, "
      << (r.fused.staged_io ? "staged IO"
                            : (r.fused.host_outputs ? "inputs mapped device-local, outputs in host memory"
                                                    : "mapped device-local IO"))
      << "\n";
  }
  o << "latency    host-in to host-out, " << r.iterations << " runs after " << r.warmup << " warm-up: p50 "
    << us(r.latency_ns.p50) << "  p90 " << us(r.latency_ns.p90) << "  min " << us(r.latency_ns.min) << "\n";
  o << "in place   run() on the IO views (" << (r.io.zero_copy() ? "zero-copy" : "not zero-copy") << ": "
    << io_paths(r.io) << "): p50 " << us(r.zero_copy_latency_ns.p50) << "  p90 " << us(r.zero_copy_latency_ns.p90)
    << "  min " << us(r.zero_copy_latency_ns.min) << "\n";
  o << "floor      empty submit+wait (" << r.round_trip_ns.count << " runs): p50 " << us(r.round_trip_ns.p50)
    << "  p90 " << us(r.round_trip_ns.p90) << "\n";
  o << "floor      device-local copy of " << bytes_text(r.copy.bytes) << " (" << r.copy.gpu_ns.count
    << " runs): vkCmdCopyBuffer GPU p50 " << us(r.copy.gpu_ns.p50) << " = " << gbps(r.copy.transfer_bytes_per_second())
    << " (read + write), host p50 " << us(r.copy.host_ns.p50) << "\n";
  o << "floor      shader copy of " << bytes_text(r.copy.shader_bytes) << ": GPU p50 " << us(r.copy.shader_gpu_ns.p50)
    << " = " << gbps(r.copy.shader_bytes_per_second()) << "; copy bandwidth = the faster, "
    << gbps(r.copy.bytes_per_second()) << "\n";
  for (const auto& f : r.dispatch_floors) {
    o << "floor      " << f.dispatches << " one-workgroup dispatches (" << f.host_ns.count << " runs): submit+wait p50 "
      << us(f.host_ns.p50) << ", GPU p50 " << us(f.gpu_ns.p50) << "\n";
  }
  if (r.gpu) {
    o << "gpu time   p50 " << us(r.gpu->total_ns.p50) << "  p90 " << us(r.gpu->total_ns.p90)
      << "  (runtime profiling: timestamps in the method's own command buffers)\n";
    for (const auto& d : r.gpu->delegates) {
      o << "  instruction " << d.instruction << "  " << d.backend_id << ": p50 " << us(d.gpu_ns.p50) << ", "
        << d.stats.dispatches << " dispatches, moves at least " << bytes_text(d.min_bytes) << " -> "
        << gbps(bytes_per_second(d.min_bytes, d.gpu_ns.p50)) << " = "
        << percent(fraction_of_copy(d.min_bytes, d.gpu_ns.p50, r.copy)) << " of copy\n";
    }
  } else {
    o << "gpu time   not measured: " << r.gpu_error << "\n";
  }
  o << "ratios     latency p50 / round trip p50 = " << times(r.latency_ns.p50 / r.round_trip_ns.p50) << "\n";
  if (r.gpu) {
    o << "           model moves at least " << bytes_text(r.min_bytes) << ": "
      << gbps(bytes_per_second(r.min_bytes, r.gpu->total_ns.p50)) << " = "
      << percent(fraction_of_copy(r.min_bytes, r.gpu->total_ns.p50, r.copy)) << " of copy bandwidth (GPU time)\n";
  }
  return o.str();
}

tools::Json format_json(const BenchResult& r) {
  Json j;
  j["program"] = r.program;
  j["method"] = r.method;
  j["mode_requested"] = r.mode_requested;
  j["mode"] = r.mode;
  j["device"] = {{"name", r.device.name},
                 {"key", r.device.key},
                 {"vendor_id", r.device.vendor_id},
                 {"device_id", r.device.device_id},
                 {"driver_version", r.device.driver_version},
                 {"api_version", std::to_string(VK_API_VERSION_MAJOR(r.device.api_version)) + "." +
                                     std::to_string(VK_API_VERSION_MINOR(r.device.api_version)) + "." +
                                     std::to_string(VK_API_VERSION_PATCH(r.device.api_version))},
                 {"timestamp_period_ns", tools::json_number(r.device.timestamp_period_ns)}};
  j["warmup"] = r.warmup;
  j["iterations"] = r.iterations;
  j["seed"] = r.seed;
  j["inputs"] = tensors_json(r.inputs);
  j["outputs"] = tensors_json(r.outputs);
  j["min_bytes"] = r.min_bytes;
  j["latency_us"] = summary_us(r.latency_ns);
  j["zero_copy_latency_us"] = summary_us(r.zero_copy_latency_ns);
  j["io"] = {{"zero_copy", r.io.zero_copy()},
             {"inputs", io_paths_json(r.io.inputs)},
             {"outputs", io_paths_json(r.io.outputs)}};
  Json calls = Json::array();
  for (const auto& call : r.calls) {
    calls.push_back(
        {{"instruction", call.instruction}, {"backend", call.backend_id}, {"stats", stats_json(call.stats)}});
  }
  j["delegate_calls"] = std::move(calls);
  j["fused"] = {{"arena_bytes", r.fused.arena_bytes},
                {"barriers", r.fused.barriers},
                {"staged_io", r.fused.staged_io},
                {"host_outputs", r.fused.host_outputs}};
  Json dispatches = Json::array();
  for (const DispatchFloor& f : r.dispatch_floors) {
    dispatches.push_back(
        {{"dispatches", f.dispatches}, {"host_us", summary_us(f.host_ns)}, {"gpu_us", summary_us(f.gpu_ns)}});
  }
  j["floors"] = {{"round_trip_us", summary_us(r.round_trip_ns)},
                 {"copy",
                  {{"bytes", r.copy.bytes},
                   {"gpu_us", summary_us(r.copy.gpu_ns)},
                   {"host_us", summary_us(r.copy.host_ns)},
                   {"transfer_gb_s", tools::json_number(r.copy.transfer_bytes_per_second() / 1e9)},
                   {"shader_bytes", r.copy.shader_bytes},
                   {"shader_gpu_us", summary_us(r.copy.shader_gpu_ns)},
                   {"shader_gb_s", tools::json_number(r.copy.shader_bytes_per_second() / 1e9)},
                   {"bandwidth_gb_s", tools::json_number(r.copy.bytes_per_second() / 1e9)}}},
                 {"dispatches", std::move(dispatches)}};
  if (r.gpu) {
    Json delegates = Json::array();
    for (const DelegateProfile& d : r.gpu->delegates) {
      delegates.push_back(
          {{"instruction", d.instruction},
           {"backend", d.backend_id},
           {"dispatches", d.stats.dispatches},
           {"min_bytes", d.min_bytes},
           {"gpu_us", summary_us(d.gpu_ns)},
           {"bandwidth_gb_s", tools::json_number(bytes_per_second(d.min_bytes, d.gpu_ns.p50) / 1e9)},
           {"fraction_of_copy", tools::json_number(fraction_of_copy(d.min_bytes, d.gpu_ns.p50, r.copy))}});
    }
    j["gpu"] = {{"source", "runtime profiling (LoadOptions::profile): timestamps in the method's own command buffers"},
                {"total_us", summary_us(r.gpu->total_ns)},
                {"bandwidth_gb_s", tools::json_number(bytes_per_second(r.min_bytes, r.gpu->total_ns.p50) / 1e9)},
                {"fraction_of_copy", tools::json_number(fraction_of_copy(r.min_bytes, r.gpu->total_ns.p50, r.copy))},
                {"delegates", std::move(delegates)}};
  } else {
    j["gpu"] = nullptr;
    j["gpu_error"] = r.gpu_error;
  }
  j["ratios"] = {{"p50_over_round_trip",
                  tools::json_number(r.round_trip_ns.p50 > 0 ? r.latency_ns.p50 / r.round_trip_ns.p50 : NAN)}};
  return j;
}

}  // namespace univk::bench
