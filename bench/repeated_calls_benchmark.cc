// Load cost of a program that calls one small VulkanBackend delegate many times (Google
// Benchmark; never run by the tests, timings are never asserted).
//
//   repeated_calls/calls:N/fused:1|0
//     a program whose `forward` is N DelegateCall instructions of one delegate entry
//     (y = x * 0.5 + 0.25 on [1,64]), chained; measures Program::load_bytes + load_method.
//     Counters: load_s (seconds per load), rss_growth_mb (peak resident memory added by the
//     first load, read from getrusage), program_kb (file size).
// Identical payloads on one device share one prepared graph (pipelines, plan, constants), so
// each call costs only its arena and descriptor sets. Target on lavapipe: 3000 calls load in
// under 2 s and 200 MB.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"

namespace {

using univk::DType;
using univk::Shape;

std::vector<uint8_t> f32_bytes(float value) {
  std::vector<uint8_t> bytes(sizeof(float));
  std::memcpy(bytes.data(), &value, sizeof(float));
  return bytes;
}

// `calls` chained calls of one delegate: v[i+1] = v[i] * 0.5 + 0.25.
univk::Result<std::vector<uint8_t>> repeated_call_program(int calls) {
  using univk::backends::ComputeOp;
  using univk::backends::ComputeValue;
  const Shape shape{1, 64};
  univk::backends::ComputeGraph g;
  g.values = {ComputeValue{DType::kFloat32, shape, {}}, ComputeValue{DType::kFloat32, Shape{1}, f32_bytes(0.5f)},
              ComputeValue{DType::kFloat32, shape, {}}, ComputeValue{DType::kFloat32, Shape{1}, f32_bytes(0.25f)},
              ComputeValue{DType::kFloat32, shape, {}}};
  g.ops = {ComputeOp{"mul", {}, {0, 1}, {2}}, ComputeOp{"add", {}, {2, 3}, {4}}};
  g.inputs = {0};
  g.outputs = {4};
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> payload, univk::backends::serialize_compute_graph(g));
  univk::runtime::ProgramBuilder builder;
  const uint32_t delegate = builder.add_delegate("VulkanBackend", payload);
  univk::runtime::MethodBuilder& m = builder.add_method("forward");
  univk::runtime::ValueId value = m.add_value(DType::kFloat32, shape);
  m.set_inputs({value});
  for (int i = 0; i < calls; ++i) {
    const univk::runtime::ValueId next = m.add_value(DType::kFloat32, shape);
    m.add_delegate_call(delegate, {value}, {next});
    value = next;
  }
  m.set_outputs({value});
  return builder.finish();
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void repeated_calls(benchmark::State& state) {
  const int calls = static_cast<int>(state.range(0));
  univk::runtime::LoadOptions options;
  options.mode =
      state.range(1) != 0 ? univk::runtime::ExecutionMode::kFused : univk::runtime::ExecutionMode::kPerDelegate;
  auto bytes = repeated_call_program(calls);
  if (!bytes.ok()) return state.SkipWithError(bytes.status().to_string().c_str());
  state.counters["program_kb"] = static_cast<double>(bytes->size()) / 1024.0;
  const double rss_before = peak_rss_mb();
  bool first = true;
  double load_seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto program = univk::runtime::Program::load_bytes(*bytes);
    if (!program.ok()) return state.SkipWithError(program.status().to_string().c_str());
    auto method = (*program)->load_method("forward", options);
    if (!method.ok()) return state.SkipWithError(method.status().to_string().c_str());
    load_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (first) {
      // One verified run: the output is the affine map applied `calls` times.
      univk::HostTensor x(DType::kFloat32, Shape{1, 64});
      for (float& v : x.data<float>()) v = 1.f;
      auto out = (*method)->execute({&x, 1});
      if (!out.ok()) return state.SkipWithError(out.status().to_string().c_str());
      float want = 1.f;
      for (int i = 0; i < calls; ++i) want = want * 0.5f + 0.25f;
      if (std::fabs((*out)[0].data<float>()[0] - want) > 1e-5f) return state.SkipWithError("wrong output");
      state.counters["rss_growth_mb"] = peak_rss_mb() - rss_before;
      first = false;
    }
  }
  state.counters["load_s"] = load_seconds / static_cast<double>(state.iterations());
}

BENCHMARK(repeated_calls)
    ->ArgNames({"calls", "fused"})
    ->Args({3000, 1})
    ->Args({3000, 0})
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
