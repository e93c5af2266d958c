// DeviceTraits from a device's properties: the CPU worker threads the CPU tiling model assumes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "univk/kernels/kernel.h"

namespace univk::kernels {
namespace {

// Sets LP_NUM_THREADS for the scope (unset with nullopt), restoring the caller's value after.
class ScopedThreadsVariable {
 public:
  explicit ScopedThreadsVariable(std::optional<std::string> value) {
    if (const char* old = std::getenv(kName)) old_ = old;
    if (value) {
      setenv(kName, value->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }
  ~ScopedThreadsVariable() {
    if (old_) {
      setenv(kName, old_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }

 private:
  static constexpr const char* kName = "LP_NUM_THREADS";
  std::optional<std::string> old_;
};

uint32_t cpu_threads(std::optional<std::string> variable, VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_CPU) {
  ScopedThreadsVariable scoped(std::move(variable));
  VkPhysicalDeviceProperties properties{};
  properties.deviceType = type;
  return device_traits(properties).cpu_threads;
}

TEST(DeviceTraits, CpuThreadsCountAsLavapipeDoes) {
  const uint32_t host = std::clamp(std::thread::hardware_concurrency(), 1u, 32u);
  EXPECT_EQ(cpu_threads(std::nullopt), host);
  // LP_NUM_THREADS as strtoll in base 0 reads it, trailing text allowed; 1 to 32 threads.
  EXPECT_EQ(cpu_threads("4"), 4u);
  EXPECT_EQ(cpu_threads("4 "), 4u);
  EXPECT_EQ(cpu_threads("0x8"), 8u);
  EXPECT_EQ(cpu_threads("0"), 1u);  // lavapipe then runs on the caller's thread
  EXPECT_EQ(cpu_threads("-1"), 1u);
  EXPECT_EQ(cpu_threads("64"), 32u);
  EXPECT_EQ(cpu_threads("many"), host);
  // GPUs: one, whatever the variable says.
  EXPECT_EQ(cpu_threads("4", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU), 1u);
}

}  // namespace
}  // namespace univk::kernels
