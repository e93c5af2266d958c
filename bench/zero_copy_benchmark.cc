// Host-in to host-out of one 64 MiB float32 tensor through a fused method (Google Benchmark;
// never run by the tests, timings are never asserted). The method is one VulkanBackend delegate,
// y = x * 0.5 + 0.25 on [16,1024,1024]:
//   ZeroCopy/execute        Method::execute(inputs): the input is copied into the method's
//                           mapped memory and the output out of it into a new tensor;
//   ZeroCopy/views          the input already sits in input_view(0); run(); the output is read
//                           where it is, in output_view(0);
//   ZeroCopy/imported       the same with caller memory imported for the input and output
//                           (LoadOptions::host_memory; skipped without VK_EXT_external_memory_host).
// Each variant first checks its output against x * 0.5 + 0.25 on the host.
// bytes_per_second counts input + output bytes. CPU time is the calling thread's alone (the
// host copies show there; lavapipe's own threads do the GPU work).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"

namespace {

using univk::DType;
using univk::HostTensor;
using univk::Shape;
using univk::runtime::Method;

const Shape kShape{16, 1024, 1024};  // 64 MiB of float32
constexpr size_t kBytes = size_t{16} * 1024 * 1024 * sizeof(float);
constexpr size_t kImportAlignment = 65536;

univk::Result<std::shared_ptr<univk::runtime::Program>> affine_program() {
  using univk::backends::ComputeOp;
  using univk::backends::ComputeValue;
  univk::backends::ComputeGraph g;
  univk::Attributes half, quarter;
  half.set("other", 0.5);
  quarter.set("other", 0.25);
  g.values = {ComputeValue{DType::kFloat32, kShape, {}}, ComputeValue{DType::kFloat32, kShape, {}},
              ComputeValue{DType::kFloat32, kShape, {}}};
  g.ops = {ComputeOp{"mul", half, {0}, {1}}, ComputeOp{"add", quarter, {1}, {2}}};
  g.inputs = {0};
  g.outputs = {2};
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> payload, univk::backends::serialize_compute_graph(g));
  univk::runtime::ProgramBuilder builder;
  const uint32_t delegate = builder.add_delegate("VulkanBackend", payload);
  univk::runtime::MethodBuilder& m = builder.add_method("forward");
  const univk::runtime::ValueId x = m.add_value(DType::kFloat32, kShape);
  const univk::runtime::ValueId y = m.add_value(DType::kFloat32, kShape);
  m.set_inputs({x});
  m.add_delegate_call(delegate, {x}, {y});
  m.set_outputs({y});
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, builder.finish());
  return univk::runtime::Program::load_bytes(std::move(bytes));
}

void fill_input(float* x) {
  for (size_t i = 0; i < kBytes / sizeof(float); ++i) x[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
}

// Empty when y == x * 0.5 + 0.25 for every element of fill_input's x.
std::string check_output(const float* y) {
  for (size_t i = 0; i < kBytes / sizeof(float); ++i) {
    const float x = static_cast<float>(i % 1000) * 0.01f - 5.0f;
    if (std::fabs(y[i] - (x * 0.5f + 0.25f)) > 1e-6f) return "wrong output at element " + std::to_string(i);
  }
  return {};
}

void set_counters(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(2 * kBytes) * static_cast<int64_t>(state.iterations()));
}

void execute_copying(benchmark::State& state) {
  auto program = affine_program();
  if (!program.ok()) return state.SkipWithError(program.status().to_string().c_str());
  auto method = (*program)->load_method("forward");
  if (!method.ok()) return state.SkipWithError(method.status().to_string().c_str());
  HostTensor x(DType::kFloat32, kShape);
  fill_input(x.data<float>().data());
  const std::vector<HostTensor> inputs{x};
  auto first = (*method)->execute(inputs);
  if (!first.ok()) return state.SkipWithError(first.status().to_string().c_str());
  if (const std::string bad = check_output((*first)[0].data<float>().data()); !bad.empty())
    return state.SkipWithError(bad.c_str());
  for (auto _ : state) {
    auto outputs = (*method)->execute(inputs);
    if (!outputs.ok()) return state.SkipWithError(outputs.status().to_string().c_str());
    benchmark::DoNotOptimize((*outputs)[0].bytes().data());
  }
  set_counters(state);
}

// views (imported == false) or caller memory imported for input and output.
void run_in_place(benchmark::State& state, bool imported) {
  auto program = affine_program();
  if (!program.ok()) return state.SkipWithError(program.status().to_string().c_str());
  univk::runtime::LoadOptions options;
  std::unique_ptr<void, decltype(&std::free)> in(nullptr, &std::free), out(nullptr, &std::free);
  if (imported) {
    in.reset(std::aligned_alloc(kImportAlignment, kBytes));
    out.reset(std::aligned_alloc(kImportAlignment, kBytes));
    if (!in || !out) return state.SkipWithError("aligned_alloc failed");
    options.host_memory = {{false, 0, in.get(), kBytes}, {true, 0, out.get(), kBytes}};
  }
  auto method = (*program)->load_method("forward", options);
  if (!method.ok()) return state.SkipWithError(method.status().to_string().c_str());
  if (!(*method)->io_info().zero_copy()) return state.SkipWithError("the method's IO is not zero-copy here");
  auto x = (*method)->input_view(0);
  auto y = (*method)->output_view(0);
  if (!x.ok() || !y.ok()) return state.SkipWithError("no views");
  fill_input(x->data<float>().data());
  if (auto ran = (*method)->run(); !ran.ok()) return state.SkipWithError(ran.to_string().c_str());
  if (const std::string bad = check_output(y->data<float>().data()); !bad.empty())
    return state.SkipWithError(bad.c_str());
  for (auto _ : state) {
    if (auto ran = (*method)->run(); !ran.ok()) return state.SkipWithError(ran.to_string().c_str());
    benchmark::DoNotOptimize(y->bytes.data());
  }
  set_counters(state);
}

BENCHMARK(execute_copying)->Name("ZeroCopy/execute")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(run_in_place, views, false)->Name("ZeroCopy/views")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(run_in_place, imported, true)
    ->Name("ZeroCopy/imported")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
