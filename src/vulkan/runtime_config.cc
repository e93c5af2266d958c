#include "univk/vulkan/runtime_config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <optional>
#include <string>

#include "univk/base/logging.h"

namespace univk::vulkan {
namespace {

// The variable as a whole non-negative decimal number; nothing when unset or malformed (logged).
std::optional<uint64_t> non_negative_integer(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || errno == ERANGE) {
    UNIVK_LOG(kWarning) << name << "='" << text << "' is not a non-negative integer; using the default";
    return std::nullopt;
  }
  return static_cast<uint64_t>(value);
}

}  // namespace

RuntimeConfig RuntimeConfig::from_environment() {
  RuntimeConfig config;
  const char* validation = std::getenv("UNIVK_VALIDATION");
  config.enable_validation = validation != nullptr && std::strcmp(validation, "1") == 0;
  if (const char* device = std::getenv("UNIVK_DEVICE")) config.device_selector = device;
  if (auto us = non_negative_integer("UNIVK_WAIT_SPIN_US")) config.wait_spin_us = static_cast<int64_t>(*us);
  if (auto ms = non_negative_integer("UNIVK_EXECUTE_TIMEOUT_MS")) config.execute_timeout_ms = static_cast<int64_t>(*ms);
  if (const char* layers = std::getenv("UNIVK_INSTANCE_LAYERS")) {
    std::string list = layers;
    for (size_t start = 0; start <= list.size();) {
      const size_t end = std::min(list.find(':', start), list.size());
      if (end > start) config.instance_layers.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  return config;
}

}  // namespace univk::vulkan
