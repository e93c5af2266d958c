#include <string>

#include "univk/vulkan/device.h"

namespace univk::vulkan {

const char* vk_result_name(VkResult result) {
  switch (result) {
#define UNIVK_VK_RESULT_CASE(name) \
  case name:                       \
    return #name;
    UNIVK_VK_RESULT_CASE(VK_SUCCESS)
    UNIVK_VK_RESULT_CASE(VK_NOT_READY)
    UNIVK_VK_RESULT_CASE(VK_TIMEOUT)
    UNIVK_VK_RESULT_CASE(VK_EVENT_SET)
    UNIVK_VK_RESULT_CASE(VK_EVENT_RESET)
    UNIVK_VK_RESULT_CASE(VK_INCOMPLETE)
    UNIVK_VK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    UNIVK_VK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    UNIVK_VK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    UNIVK_VK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
    UNIVK_VK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    UNIVK_VK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    UNIVK_VK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    UNIVK_VK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    UNIVK_VK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    UNIVK_VK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    UNIVK_VK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    UNIVK_VK_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
    UNIVK_VK_RESULT_CASE(VK_ERROR_UNKNOWN)
    UNIVK_VK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    UNIVK_VK_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    UNIVK_VK_RESULT_CASE(VK_ERROR_FRAGMENTATION)
    UNIVK_VK_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    UNIVK_VK_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef UNIVK_VK_RESULT_CASE
    default:
      return "VK_RESULT_UNKNOWN";
  }
}

Status vk_status(VkResult result, const char* call) {
  std::string message = std::string(call) + " failed: " + vk_result_name(result);
  if (result == VK_SUCCESS) return ok_status();
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
      return out_of_memory(std::move(message));
    case VK_ERROR_DEVICE_LOST:
      return device_lost(std::move(message));
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_LAYER_NOT_PRESENT:
      return incompatible(std::move(message));
    case VK_TIMEOUT:
      return timeout_error(std::move(message));
    default:
      return internal_error(std::move(message));
  }
}

}  // namespace univk::vulkan
