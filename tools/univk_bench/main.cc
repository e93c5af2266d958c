// univk-bench: latency of a program's method beside the floors of the device it ran on.
//
//   univk-bench PROGRAM [--method NAME] [--mode per_delegate|fused|auto] [--iterations N]
//               [--warmup W] [--seed S] [--round-trips N] [--copy-mib M] [--copy-iterations N]
//               [--no-gpu-time] [--gpu-warmup-ms MS] [--option KEY=VALUE ...]
//               [--device INDEX|NAME] [--json FILE]
//
// In one run, on the device and queue the method's delegates use:
//   1. the method: random inputs (fixed seed), W warm-up runs, N timed runs of Method::execute
//      (host-in to host-out): p50/p90; then the same with Method::run on the IO views (inputs
//      already in place, outputs read where they are: zero-copy IO where io_info() says so),
//      checked against execute()'s outputs;
//   2. the floors: an empty submit-and-wait round trip, device-local copy bandwidth
//      (vkCmdCopyBuffer timed with timestamp queries), and submissions of 0, 1 and 3 one-workgroup
//      dispatches (host and GPU time);
//   3. GPU time per delegate and in total, from the runtime's profiling of a second Method
//      loaded with LoadOptions::profile (timestamps in the method's own command buffers;
//      gpu_profile.h);
// then the ratios: latency p50 / round trip p50, and achieved bandwidth (fewest bytes / GPU
// time) as a fraction of copy bandwidth, for the model and for each delegate.
// The copy floor and the GPU profile keep warming up for --gpu-warmup-ms (default 1000) besides
// their warm-up runs, so a GPU whose clocks dropped while the host copied is measured at speed.
// --json FILE writes the results as one JSON object into FILE; `--json -` prints it on stdout
// instead of the text report.
// With UNIVK_VALIDATION=1 the validation layers are on (timings then mean little) and any
// message they record is printed to stderr.
// Exit status: 0 ok, 1 validation messages were recorded, 2 bad command line (cli.h; an unknown
// --option key or --device included), 3 the program failed to load or run, a measurement
// failed, or an output could not be written.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "device_option.h"
#include "floors.h"
#include "gpu_profile.h"
#include "random_inputs.h"
#include "report.h"
#include "stdout_check.h"
#include "univk/runtime/program.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/validation.h"

namespace {

using univk::Result;
using univk::Status;
namespace bench = univk::bench;
namespace runtime = univk::runtime;

constexpr int kExitValidation = 1;
constexpr int kExitFailure = 3;
constexpr const char* kTool = "univk-bench";

struct Options {
  std::string program;
  std::string method = "forward";
  std::string mode = "auto";
  int iterations = 100;
  int warmup = 10;
  uint64_t seed = 0;
  int round_trips = 1000;
  uint64_t copy_mib = 256;
  int copy_iterations = 20;
  bool gpu_time = true;
  int gpu_warmup_ms = 1000;
  std::vector<std::string> option_texts;
  std::string device;
  std::string json_path;
};

void add_options(univk::tools::ToolApp& app, Options& o) {
  app.add_option("PROGRAM", o.program, "The program file (.uvk)")->required();
  app.add_option("--method", o.method, "The method to measure")->capture_default_str();
  app.add_option("--mode", o.mode, "Execution mode")
      ->check(CLI::IsMember({"per_delegate", "fused", "auto"}))
      ->capture_default_str();
  constexpr int kMaxCount = 1000000000;
  app.add_option("--iterations", o.iterations, "Timed runs of the method (and of the profiled GPU runs)")
      ->check(CLI::Range(1, kMaxCount))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "Untimed runs before them")
      ->check(CLI::Range(0, kMaxCount))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed of the random inputs")->capture_default_str();
  app.add_option("--round-trips", o.round_trips, "Empty submit-and-wait round trips (and dispatch floor runs)")
      ->check(CLI::Range(1, kMaxCount))
      ->capture_default_str();
  app.add_option("--copy-mib", o.copy_mib, "MiB copied by the copy-bandwidth floor")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--copy-iterations", o.copy_iterations, "Timed copies")
      ->check(CLI::Range(1, kMaxCount))
      ->capture_default_str();
  app.add_flag("--gpu-time,!--no-gpu-time", o.gpu_time,
               "Measure (or not) GPU time per delegate with the runtime's profiling");
  app.add_option("--gpu-warmup-ms", o.gpu_warmup_ms,
                 "How long the copy floor and the GPU profile keep the GPU busy before timing, in ms")
      ->check(CLI::Range(0, kMaxCount))
      ->capture_default_str();
  app.add_option("--option", o.option_texts, "A runtime option for every backend (docs/USER_GUIDE.md lists them)")
      ->check(univk::tools::key_equals_value())
      ->allow_extra_args(false);
  univk::tools::add_device_option(app, o.device);
  univk::tools::add_json_option(app, o.json_path, "the results");
}

// The runtime options of --option, checked against the keys the backends read. Returns an
// empty string on success, else the problem.
std::string backend_options(const Options& o, runtime::BackendOptions& out) {
  for (const std::string& kv : o.option_texts) {
    const size_t eq = kv.find('=');
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  runtime::LoadOptions keys;
  keys.all_backends = out;
  if (Status s = keys.check_keys(); !s.ok()) return "--option: " + s.message();
  return {};
}

uint64_t program_min_bytes(const runtime::MethodDesc& method) {
  uint64_t bytes = 0;
  for (uint32_t v : method.inputs) bytes += bench::tensor_bytes(method.values[v].info);
  for (uint32_t v : method.outputs) bytes += bench::tensor_bytes(method.values[v].info);
  for (const auto& value : method.values) {
    if (value.is_constant()) bytes += bench::tensor_bytes(value.info);
  }
  return bytes;
}

const runtime::MethodDesc* find_method(const runtime::ProgramDesc& desc, const std::string& name) {
  for (const auto& m : desc.methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// The shared device every delegate of the method runs on (the floors are measured there).
Result<univk::vulkan::DeviceLease> method_device(const runtime::Method& method, const runtime::LoadOptions& options) {
  const auto calls = method.delegate_calls();
  if (calls.empty()) return univk::unsupported("the method has no delegate call, so it runs on no device");
  for (const auto& call : calls) {
    if (call.standalone_device) {
      return univk::unsupported("instruction " + std::to_string(call.instruction) +
                                " runs on a standalone device (vulkan_shared_context_mode=disabled); "
                                "the floors need the shared device");
    }
    if (call.device != calls.front().device) {
      return univk::unsupported("the method's delegates run on more than one device");
    }
  }
  auto lease = options.registry->find(calls.front().device_key);
  if (!lease) return univk::not_found("no device registered under " + calls.front().device_key.to_string());
  return *lease;
}

Result<std::vector<double>> time_method(runtime::Method& method, const std::vector<univk::HostTensor>& inputs,
                                        int warmup, int iterations) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> samples;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto start = Clock::now();
    auto outputs = method.execute(inputs);
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (!outputs.ok()) return outputs.status().with_context("run " + std::to_string(i));
    if (i >= warmup) samples.push_back(ns);
  }
  return samples;
}

// Method::run on the IO views, `inputs` copied into them once before timing. The outputs of the
// first run must match `expected` (what execute() returned for the same inputs) within 1e-5.
Result<std::vector<double>> time_in_place(runtime::Method& method, const std::vector<univk::HostTensor>& inputs,
                                          const std::vector<univk::HostTensor>& expected, int warmup, int iterations) {
  using Clock = std::chrono::steady_clock;
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_ASSIGN_OR_RETURN(runtime::InputView view, method.input_view(i));
    std::memcpy(view.bytes.data(), inputs[i].bytes().data(), view.bytes.size());
  }
  std::vector<double> samples;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto start = Clock::now();
    const Status ran = method.run();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (!ran.ok()) return ran.with_context("in-place run " + std::to_string(i));
    if (i == 0) {
      for (size_t k = 0; k < expected.size(); ++k) {
        UNIVK_ASSIGN_OR_RETURN(runtime::OutputView view, method.output_view(k));
        univk::HostTensor got(view.info.dtype, view.info.shape);
        std::memcpy(got.bytes().data(), view.bytes.data(), view.bytes.size());
        for (size_t e = 0; e < static_cast<size_t>(got.numel()); ++e) {
          const double a = got.element_as_double(e), b = expected[k].element_as_double(e);
          if (!(std::fabs(a - b) <= 1e-5 + 1e-5 * std::fabs(b)) && !(std::isnan(a) && std::isnan(b))) {
            return univk::internal_error("output " + std::to_string(k) + " element " + std::to_string(e) +
                                         " of run() is " + std::to_string(a) + ", execute() gave " + std::to_string(b));
          }
        }
      }
    }
    if (i >= warmup) samples.push_back(ns);
  }
  return samples;
}

Result<bench::BenchResult> run(const Options& o, const runtime::LoadOptions& base_load) {
  bench::BenchResult r;
  r.program = o.program;
  r.method = o.method;
  r.mode_requested = o.mode;
  r.warmup = o.warmup;
  r.iterations = o.iterations;
  r.seed = o.seed;

  UNIVK_ASSIGN_OR_RETURN(auto program, runtime::Program::load(o.program));
  runtime::LoadOptions load = base_load;
  UNIVK_ASSIGN_OR_RETURN(load.mode, runtime::execution_mode_from_name(o.mode));
  UNIVK_ASSIGN_OR_RETURN(auto method, program->load_method(o.method, load));
  const runtime::MethodDesc* desc = find_method(program->desc(), o.method);
  if (desc == nullptr) return univk::internal_error("method '" + o.method + "' loaded but has no description");
  r.mode = std::string(runtime::execution_mode_name(method->mode()));
  r.inputs = method->input_infos();
  r.outputs = method->output_infos();
  r.min_bytes = program_min_bytes(*desc);
  r.fused = method->fused_info();

  UNIVK_ASSIGN_OR_RETURN(auto device, method_device(*method, load));
  const VkPhysicalDeviceProperties& props = device->properties();
  r.device = {props.deviceName,
              method->delegate_calls().front().device_key.to_string(),
              props.vendorID,
              props.deviceID,
              props.driverVersion,
              props.apiVersion,
              props.limits.timestampPeriod};

  const auto inputs = bench::random_inputs(r.inputs, o.seed);
  UNIVK_ASSIGN_OR_RETURN(auto samples, time_method(*method, inputs, o.warmup, o.iterations));
  r.latency_ns = bench::summarize(std::move(samples));
  UNIVK_ASSIGN_OR_RETURN(auto expected, method->execute(inputs));
  UNIVK_ASSIGN_OR_RETURN(auto in_place, time_in_place(*method, inputs, expected, o.warmup, o.iterations));
  r.zero_copy_latency_ns = bench::summarize(std::move(in_place));
  r.io = method->io_info();
  r.calls = method->delegate_calls();

  auto round_trip = bench::measure_round_trip(device, {std::min(o.round_trips, 100), o.round_trips});
  if (!round_trip.ok()) return round_trip.status().with_context("round-trip floor");
  r.round_trip_ns = *round_trip;
  auto copy = bench::measure_copy(device, o.copy_mib << 20, {2, o.copy_iterations, double(o.gpu_warmup_ms)});
  if (!copy.ok()) return copy.status().with_context("copy floor");
  r.copy = *copy;
  for (uint32_t dispatches : {0u, 1u, 3u}) {
    auto floor = bench::measure_dispatches(device, dispatches, {std::min(o.round_trips, 100), o.round_trips});
    if (!floor.ok()) return floor.status().with_context("dispatch floor");
    r.dispatch_floors.push_back(*floor);
  }

  if (!o.gpu_time) {
    r.gpu_error = "--no-gpu-time";
  } else {
    auto gpu = bench::profile_gpu(*program, o.method, load, inputs,
                                  {o.warmup > 0 ? 1 : 0, o.iterations, double(o.gpu_warmup_ms)});
    if (gpu.ok()) {
      r.gpu = std::move(gpu).value();
    } else {
      r.gpu_error = gpu.status().to_string();
    }
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  univk::tools::ToolApp app(kTool,
                            "Measures a program's method beside the floors of the device it runs on (round trip, "
                            "copy bandwidth, dispatches) and the GPU time per delegate, in one run.\n"
                            "Exit status: 0 ok, 1 validation messages, 2 bad command line, 3 load, run, measurement "
                            "or output failure.");
  add_options(app, options);
  if (auto exit = app.parse_command_line(argc, argv, kExitFailure)) return *exit;
  runtime::LoadOptions load;
  if (const std::string problem = backend_options(options, load.all_backends); !problem.empty()) {
    return app.usage_error(problem);
  }
  if (Status s = univk::tools::apply_device_option(options.device, load.config); !s.ok()) {
    return app.usage_error(s.to_string());
  }
  auto result = run(options, load);
  if (!result.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", kTool, options.program.c_str(), result.status().to_string().c_str());
    return kExitFailure;
  }
  bool written = true;
  if (options.json_path != "-") {
    const std::string text = bench::format_text(*result);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!options.json_path.empty())
    written = univk::tools::write_json(bench::format_json(*result), options.json_path, kTool);
  const auto messages = univk::vulkan::validation_messages_since(0);
  for (const auto& message : messages) std::fprintf(stderr, "%s: validation: %s\n", kTool, message.c_str());
  if (!univk::tools::stdout_written(kTool) || !written) return kExitFailure;
  return messages.empty() ? 0 : kExitValidation;
}
