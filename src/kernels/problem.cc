#include "univk/kernels/problem.h"

namespace univk::kernels {

Result<KernelDispatch> plan(const Problem& problem, const DeviceTraits& device) {
  if (const auto* gemm = std::get_if<GemmProblem>(&problem)) return plan_gemm(*gemm, device);
  if (const auto* conv = std::get_if<Conv2dProblem>(&problem)) return plan_conv2d(*conv, device);
  if (const auto* dw = std::get_if<DepthwiseProblem>(&problem)) return plan_depthwise(*dw, device);
  if (const auto* ct = std::get_if<ConvTranspose2dProblem>(&problem)) return plan_conv_transpose2d(*ct, device);
  if (const auto* i8 = std::get_if<Conv2dI8Problem>(&problem)) return plan_conv2d_i8(*i8, device);
  return invalid_argument("no kernel problem to plan");
}

}  // namespace univk::kernels
