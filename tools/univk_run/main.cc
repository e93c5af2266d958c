// univk-run: runs a method of a univk program (.uvk) and reports what ran where.
//
//   univk-run PROGRAM [--method NAME] [--input x.npy ...] [--random-inputs SEED]
//             [--reference y.npy ...] [--atol A] [--rtol R] [--mode per_delegate|fused|auto]
//             [--shared-mode disabled|lookup_only|lookup_or_create|create_only]
//             [--option KEY=VALUE ...] [--device INDEX|NAME] [--require-no-cpu-fallback]
//             [--repeat N] [--output-dir DIR] [--json FILE] [--quiet] [--profile] [--trace FILE]
//
// Prints, per instruction, the backend (or CPU operator), the device key and the VkDevice and
// VkQueue each delegate ran on, the delegate's counters and the timings; writes the outputs as
// output_<i>.npy into DIR; compares them with the references. --json writes the same report
// as JSON (for scripts; `--json -` prints only the JSON). Exit status: 0 all good, 1 an output
// differs from its reference, 2 bad command line (cli.h; also an unknown --option key or
// --device, as many --input/--reference files as the method has inputs/outputs), 3 a file
// could not be read or written (FIFOs and devices are refused unread, .npy files are checked
// against their header before their data is read), or the program failed to load or run.
// --profile prints the last execute's profile (docs/RUNTIME.md, "Profiling"); --trace FILE
// writes it as Chrome trace JSON.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cli.h"
#include "compare.h"
#include "device_option.h"
#include "profile_output.h"
#include "report.h"
#include "stdout_check.h"
#include "univk/npy/npy.h"
#include "univk/runtime/program.h"

namespace {

using univk::HostTensor;
using univk::tools::Report;

constexpr int kExitMismatch = 1;
constexpr int kExitUsage = univk::tools::kExitUsage;
constexpr int kExitFailure = 3;
constexpr const char* kTool = "univk-run";

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
  std::string device;
  bool require_no_cpu_fallback = false;
  int repeat = 1;
  std::string output_dir;
  std::string json_path;
  bool quiet = false;
  bool profile = false;
  std::string trace_path;
};

// Option values as typed, turned into Options by finish_options.
struct RawOptions {
  std::string mode = "auto";
  std::string shared_mode;
  std::vector<std::string> option_texts;
};

void add_options(univk::tools::ToolApp& app, Options& o, RawOptions& raw) {
  app.add_option("PROGRAM", o.program, "The program file (.uvk)")->required();
  app.add_option("--method", o.method, "The method to run")->capture_default_str();
  app.add_option("--input", o.inputs, "A .npy file for the next method input (once per input, in order)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app.add_option("--random-inputs", o.seed, "Random inputs from this seed instead of --input files")
      ->type_name("SEED")
      ->excludes("--input");
  app.add_option("--reference", o.references,
                 "A .npy file with the expected value of the next method output (once per output, in order)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app.add_option("--atol", o.atol, "Absolute tolerance of the comparison")
      ->check(univk::tools::finite_non_negative())
      ->capture_default_str();
  app.add_option("--rtol", o.rtol, "Relative tolerance of the comparison")
      ->check(univk::tools::finite_non_negative())
      ->capture_default_str();
  app.add_option("--mode", raw.mode, "Execution mode")
      ->check(CLI::IsMember({"per_delegate", "fused", "auto"}))
      ->capture_default_str();
  app.add_option("--shared-mode", raw.shared_mode,
                 "Shared device mode of every delegate (vulkan_shared_context_mode; default lookup_or_create)")
      ->check(CLI::IsMember({"disabled", "lookup_only", "lookup_or_create", "create_only"}));
  app.add_option("--option", raw.option_texts, "A runtime option for every backend (docs/USER_GUIDE.md lists them)")
      ->check(univk::tools::key_equals_value())
      ->allow_extra_args(false);
  univk::tools::add_device_option(app, o.device);
  app.add_flag("--require-no-cpu-fallback", o.require_no_cpu_fallback, "Make any CPU operator a load error");
  app.add_option("--repeat", o.repeat, "Run the method N times: the first (cold) run apart from the others")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--output-dir", o.output_dir, "Write the outputs as output_<i>.npy into DIR")->type_name("DIR");
  univk::tools::add_json_option(app, o.json_path, "the report");
  app.add_flag("-q,--quiet", o.quiet,
               "Print no text report (outputs that differ from their references still get a line on stderr)");
  app.add_flag("--profile", o.profile,
               "Print the last run's profile (per delegate call and dispatch, host and GPU times)");
  app.add_option("--trace", o.trace_path, "Write the last run's profile as Chrome trace JSON (loads with profiling)")
      ->type_name("FILE");
}

// The checks that need more than one option. Returns an empty string on success, else the problem.
std::string finish_options(const univk::tools::ToolApp& app, const RawOptions& raw, Options& o) {
  o.random_inputs = app.count("--random-inputs") > 0;
  o.mode = *univk::runtime::execution_mode_from_name(raw.mode);  // IsMember checked the name
  for (const std::string& kv : raw.option_texts) {
    const size_t eq = kv.find('=');
    o.backend_options[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!raw.shared_mode.empty()) o.backend_options["vulkan_shared_context_mode"] = raw.shared_mode;
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
  std::fprintf(stderr, "%s: %s\n", kTool, message.c_str());
  if (!o.json_path.empty()) report.write_json(o.json_path, kTool);
  univk::tools::stdout_written(kTool);
  return exit_code;
}

int run(const Options& o) {
  Report report;
  report.program = o.program;
  report.method = o.method;
  using clock = std::chrono::steady_clock;

  univk::runtime::LoadOptions load;
  if (univk::Status s = univk::tools::apply_device_option(o.device, load.config); !s.ok()) {
    return fail(report, o, s.to_string(), kExitUsage);
  }
  load.mode = o.mode;
  load.require_no_cpu_fallback = o.require_no_cpu_fallback;
  load.profile = o.profile || !o.trace_path.empty();
  load.all_backends = o.backend_options;

  auto start = clock::now();
  auto program = univk::runtime::Program::load(o.program);
  if (!program.ok()) return fail(report, o, "loading " + o.program + ": " + program.status().to_string());
  auto method = (*program)->load_method(o.method, load);
  if (!method.ok()) return fail(report, o, "loading method '" + o.method + "': " + method.status().to_string());
  report.load_ms = ms_since(start);
  report.mode = std::string(univk::runtime::execution_mode_name((*method)->mode()));
  report.mode_reason = (*method)->mode_reason();

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
  if (!o.quiet && o.json_path != "-") report.print_text(stdout);       // --json - keeps stdout pure JSON
  if (o.quiet || o.json_path == "-") report.print_mismatches(stderr);  // exit status 1 says why
  if (!o.json_path.empty() && !report.write_json(o.json_path, kTool)) return kExitFailure;
  if (load.profile) {
    const univk::Status s =
        univk::tools::write_profile(**method, o.profile && o.json_path != "-", o.trace_path, stdout);
    if (!s.ok()) return fail(report, o, s.to_string());
  }
  if (!univk::tools::stdout_written(kTool)) return kExitFailure;
  return report.all_match() ? 0 : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  RawOptions raw;
  univk::tools::ToolApp app(kTool,
                            "Runs a method of a univk program (.uvk): reports which backend ran each instruction "
                            "on which device and queue, the timings, and how the outputs compare with references.\n"
                            "Exit status: 0 ok, 1 an output differs from its reference, 2 bad command line, 3 an "
                            "unreadable file or a load or run failure.");
  add_options(app, options, raw);
  if (auto exit = app.parse_command_line(argc, argv, kExitFailure)) return *exit;
  if (const std::string problem = finish_options(app, raw, options); !problem.empty()) return app.usage_error(problem);
  return run(options);
}
