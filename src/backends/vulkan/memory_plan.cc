#include "memory_plan.h"

#include <algorithm>
#include <numeric>

namespace univk::backends::vulkan {

MemoryPlan plan_memory(const std::vector<Lifetime>& buffers, uint64_t alignment) {
  auto align_up = [alignment](uint64_t v) { return (v + alignment - 1) & ~(alignment - 1); };
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return buffers[a].size > buffers[b].size; });
  std::vector<size_t> placed;
  for (size_t i : order) {
    const Lifetime& cur = buffers[i];
    const uint64_t size = align_up(std::max<uint64_t>(cur.size, 1));
    // Placed buffers alive at the same time, by offset: take the first gap that fits.
    std::vector<size_t> live;
    for (size_t j : placed) {
      if (buffers[j].first <= cur.last && cur.first <= buffers[j].last) live.push_back(j);
    }
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    uint64_t offset = 0;
    for (size_t j : live) {
      if (plan.offsets[j] >= offset + size) break;
      offset = std::max(offset, align_up(plan.offsets[j] + std::max<uint64_t>(buffers[j].size, 1)));
    }
    plan.offsets[i] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + size);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace univk::backends::vulkan
