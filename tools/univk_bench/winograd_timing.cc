#include "winograd_timing.h"

#include <algorithm>
#include <string>
#include <vector>

#include "operand_fill.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline_cache.h"

namespace univk::bench {

Result<WinogradTiming> time_winograd(const vulkan::DeviceLease& device, const kernels::DeviceTraits& traits,
                                     const kernels::Conv2dProblem& problem, int64_t tile,
                                     std::span<const vulkan::BufferRange> operands, RepeatCounts counts,
                                     const vulkan::BufferRange* evict) {
  if (operands.size() != 5) return internal_error("time_winograd: 5 operand bindings expected");
  WinogradTiming timing;
  UNIVK_ASSIGN_OR_RETURN(timing.plan, kernels::plan_winograd(problem, traits, tile));
  const kernels::WinogradPlan& plan = timing.plan;
  for (uint64_t elements : {plan.v_elements, plan.m_elements, plan.u_elements}) {
    if (elements * 4 > traits.max_binding_bytes) {
      return unsupported("Winograd's operands of " + std::to_string(elements * 4) +
                         " bytes exceed the device's binding limit");
    }
  }
  // V, M, U and the GEMM's scratch (at least one word: every binding needs a buffer).
  std::vector<vulkan::Buffer> buffers;
  std::vector<vulkan::BufferRange> ranges;
  for (uint64_t bytes : {plan.v_elements * 4, plan.m_elements * 4, plan.u_elements * 4,
                         std::max<uint64_t>(plan.gemm.scratch_bytes, 4)}) {
    UNIVK_ASSIGN_OR_RETURN(auto buffer, vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kDeviceLocal));
    ranges.push_back({buffer.handle(), 0, bytes});
    buffers.push_back(std::move(buffer));
  }
  const vulkan::BufferRange &v = ranges[0], &m = ranges[1], &u = ranges[2], &scratch = ranges[3];
  UNIVK_RETURN_IF_ERROR(fill_uniform(device, u, 7));
  const vulkan::BufferRange &input = operands[0], &bias = operands[2], &output = operands[3], &residual = operands[4];
  // Unused bindings take any buffer (kernel.h).
  const std::vector<std::vector<vulkan::BufferRange>> bindings = {
      {input, input, input, v, input, v},
      {v, u, v, m, v, scratch},
      {m, m, bias, output, residual, m},
  };
  const kernels::KernelDispatch* steps[] = {&plan.input_transform, &plan.gemm, &plan.output_transform};
  std::vector<std::shared_ptr<const vulkan::ComputePipeline>> pipelines;
  for (const kernels::KernelDispatch* step : steps) {
    UNIVK_ASSIGN_OR_RETURN(auto pipeline, vulkan::get_or_create_pipeline(device, kernels::pipeline_desc(*step)));
    pipelines.push_back(std::move(pipeline));
  }
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::DescriptorPool::create(device, 3, 18));
  Status recorded;
  UNIVK_ASSIGN_OR_RETURN(auto times, time_work(
                                         device, counts,
                                         [&](VkCommandBuffer cmd) {
                                           vulkan::DispatchRecorder recorder(*device, cmd);
                                           for (size_t i = 0; i < 3 && recorded.ok(); ++i) {
                                             recorded = kernels::record_kernel(recorder, pool, *pipelines[i], *steps[i],
                                                                               bindings[i],
                                                                               "winograd step " + std::to_string(i));
                                           }
                                         },
                                         evict));
  UNIVK_RETURN_IF_ERROR(recorded);
  timing.gpu_ns = times.first;
  return timing;
}

}  // namespace univk::bench
