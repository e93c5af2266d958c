#include "report.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "json_output.h"

namespace univk::tools {
namespace {

std::string hex_handle(const void* handle) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(handle));
  return buf;
}

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

namespace {

// "<prefix>reference FILE: match|MISMATCH (errors, tolerances[, what differs])".
void print_comparison(FILE* out, const char* prefix, const OutputReport& o, double atol, double rtol) {
  const Comparison& c = o.comparison;
  if (!c.problem.empty()) {
    std::fprintf(out, "%sreference %s: MISMATCH: %s\n", prefix, o.reference.c_str(), c.problem.c_str());
    return;
  }
  std::fprintf(out, "%sreference %s: %s (max abs error %.3g, max rel error %.3g, atol %g, rtol %g", prefix,
               o.reference.c_str(), c.match ? "match" : "MISMATCH", c.max_abs_error, c.max_rel_error, atol, rtol);
  if (!c.match) std::fprintf(out, ", %" PRId64 " elements differ, first at %" PRId64, c.mismatches, c.first_mismatch);
  std::fprintf(out, ")\n");
}

}  // namespace

void Report::print_text(FILE* out) const {
  std::fprintf(out, "program %s, method %s, mode %s", program.c_str(), method.c_str(), mode.c_str());
  if (!mode_reason.empty()) std::fprintf(out, " (%s)", mode_reason.c_str());
  std::fprintf(out, "\n");
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
          out, "  [%zu] %-13s device %s  VkDevice %s  VkQueue %s  dispatches %u barriers %u submissions %u%s\n", i,
          c.backend_id.c_str(), c.device_name().c_str(), hex_handle(c.device).c_str(), hex_handle(c.queue).c_str(),
          c.stats.dispatches, c.stats.barriers, c.stats.submissions, path.c_str());
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
    if (o.compared) print_comparison(out, "  ", o, atol, rtol);
  }
}

void Report::print_mismatches(FILE* out) const {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    if (!o.compared || o.comparison.match) continue;
    print_comparison(out, ("output " + std::to_string(i) + " ").c_str(), o, atol, rtol);
  }
}

bool Report::write_json(const std::string& path, const char* tool) const {
  Json j;
  j["program"] = program;
  j["method"] = method;
  j["mode"] = mode;
  j["mode_reason"] = mode_reason;
  j["ok"] = all_match();
  if (!error.empty()) j["error"] = error;
  Json instruction_list = Json::array();
  for (size_t i = 0; i < instructions.size(); ++i) {
    instruction_list.push_back({{"index", i}, {"on_cpu", instructions[i].on_cpu}, {"name", instructions[i].name}});
  }
  j["instructions"] = std::move(instruction_list);
  Json calls = Json::array();
  for (const auto& c : delegate_calls) {
    calls.push_back({{"instruction", c.instruction},
                     {"delegate", c.delegate},
                     {"backend", c.backend_id},
                     {"device_key", c.standalone_device ? Json() : Json(c.device_key.to_string())},
                     {"standalone_device", c.standalone_device},
                     {"load_ms", json_number(c.load_ms)},
                     {"pipelines_compiled", c.pipelines_compiled},
                     {"pipelines_reused", c.pipelines_reused},
                     {"vk_device", hex_handle(c.device)},
                     {"vk_queue", hex_handle(c.queue)},
                     {"stats",
                      {{"dispatches", c.stats.dispatches},
                       {"barriers", c.stats.barriers},
                       {"submissions", c.stats.submissions},
                       {"bytes_uploaded", c.stats.bytes_uploaded},
                       {"bytes_downloaded", c.stats.bytes_downloaded}}}});
    if (!c.graph_path.empty()) calls.back()["graph_path"] = c.graph_path;
  }
  j["delegate_calls"] = std::move(calls);
  j["cpu_operators"] = cpu_operators();
  j["single_device_and_queue"] = single_device_and_queue();
  Json timings = {{"load", json_number(load_ms)}, {"first_execute", json_number(first_execute_ms)}, {"repeat", repeat}};
  if (!steady_execute_ms.empty()) {
    const SteadyTimes t = steady_times();
    timings["steady_runs"] = steady_execute_ms.size();
    timings["steady_p50"] = json_number(t.p50);
    timings["steady_min"] = json_number(t.min);
    timings["steady_mean"] = json_number(t.mean);
  }
  j["timings_ms"] = std::move(timings);
  j["atol"] = atol;
  j["rtol"] = rtol;
  Json output_list = Json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    Json out = {{"index", i}, {"tensor", o.tensor}, {"file", o.file}, {"compared", o.compared}};
    if (o.compared) {
      const Comparison& c = o.comparison;
      out["reference"] = o.reference;
      out["match"] = c.match;
      out["problem"] = c.problem;
      out["mismatches"] = c.mismatches;
      out["max_abs_error"] = json_number(c.max_abs_error);
      out["max_rel_error"] = json_number(c.max_rel_error);
    }
    output_list.push_back(std::move(out));
  }
  j["outputs"] = std::move(output_list);
  j["all_match"] = all_match();
  return tools::write_json(j, path, tool);
}

}  // namespace univk::tools
