#include "gpu_profile.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <variant>

namespace univk::bench {

uint64_t tensor_bytes(const runtime::TensorInfo& info) { return info.byte_size(); }

Result<GpuProfile> profile_gpu(const runtime::Program& program, const std::string& method_name,
                               const runtime::LoadOptions& options, std::span<const HostTensor> inputs,
                               RepeatCounts counts) {
  runtime::LoadOptions profiled = options;
  profiled.profile = true;
  UNIVK_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Method> method, program.load_method(method_name, profiled));
  const bool fused = method->mode() == runtime::ExecutionMode::kFused;

  std::map<int64_t, std::vector<double>> per_call;  // instruction -> GPU ns per measured run
  std::vector<double> totals;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0, measured = 0; measured < counts.iterations; ++i) {
    UNIVK_RETURN_IF_ERROR(method->execute(inputs).status());
    UNIVK_ASSIGN_OR_RETURN(runtime::Profile profile, method->profile());
    if (warming_up(counts, i, start)) continue;
    ++measured;
    const auto calls = profile.of_kind(runtime::ProfileKind::kDelegate);
    int64_t first = INT64_MAX, last = INT64_MIN, sum = 0;
    for (const runtime::ProfileEvent* e : calls) {
      if (e->track != runtime::ProfileTrack::kGpu) continue;
      per_call[e->instruction].push_back(static_cast<double>(e->duration_ns));
      first = std::min(first, e->start_ns);
      last = std::max(last, e->start_ns + e->duration_ns);
      sum += e->duration_ns;
    }
    if (per_call.empty()) return unsupported("method '" + method_name + "' runs no delegate on the GPU");
    totals.push_back(static_cast<double>(fused ? last - first : sum));
  }

  const runtime::MethodDesc& desc = *[&] {
    const runtime::MethodDesc* found = nullptr;
    for (const auto& m : program.desc().methods) {
      if (m.name == method_name) found = &m;
    }
    return found;
  }();
  GpuProfile result;
  result.total_ns = summarize(std::move(totals));
  for (const runtime::DelegateCallInfo& call : method->delegate_calls()) {
    auto samples = per_call.find(static_cast<int64_t>(call.instruction));
    if (samples == per_call.end()) continue;  // a delegate that recorded no GPU work
    DelegateProfile p;
    p.instruction = call.instruction;
    p.backend_id = call.backend_id;
    p.stats = call.stats;
    const auto& instruction = std::get<runtime::DelegateCallDesc>(desc.instructions[call.instruction]);
    for (uint32_t v : instruction.inputs) p.min_bytes += tensor_bytes(desc.values[v].info);
    for (uint32_t v : instruction.outputs) p.min_bytes += tensor_bytes(desc.values[v].info);
    p.gpu_ns = summarize(std::move(samples->second));
    result.delegates.push_back(std::move(p));
  }
  return result;
}

}  // namespace univk::bench
