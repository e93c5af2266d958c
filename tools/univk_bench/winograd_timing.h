// univk-kernel-bench's Winograd rows: a convolution's three Winograd dispatches (input
// transform, batched GEMM, output transform; kernels/winograd.h) recorded in one command buffer
// and timed together, over the workload's own operands.
#pragma once

#include <cstdint>
#include <span>

#include "gpu_timing.h"
#include "univk/kernels/winograd.h"
#include "univk/vulkan/buffer.h"

namespace univk::bench {

struct WinogradTiming {
  kernels::WinogradPlan plan;
  Summary gpu_ns;  // the three dispatches together
};

// Times `problem` as Winograd with output tiles of `tile` on `device` (`traits` its traits, the
// precision included). `operands` are the workload's bindings 0..4 (input, weight, bias, output,
// residual); the transformed weight U, V, M and the GEMM's scratch are allocated here (U filled
// with seeded random values: the timing does not depend on them). Errors of plan_winograd, of
// allocation and of recording; Unsupported when V, M or U exceeds the device's binding limit.
Result<WinogradTiming> time_winograd(const vulkan::DeviceLease& device, const kernels::DeviceTraits& traits,
                                     const kernels::Conv2dProblem& problem, int64_t tile,
                                     std::span<const vulkan::BufferRange> operands, RepeatCounts counts,
                                     const vulkan::BufferRange* evict);

}  // namespace univk::bench
