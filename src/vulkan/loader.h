// Process-wide Vulkan loader entry points, loaded once through volk. Only the loader-level
// functions (vkCreateInstance, vkEnumerateInstance*, vkGetInstanceProcAddr) and
// vkGetDeviceProcAddr (used by volkLoadDeviceTable) are process-global; every instance and
// device function goes through the Instance's or Device's own table.
#pragma once

#include "univk/base/status.h"

namespace univk::vulkan {

// Loads libvulkan once (thread-safe); later calls return the first call's result.
Status ensure_loader();

}  // namespace univk::vulkan
