// Offsets for buffers with known lifetimes in one arena: buffers whose lifetimes overlap never
// share bytes, all others may. Greedy by size (largest first, lowest offset that fits), which
// is simple and close to optimal for the chain-shaped graphs delegates get. Pure data.
#pragma once

#include <cstdint>
#include <vector>

namespace univk::backends::vulkan {

struct Lifetime {
  uint64_t size = 0;   // bytes
  uint32_t first = 0;  // first step that touches the buffer
  uint32_t last = 0;   // last step that touches it (inclusive)
};

struct MemoryPlan {
  std::vector<uint64_t> offsets;  // one per Lifetime, multiples of the alignment
  uint64_t total_bytes = 0;       // arena size
};

// `alignment` must be a power of two.
MemoryPlan plan_memory(const std::vector<Lifetime>& buffers, uint64_t alignment);

}  // namespace univk::backends::vulkan
