#include "univk/vulkan/dispatch_limits.h"

#include <string>

namespace univk::vulkan {

namespace {

std::string triple(const uint32_t* v) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]";
}

}  // namespace

Status check_dispatch_groups(const VkPhysicalDeviceLimits& limits, const std::array<uint32_t, 3>& groups,
                             std::string_view what) {
  static constexpr const char* kAxis[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d)
    if (groups[d] > limits.maxComputeWorkGroupCount[d])
      return unsupported(std::string(what) + ": dispatch of " + triple(groups.data()) +
                         " workgroups exceeds the device's maxComputeWorkGroupCount " +
                         triple(limits.maxComputeWorkGroupCount) + " in " + kAxis[d]);
  return ok_status();
}

}  // namespace univk::vulkan
