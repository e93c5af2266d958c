#include "univk/vulkan/runtime_config.h"

#include <cstdlib>
#include <cstring>

namespace univk::vulkan {

RuntimeConfig RuntimeConfig::from_environment() {
  RuntimeConfig config;
  const char* validation = std::getenv("UNIVK_VALIDATION");
  config.enable_validation = validation != nullptr && std::strcmp(validation, "1") == 0;
  if (const char* device = std::getenv("UNIVK_DEVICE")) config.device_selector = device;
  if (const char* spin = std::getenv("UNIVK_WAIT_SPIN_US")) {
    char* end = nullptr;
    const long long us = std::strtoll(spin, &end, 10);
    // Ignored unless a whole non-negative number (a bad value keeps the automatic default).
    if (end != spin && *end == '\0' && us >= 0) config.wait_spin_us = us;
  }
  return config;
}

}  // namespace univk::vulkan
