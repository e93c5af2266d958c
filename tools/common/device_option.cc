#include "device_option.h"

#include "univk/vulkan/device.h"

namespace univk::tools {

Status apply_device_option(const std::string& selector, vulkan::RuntimeConfig& config) {
  if (selector.empty()) return ok_status();
  config.device_selector = selector;
  UNIVK_ASSIGN_OR_RETURN(auto instance, vulkan::Instance::create(config));
  return instance->select_physical_device(selector).status().with_context("--device " + selector);
}

}  // namespace univk::tools
