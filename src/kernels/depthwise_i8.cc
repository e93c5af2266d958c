#include <string>

#include "tiling.h"
#include "univk/kernels/conv2d_i8.h"

namespace univk::kernels {

namespace {

constexpr uint32_t kPositions = 4;     // depthwise_i8.comp's TM
constexpr uint32_t kInvocations = 64;  // its local_size_x

}  // namespace

bool takes_depthwise_i8(const Conv2dI8Problem& problem) {
  const Conv2dProblem& p = problem.conv;
  return p.groups > 0 && p.groups == p.in_channels && p.groups == p.out_channels && p.groups % 4 == 0;
}

Result<KernelDispatch> plan_depthwise_i8(const Conv2dI8Problem& problem, const DeviceTraits& device) {
  if (!takes_depthwise_i8(problem)) {
    return unsupported("the int8 depthwise kernel takes groups = input channels = output channels, a multiple of 4");
  }
  // The plain kernel's plan checks the problem and fills the push constants and the epilogue's
  // FLAGS, which this kernel shares; its load flags are the plain kernel's and are redone here.
  UNIVK_ASSIGN_OR_RETURN(KernelDispatch d, plan_conv2d_i8(problem, device, false));
  uint32_t flags =
      detail::specialization_value(d, kI8FlagsConstant) & ~(kI8FlagAlignedK | kI8FlagWordsIn | kI8FlagWordsWeight);
  const Conv2dProblem& p = problem.conv;
  d.vector_access.clear();
  if (detail::int8_input_words(p)) {
    flags |= kI8FlagWordsIn;
    d.vector_access.push_back({0b1u, kI8FlagsConstant, kI8FlagWordsIn});
  }
  if (p.weight.oc == 1 && detail::aligned4({int64_t(p.weight_offset), p.weight.tap})) {
    flags |= kI8FlagWordsWeight;
    d.vector_access.push_back({0b10u, kI8FlagsConstant, kI8FlagWordsWeight});
  }
  const int64_t quads = p.groups / 4, m = p.batch * p.out_h * p.out_w;
  const int64_t gx = ((m + kPositions - 1) / kPositions * quads + kInvocations - 1) / kInvocations;
  if (gx > device.max_group_count[0]) {
    return unsupported("int8 depthwise grid " + std::to_string(gx) + " exceeds the device's workgroup count " +
                       std::to_string(device.max_group_count[0]));
  }
  d.kernel = Kernel::kDepthwiseI8;
  d.groups = {uint32_t(gx), 1, 1};
  d.specialization = {{kI8FlagsConstant, flags}, {kI8TmConstant, kPositions}, {kDwI8QuadsConstant, uint32_t(quads)}};
  return d;
}

}  // namespace univk::kernels
