// Any problem of the kernel library, for the backends that keep lowered work as data and plan
// it for a device later (the device's traits are known only at init). Pure data; thread-safe.
#pragma once

#include <variant>

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/conv2d_i8.h"
#include "univk/kernels/conv_transpose2d.h"
#include "univk/kernels/depthwise.h"
#include "univk/kernels/gemm.h"

namespace univk::kernels {

using Problem =
    std::variant<std::monostate, GemmProblem, Conv2dProblem, DepthwiseProblem, ConvTranspose2dProblem, Conv2dI8Problem>;

// plan_gemm / plan_conv2d / plan_depthwise / plan_conv_transpose2d / plan_conv2d_i8 of the problem held;
// InvalidArgument for none.
Result<KernelDispatch> plan(const Problem& problem, const DeviceTraits& device);

}  // namespace univk::kernels
