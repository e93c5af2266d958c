// vulkan::plan_arena, the one arena planner (fused method arena, VulkanBackend intermediates,
// VgfBackend scratch). Pure data: no GPU.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "univk/vulkan/arena_plan.h"

namespace univk::vulkan {
namespace {

// No two requests that are alive together share a byte; every offset is aligned; the total
// covers every request.
void expect_valid(const std::vector<ArenaRequest>& requests, const ArenaPlan& plan, uint64_t alignment) {
  ASSERT_EQ(plan.offsets.size(), requests.size());
  EXPECT_EQ(plan.total % alignment, 0u);
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % alignment, 0u);
    EXPECT_LE(plan.offsets[i] + requests[i].size, plan.total);
    for (size_t j = i + 1; j < requests.size(); ++j) {
      const bool live_together = requests[i].first <= requests[j].last && requests[j].first <= requests[i].last;
      const bool alias =
          plan.offsets[i] < plan.offsets[j] + requests[j].size && plan.offsets[j] < plan.offsets[i] + requests[i].size;
      EXPECT_FALSE(live_together && alias) << i << " and " << j;
    }
  }
}

TEST(ArenaPlan, DisjointLifetimesShareMemory) {
  // a: [0,1], b: [1,2], c: [2,3] -> a and c can share; b overlaps both.
  const std::vector<ArenaRequest> requests = {{100, 0, 1}, {64, 1, 2}, {100, 2, 3}};
  const ArenaPlan plan = plan_arena(requests, 16);
  expect_valid(requests, plan, 16);
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.total, 112u + 64u);
}

TEST(ArenaPlan, ChainReusesBytes) {
  // a: steps 0-1, b: 1-2, c: 2-3 (overlaps b, not a), d: 3-3.
  const std::vector<ArenaRequest> requests = {{100, 0, 1}, {200, 1, 2}, {100, 2, 3}, {50, 3, 3}};
  const ArenaPlan plan = plan_arena(requests, 64);
  expect_valid(requests, plan, 64);
  EXPECT_LE(plan.total, 256u + 128u);  // b and c side by side; a and d reuse their bytes
  EXPECT_LT(plan.total, 100u + 200u + 100u + 64u);
}

TEST(ArenaPlan, OverlappingLifetimesNeverAlias) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ArenaRequest> requests;
    const int count = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < count; ++i) {
      const size_t first = rng() % 10;
      requests.push_back({1 + rng() % 1000, first, first + rng() % 4});
    }
    const uint64_t alignment = uint64_t{4} << (rng() % 7);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expect_valid(requests, plan_arena(requests, alignment), alignment);
  }
}

TEST(ArenaPlan, EmptySingleAndZeroSized) {
  EXPECT_EQ(plan_arena({}, 16).total, 0u);
  const std::vector<ArenaRequest> one = {{5, 0, 0}};
  EXPECT_EQ(plan_arena(one, 256).total, 256u);
  // Zero-sized requests still get addresses of their own while alive together.
  const std::vector<ArenaRequest> empty_pair = {{0, 0, 1}, {0, 1, 1}};
  const ArenaPlan plan = plan_arena(empty_pair, 16);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.total, 32u);
}

}  // namespace
}  // namespace univk::vulkan
