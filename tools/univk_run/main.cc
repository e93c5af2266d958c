// univk-run: runs a method of a univk program (.uvk) and reports what ran where.
//
//   univk-run PROGRAM [--method NAME] [--input x.npy ...] [--random-inputs SEED]
//             [--reference y.npy ...] [--atol A] [--rtol R] [--mode per_delegate|fused|auto]
//             [--shared-mode disabled|lookup_only|lookup_or_create|create_only]
//             [--option KEY=VALUE ...] [--require-no-cpu-fallback] [--repeat N]
//             [--output-dir DIR] [--json FILE] [--quiet] [--profile] [--trace FILE]
//
// Prints, per instruction, the backend (or CPU operator), the device key and the VkDevice and
// VkQueue each delegate ran on, the delegate's counters and the timings; writes the outputs as
// output_<i>.npy into DIR; compares them with the references. --json writes the same report
// as JSON (for scripts; `--json -` prints only the JSON). Exit status: 0 all good, 1 an output
// differs from its reference, 2 bad command line (unknown or malformed options and values, an
// unknown --option key, as many --input/--reference files as the method has inputs/outputs),
// 3 a file could not be read or written (FIFOs and devices are refused unread, .npy files are
// checked against their header before their data is read), or the program failed to load or run.
// --profile prints the last execute's profile (docs/RUNTIME.md, "Profiling"); --trace FILE
// writes it as Chrome trace JSON.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "compare.h"
#include "npy.h"
#include "profile_output.h"
#include "report.h"
#include "stdout_check.h"
#include "univk/runtime/program.h"

namespace {

using univk::HostTensor;
using univk::tools::Report;

constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitFailure = 3;

struct Options {
  std::string program;
  std::string method = "forward";
  std::vector<std::string> inputs;
  bool random_inputs = false;
  uint64_t seed = 0;
  std::vector<std::string> references;
  double atol = 1e-5;
  double rtol = 1e-5;
  univk::runtime::ExecutionMode mode = univk::runtime::ExecutionMode::kAuto;
  univk::runtime::BackendOptions backend_options;
  bool require_no_cpu_fallback = false;
  int repeat = 1;
  std::string output_dir;
  std::string json_path;
  bool quiet = false;
  bool profile = false;
  std::string trace_path;
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: univk-run PROGRAM [--method NAME] [--input x.npy ...] [--random-inputs SEED]\n"
               "                 [--reference y.npy ...] [--atol A] [--rtol R] [--mode per_delegate|fused|auto]\n"
               "                 [--shared-mode MODE] [--option KEY=VALUE ...] [--require-no-cpu-fallback]\n"
               "                 [--repeat N] [--output-dir DIR] [--json FILE] [--quiet] [--profile] [--trace FILE]\n"
               "exit status: 0 ok, 1 output mismatch, 2 bad command line, 3 unreadable file or load or run failure\n");
}

// A tolerance: a finite number >= 0 (not nan, inf or negative).
bool parse_tolerance(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0' && std::isfinite(out) && out >= 0;
}

bool parse_integer(const std::string& text, uint64_t& out) {
  if (text.empty() || text[0] == '-') return false;
  char* end = nullptr;
  out = std::strtoull(text.c_str(), &end, 10);
  return end && *end == '\0';
}

// Returns an empty string on success, else the problem.
std::string parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string& out) -> bool {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      std::exit(univk::tools::stdout_written("univk-run") ? 0 : kExitFailure);
    } else if (arg == "--method") {
      if (!value(o.method)) return "--method needs a name";
    } else if (arg == "--input") {
      if (!value(v)) return "--input needs a file";
      o.inputs.push_back(v);
    } else if (arg == "--random-inputs") {
      if (!value(v) || !parse_integer(v, o.seed)) return "--random-inputs needs a non-negative integer seed";
      o.random_inputs = true;
    } else if (arg == "--reference") {
      if (!value(v)) return "--reference needs a file";
      o.references.push_back(v);
    } else if (arg == "--atol") {
      if (!value(v) || !parse_tolerance(v, o.atol)) return "--atol needs a finite non-negative number";
    } else if (arg == "--rtol") {
      if (!value(v) || !parse_tolerance(v, o.rtol)) return "--rtol needs a finite non-negative number";
    } else if (arg == "--mode") {
      if (!value(v)) return "--mode needs per_delegate, fused or auto";
      auto mode = univk::runtime::execution_mode_from_name(v);
      if (!mode.ok()) return "--mode: " + mode.status().message();
      o.mode = *mode;
    } else if (arg == "--shared-mode") {
      if (!value(v)) return "--shared-mode needs a mode";
      if (auto mode = univk::vulkan::shared_mode_from_name(v); !mode.ok())
        return "--shared-mode: " + mode.status().message();
      o.backend_options["vulkan_shared_context_mode"] = v;
    } else if (arg == "--option") {
      if (!value(v) || v.find('=') == std::string::npos) return "--option needs KEY=VALUE";
      o.backend_options[v.substr(0, v.find('='))] = v.substr(v.find('=') + 1);
    } else if (arg == "--require-no-cpu-fallback") {
      o.require_no_cpu_fallback = true;
    } else if (arg == "--repeat") {
      uint64_t n = 0;
      if (!value(v) || !parse_integer(v, n) || n == 0 || n > 1000000) return "--repeat needs a count in 1..1000000";
      o.repeat = static_cast<int>(n);
    } else if (arg == "--output-dir") {
      if (!value(o.output_dir)) return "--output-dir needs a directory";
    } else if (arg == "--json") {
      if (!value(o.json_path)) return "--json needs a file ('-' for stdout)";
    } else if (arg == "--profile") {
      o.profile = true;
    } else if (arg == "--trace") {
      if (!value(o.trace_path)) return "--trace needs a file";
    } else if (arg == "--quiet") {
      o.quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return "unknown option " + arg;
    } else if (o.program.empty()) {
      o.program = arg;
    } else {
      return "more than one program given (" + o.program + ", " + arg + ")";
    }
  }
  if (o.program.empty()) return "no program given";
  if (o.random_inputs && !o.inputs.empty()) return "--input and --random-inputs exclude each other";
  univk::runtime::LoadOptions keys;
  keys.all_backends = o.backend_options;
  if (univk::Status s = keys.check_keys(); !s.ok()) return "--option: " + s.message();
  return "";
}

HostTensor random_tensor(const univk::runtime::TensorInfo& info, std::mt19937_64& rng) {
  HostTensor t(info.dtype, info.shape);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const size_t k = static_cast<size_t>(i);
    switch (info.dtype) {
      case univk::DType::kFloat32:
        t.data<float>()[k] = real(rng);
        break;
      case univk::DType::kFloat16:
        t.data<uint16_t>()[k] = univk::float_to_half(real(rng));
        break;
      case univk::DType::kInt8:
        t.data<int8_t>()[k] = static_cast<int8_t>(small(rng));
        break;
      case univk::DType::kUint8:
        t.data<uint8_t>()[k] = static_cast<uint8_t>(small(rng));
        break;
      case univk::DType::kInt16:
        t.data<int16_t>()[k] = static_cast<int16_t>(small(rng));
        break;
      case univk::DType::kInt32:
        t.data<int32_t>()[k] = small(rng);
        break;
      case univk::DType::kInt64:
        t.data<int64_t>()[k] = small(rng);
        break;
      case univk::DType::kBool:
        t.data<uint8_t>()[k] = static_cast<uint8_t>(small(rng) & 1);
        break;
    }
  }
  return t;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Records the problem in the report (so --json says what failed and "ok": false) and returns
// `exit_code`.
int fail(Report& report, const Options& o, const std::string& message, int exit_code = kExitFailure) {
  report.error = message;
  std::fprintf(stderr, "univk-run: %s\n", message.c_str());
  if (!o.json_path.empty() && !report.write_json(o.json_path)) {
    std::fprintf(stderr, "univk-run: cannot write %s\n", o.json_path.c_str());
  }
  univk::tools::stdout_written("univk-run");
  return exit_code;
}

int run(const Options& o) {
  Report report;
  report.program = o.program;
  report.method = o.method;
  using clock = std::chrono::steady_clock;

  univk::runtime::LoadOptions load;
  load.mode = o.mode;
  load.require_no_cpu_fallback = o.require_no_cpu_fallback;
  load.all_backends = o.backend_options;
  load.profile = o.profile || !o.trace_path.empty();

  auto start = clock::now();
  auto program = univk::runtime::Program::load(o.program);
  if (!program.ok()) return fail(report, o, "loading " + o.program + ": " + program.status().to_string());
  auto method = (*program)->load_method(o.method, load);
  if (!method.ok()) return fail(report, o, "loading method '" + o.method + "': " + method.status().to_string());
  report.load_ms = ms_since(start);
  report.mode = std::string(univk::runtime::execution_mode_name((*method)->mode()));

  const std::vector<univk::runtime::TensorInfo> infos = (*method)->input_infos();
  std::vector<HostTensor> inputs;
  if (o.random_inputs) {
    std::mt19937_64 rng(o.seed);
    for (const auto& info : infos) inputs.push_back(random_tensor(info, rng));
  } else {
    if (o.inputs.size() != infos.size()) {
      return fail(report, o,
                  "the method takes " + std::to_string(infos.size()) + " inputs, " + std::to_string(o.inputs.size()) +
                      " given (use --input or --random-inputs)",
                  kExitUsage);
    }
    for (const std::string& path : o.inputs) {
      auto t = univk::npy::read_npy(path);
      if (!t.ok()) return fail(report, o, "input " + path + ": " + t.status().to_string());
      inputs.push_back(std::move(t).value());
    }
  }
  const size_t output_count = (*method)->output_infos().size();
  if (!o.references.empty() && o.references.size() != output_count) {
    return fail(report, o,
                "the method has " + std::to_string(output_count) + " outputs, " + std::to_string(o.references.size()) +
                    " references given",
                kExitUsage);
  }
  std::vector<HostTensor> references;
  for (const std::string& path : o.references) {
    auto t = univk::npy::read_npy(path);
    if (!t.ok()) return fail(report, o, "reference " + path + ": " + t.status().to_string());
    references.push_back(std::move(t).value());
  }

  std::vector<HostTensor> outputs;
  for (int r = 0; r < o.repeat; ++r) {
    start = clock::now();
    auto result = (*method)->execute(inputs);
    const double ms = ms_since(start);
    if (!result.ok()) return fail(report, o, "execute: " + result.status().to_string());
    if (r == 0) {
      report.first_execute_ms = ms;
    } else {
      report.steady_execute_ms.push_back(ms);
    }
    outputs = std::move(result).value();
  }
  report.repeat = o.repeat;
  report.instructions = (*method)->instructions();
  report.delegate_calls = (*method)->delegate_calls();

  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec) return fail(report, o, "cannot create " + o.output_dir + ": " + ec.message());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    univk::tools::OutputReport out;
    out.tensor = outputs[i].describe();
    if (!o.output_dir.empty()) {
      out.file = (std::filesystem::path(o.output_dir) / ("output_" + std::to_string(i) + ".npy")).string();
      univk::Status s = univk::npy::write_npy(out.file, outputs[i]);
      if (!s.ok()) return fail(report, o, "writing " + out.file + ": " + s.to_string());
    }
    if (!references.empty()) {
      out.reference = o.references[i];
      out.comparison = univk::tools::compare_tensors(outputs[i], references[i], o.atol, o.rtol);
      out.compared = true;
    }
    report.outputs.push_back(std::move(out));
  }
  report.atol = o.atol;
  report.rtol = o.rtol;
  if (!o.quiet && o.json_path != "-") report.print_text(stdout);  // --json - keeps stdout pure JSON
  if (!o.json_path.empty() && !report.write_json(o.json_path)) {
    std::fprintf(stderr, "univk-run: cannot write %s\n", o.json_path.c_str());
    return kExitFailure;
  }
  if (load.profile) {
    const univk::Status s =
        univk::tools::write_profile(**method, o.profile && o.json_path != "-", o.trace_path, stdout);
    if (!s.ok()) return fail(report, o, s.to_string());
  }
  if (!univk::tools::stdout_written("univk-run")) return kExitFailure;
  return report.all_match() ? 0 : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const std::string problem = parse_args(argc, argv, options);
  if (!problem.empty()) {
    std::fprintf(stderr, "univk-run: %s\n", problem.c_str());
    usage(stderr);
    return kExitUsage;
  }
  return run(options);
}
