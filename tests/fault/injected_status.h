// The StatusCode univk must return for each VkResult the fault-injection tests inject, written
// out independently of univk's own mapping (vk_status) so the tests check that mapping.
#pragma once

#include <vulkan/vulkan_core.h>

#include "univk/base/status.h"

namespace univk::fault_testing {

inline StatusCode expected_code(VkResult result) {
  switch (result) {
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return StatusCode::kOutOfMemory;
    case VK_ERROR_DEVICE_LOST:
      return StatusCode::kDeviceLost;
    default:
      return StatusCode::kInternal;
  }
}

}  // namespace univk::fault_testing
