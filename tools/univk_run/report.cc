#include "report.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>

#include "univk/base/json.h"

namespace univk::tools {
namespace {

std::string hex_handle(const void* handle) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(handle));
  return buf;
}

std::string json_string(const std::string& s) { return json_quote(s); }

const char* json_bool(bool b) { return b ? "true" : "false"; }

}  // namespace

Report::SteadyTimes Report::steady_times() const {
  std::vector<double> sorted = steady_execute_ms;
  std::sort(sorted.begin(), sorted.end());
  SteadyTimes t;
  t.p50 = sorted[(sorted.size() - 1) / 2];
  t.min = sorted.front();
  t.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  return t;
}

size_t Report::cpu_operators() const {
  size_t n = 0;
  for (const auto& i : instructions) n += i.on_cpu ? 1 : 0;
  return n;
}

bool Report::single_device_and_queue() const {
  if (delegate_calls.empty()) return false;
  for (const auto& c : delegate_calls) {
    if (c.device != delegate_calls[0].device || c.queue != delegate_calls[0].queue) return false;
  }
  return true;
}

bool Report::all_match() const {
  if (!error.empty()) return false;
  for (const auto& o : outputs) {
    if (o.compared && !o.comparison.match) return false;
  }
  return true;
}

void Report::print_text(FILE* out) const {
  std::fprintf(out, "program %s, method %s, mode %s\n", program.c_str(), method.c_str(), mode.c_str());
  size_t call = 0;
  for (size_t i = 0; i < instructions.size(); ++i) {
    const auto& ins = instructions[i];
    if (ins.on_cpu) {
      std::fprintf(out, "  [%zu] CPU operator %s (reference kernel)\n", i, ins.name.c_str());
      continue;
    }
    while (call < delegate_calls.size() && delegate_calls[call].instruction < i) ++call;
    if (call < delegate_calls.size() && delegate_calls[call].instruction == i) {
      const auto& c = delegate_calls[call];
      const std::string path = c.graph_path.empty() ? "" : "  graph path " + c.graph_path;
      std::fprintf(
          out, "  [%zu] %-13s device %s%s  VkDevice %s  VkQueue %s  dispatches %u barriers %u submissions %u%s\n", i,
          c.backend_id.c_str(), c.device_key.to_string().c_str(), c.standalone_device ? " (standalone)" : "",
          hex_handle(c.device).c_str(), hex_handle(c.queue).c_str(), c.stats.dispatches, c.stats.barriers,
          c.stats.submissions, path.c_str());
    } else {
      std::fprintf(out, "  [%zu] %s\n", i, ins.name.c_str());
    }
  }
  std::fprintf(out, "delegate calls: %zu, CPU operators: %zu, one VkDevice and VkQueue: %s\n", delegate_calls.size(),
               cpu_operators(), single_device_and_queue() ? "yes" : "no");
  if (steady_execute_ms.empty()) {
    std::fprintf(out, "time: load %.3f ms, execute %.3f ms (one cold run; --repeat N adds steady-state runs)\n",
                 load_ms, first_execute_ms);
  } else {
    const SteadyTimes t = steady_times();
    std::fprintf(out,
                 "time: load %.3f ms, first execute %.3f ms; the %zu run(s) after it: p50 %.3f ms, min %.3f ms, "
                 "mean %.3f ms\n",
                 load_ms, first_execute_ms, steady_execute_ms.size(), t.p50, t.min, t.mean);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    std::fprintf(out, "output %zu: %s%s%s\n", i, o.tensor.c_str(), o.file.empty() ? "" : " -> ", o.file.c_str());
    if (!o.compared) continue;
    const Comparison& c = o.comparison;
    if (!c.problem.empty()) {
      std::fprintf(out, "  reference %s: MISMATCH: %s\n", o.reference.c_str(), c.problem.c_str());
    } else {
      std::fprintf(out, "  reference %s: %s (max abs error %.3g, max rel error %.3g, atol %g, rtol %g",
                   o.reference.c_str(), c.match ? "match" : "MISMATCH", c.max_abs_error, c.max_rel_error, atol, rtol);
      if (!c.match)
        std::fprintf(out, ", %" PRId64 " elements differ, first at %" PRId64, c.mismatches, c.first_mismatch);
      std::fprintf(out, ")\n");
    }
  }
}

bool Report::write_json(const std::string& path) const {
  std::ostringstream j;
  j << "{\n  \"program\": " << json_string(program) << ",\n  \"method\": " << json_string(method)
    << ",\n  \"mode\": " << json_string(mode) << ",\n  \"ok\": " << json_bool(all_match());
  if (!error.empty()) j << ",\n  \"error\": " << json_string(error);
  j << ",\n  \"instructions\": [";
  for (size_t i = 0; i < instructions.size(); ++i) {
    j << (i ? "," : "") << "\n    {\"index\": " << i << ", \"on_cpu\": " << json_bool(instructions[i].on_cpu)
      << ", \"name\": " << json_string(instructions[i].name) << "}";
  }
  j << "\n  ],\n  \"delegate_calls\": [";
  for (size_t i = 0; i < delegate_calls.size(); ++i) {
    const auto& c = delegate_calls[i];
    j << (i ? "," : "") << "\n    {\"instruction\": " << c.instruction << ", \"delegate\": " << c.delegate
      << ", \"backend\": " << json_string(c.backend_id) << ", \"device_key\": " << json_string(c.device_key.to_string())
      << ", \"standalone_device\": " << json_bool(c.standalone_device)
      << ", \"vk_device\": " << json_string(hex_handle(c.device))
      << ", \"vk_queue\": " << json_string(hex_handle(c.queue));
    if (!c.graph_path.empty()) j << ", \"graph_path\": " << json_string(c.graph_path);
    j << ", \"stats\": {\"dispatches\": " << c.stats.dispatches << ", \"barriers\": " << c.stats.barriers
      << ", \"submissions\": " << c.stats.submissions << ", \"bytes_uploaded\": " << c.stats.bytes_uploaded
      << ", \"bytes_downloaded\": " << c.stats.bytes_downloaded << "}}";
  }
  j << "\n  ],\n  \"cpu_operators\": " << cpu_operators()
    << ",\n  \"single_device_and_queue\": " << json_bool(single_device_and_queue())
    << ",\n  \"timings_ms\": {\"load\": " << json_number(load_ms)
    << ", \"first_execute\": " << json_number(first_execute_ms) << ", \"repeat\": " << repeat;
  if (!steady_execute_ms.empty()) {
    const SteadyTimes t = steady_times();
    j << ", \"steady_runs\": " << steady_execute_ms.size() << ", \"steady_p50\": " << json_number(t.p50)
      << ", \"steady_min\": " << json_number(t.min) << ", \"steady_mean\": " << json_number(t.mean);
  }
  j << "}"
    << ",\n  \"atol\": " << json_number(atol) << ",\n  \"rtol\": " << json_number(rtol) << ",\n  \"outputs\": [";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    j << (i ? "," : "") << "\n    {\"index\": " << i << ", \"tensor\": " << json_string(o.tensor)
      << ", \"file\": " << json_string(o.file) << ", \"compared\": " << json_bool(o.compared);
    if (o.compared) {
      const Comparison& c = o.comparison;
      j << ", \"reference\": " << json_string(o.reference) << ", \"match\": " << json_bool(c.match)
        << ", \"problem\": " << json_string(c.problem) << ", \"mismatches\": " << c.mismatches
        << ", \"max_abs_error\": " << json_number(c.max_abs_error)
        << ", \"max_rel_error\": " << json_number(c.max_rel_error);
    }
    j << "}";
  }
  j << "\n  ],\n  \"all_match\": " << json_bool(all_match()) << "\n}\n";
  const std::string text = j.str();
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return true;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace univk::tools
