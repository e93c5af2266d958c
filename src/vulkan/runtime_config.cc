#include "univk/vulkan/runtime_config.h"

#include <cstdlib>
#include <cstring>

namespace univk::vulkan {

RuntimeConfig RuntimeConfig::from_environment() {
  RuntimeConfig config;
  const char* validation = std::getenv("UNIVK_VALIDATION");
  config.enable_validation = validation != nullptr && std::strcmp(validation, "1") == 0;
  if (const char* device = std::getenv("UNIVK_DEVICE")) config.device_selector = device;
  return config;
}

}  // namespace univk::vulkan
