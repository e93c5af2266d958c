// A CONV2D lowered to Winograd F(m x m, 3x3) (kernels/winograd.h) where kernels::winograd_tile
// takes it: three dispatches, the input transform into a scratch value V, the batched GEMM into a
// scratch value M, and the output transform with the convolution's epilogue. The transformed
// weight U is computed on the host from the constant weight and appended to the constant blob.
// Pure: no Vulkan calls.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dispatch_plan.h"
#include "univk/base/status.h"
#include "univk/kernels/kernel.h"

namespace univk::backends::vgf {

// Scratch ids (StorageRef::resource of kScratch views) for V and M, distinct from every other.
struct WinogradScratchIds {
  uint32_t v = 0, m = 0;
};

// The three dispatches replacing kernel-library dispatch `conv` (a Conv2dProblem with offsets 0
// over its views: inputs input, weight, bias and maybe the residual), or nullopt when it stays on
// the implicit GEMM: Winograd not chosen for `device`, or a weight that is not a packed fp32
// constant in `constant_blob`. The GEMM dispatch carries its GemmProblem and plan; the caller
// gives it kernel scratch where the plan needs some.
Result<std::optional<std::vector<Dispatch>>> lower_winograd(const Dispatch& conv, const kernels::DeviceTraits& device,
                                                            std::vector<uint8_t>& constant_blob,
                                                            WinogradScratchIds ids);

}  // namespace univk::backends::vgf
