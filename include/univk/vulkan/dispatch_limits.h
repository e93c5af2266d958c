// Device limits on one compute dispatch. Every delegate checks each dispatch it plans or records
// against them at load, so a dispatch the device cannot run (or one that would never finish) is
// refused with an error instead of being recorded. Pure: reads limits only, no Vulkan calls.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <vulkan/vulkan_core.h>

#include "univk/base/status.h"

namespace univk::vulkan {

// Unsupported naming `what`, the group counts and the limit when a count exceeds
// maxComputeWorkGroupCount in its dimension. Zero counts are valid (an empty dispatch).
Status check_dispatch_groups(const VkPhysicalDeviceLimits& limits, const std::array<uint32_t, 3>& groups,
                             std::string_view what);

}  // namespace univk::vulkan
