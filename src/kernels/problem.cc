#include "univk/kernels/problem.h"

namespace univk::kernels {

Result<KernelDispatch> plan(const Problem& problem, const DeviceTraits& device) {
  if (const auto* gemm = std::get_if<GemmProblem>(&problem)) return plan_gemm(*gemm, device);
  if (const auto* conv = std::get_if<Conv2dProblem>(&problem)) return plan_conv2d(*conv, device);
  return invalid_argument("no kernel problem to plan");
}

}  // namespace univk::kernels
