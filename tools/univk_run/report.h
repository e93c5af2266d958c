// The report univk-run prints (text) and writes (--json): what ran where, timings, and how the
// outputs compare with the references.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "compare.h"
#include "univk/runtime/program.h"

namespace univk::tools {

struct OutputReport {
  std::string tensor;     // "float32[1,3,4,4]"
  std::string file;       // written .npy, or empty
  std::string reference;  // reference .npy, or empty
  bool compared = false;
  Comparison comparison;
};

struct Report {
  std::string program;
  std::string method;
  std::string mode;
  std::string mode_reason;  // Method::mode_reason()
  std::string error;        // set when loading or running failed
  std::vector<runtime::InstructionInfo> instructions;
  std::vector<runtime::DelegateCallInfo> delegate_calls;
  // The first execute (cold: first submission, lazily touched memory) apart from the runs after
  // it (--repeat N: N - 1 steady-state runs, summarized when there are any).
  double load_ms = 0.0, first_execute_ms = 0.0;
  std::vector<double> steady_execute_ms;
  int repeat = 0;
  double atol = 0.0, rtol = 0.0;
  std::vector<OutputReport> outputs;

  struct SteadyTimes {
    double p50 = 0.0, min = 0.0, mean = 0.0;
  };
  // p50 (the lower middle of an even count), min and mean of steady_execute_ms (not empty).
  SteadyTimes steady_times() const;
  size_t cpu_operators() const;
  // True when there is at least one delegate call and all of them ran on one VkDevice and VkQueue.
  bool single_device_and_queue() const;
  // No error and every compared output matched (false when loading or running failed, since
  // then nothing was compared).
  bool all_match() const;

  void print_text(FILE* out) const;
  // Only the compared outputs that differ from their references, one line each (what --quiet
  // still prints, on stderr).
  void print_mismatches(FILE* out) const;
  // `path` "-" is stdout. Returns false (after saying why on stderr, as `tool`) when the file
  // cannot be written.
  bool write_json(const std::string& path, const char* tool) const;
};

}  // namespace univk::tools
