#include "univk/vulkan/arena_plan.h"

#include <algorithm>
#include <numeric>

namespace univk::vulkan {
namespace {

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) & ~(alignment - 1); }

bool lifetimes_overlap(const ArenaRequest& a, const ArenaRequest& b) { return a.first <= b.last && b.first <= a.last; }

}  // namespace

ArenaPlan plan_arena(std::span<const ArenaRequest> requests, uint64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(requests.size(), 0);
  // Bytes a request occupies: its size rounded up, so the next offset is aligned.
  auto footprint = [&](size_t i) { return align_up(std::max<uint64_t>(requests[i].size, 1), alignment); };
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].size > requests[b].size; });

  std::vector<size_t> placed;
  for (size_t index : order) {
    // Placed requests alive at the same time, by offset.
    std::vector<size_t> live;
    for (size_t other : placed) {
      if (lifetimes_overlap(requests[index], requests[other])) live.push_back(other);
    }
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    // The lowest gap that fits.
    const uint64_t size = footprint(index);
    uint64_t offset = 0;
    for (size_t other : live) {
      if (offset + size <= plan.offsets[other]) break;
      offset = std::max(offset, plan.offsets[other] + footprint(other));
    }
    plan.offsets[index] = offset;
    plan.total = std::max(plan.total, offset + size);
    placed.push_back(index);
  }
  return plan;
}

}  // namespace univk::vulkan
