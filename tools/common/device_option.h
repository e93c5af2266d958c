// --device INDEX|NAME (cli.h): checked before a tool loads anything, so an unknown device is a
// usage error naming the devices there are.
#pragma once

#include <string>

#include "univk/base/status.h"
#include "univk/vulkan/runtime_config.h"

namespace univk::tools {

// Sets config.device_selector to `selector` (when not empty) and checks that it picks a device:
// NotFound naming the devices (index and name) when no device matches, or the instance's error
// when Vulkan cannot start. Creates and destroys one VkInstance.
Status apply_device_option(const std::string& selector, vulkan::RuntimeConfig& config);

}  // namespace univk::tools
