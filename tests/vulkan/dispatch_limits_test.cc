// check_dispatch_groups: pure data, no GPU.
#include <gtest/gtest.h>

#include "univk/vulkan/dispatch_limits.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

VkPhysicalDeviceLimits limits_of(uint32_t x, uint32_t y, uint32_t z) {
  VkPhysicalDeviceLimits limits{};
  limits.maxComputeWorkGroupCount[0] = x;
  limits.maxComputeWorkGroupCount[1] = y;
  limits.maxComputeWorkGroupCount[2] = z;
  return limits;
}

TEST(DispatchLimits, CountsUpToTheLimitPass) {
  const auto limits = limits_of(65535, 65535, 65535);
  UNIVK_EXPECT_OK(check_dispatch_groups(limits, {65535, 65535, 65535}, "k"));
  UNIVK_EXPECT_OK(check_dispatch_groups(limits, {0, 1, 1}, "k"));
}

TEST(DispatchLimits, EachAxisBeyondItsLimitIsRefusedNamingItAndTheLimit) {
  const auto limits = limits_of(65535, 1024, 64);
  const std::pair<std::array<uint32_t, 3>, const char*> cases[] = {{{65536, 1, 1}, "in x"},
                                                                   {{1, 1025, 1}, "in y"},
                                                                   {{1, 1, 65}, "in z"},
                                                                   {{UINT32_MAX, UINT32_MAX, UINT32_MAX}, "in x"}};
  for (const auto& [groups, axis] : cases) {
    Status s = check_dispatch_groups(limits, groups, "dispatch ADD");
    ASSERT_FALSE(s.ok()) << axis;
    EXPECT_EQ(s.code(), StatusCode::kUnsupported);
    EXPECT_NE(s.message().find("dispatch ADD"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("maxComputeWorkGroupCount [65535, 1024, 64]"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(axis), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace univk::vulkan
