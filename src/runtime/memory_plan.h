// Arena planning for fused mode: values whose lifetimes do not overlap share memory. Pure data,
// unit-tested without a GPU (tests/runtime/memory_plan_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace univk::runtime {

// One tensor that lives in the arena from instruction `first` to instruction `last` (inclusive).
struct ArenaRequest {
  uint64_t size = 0;
  size_t first = 0;
  size_t last = 0;
};

struct ArenaPlan {
  std::vector<uint64_t> offsets;  // per request, multiples of the alignment
  uint64_t total = 0;             // bytes of the arena
};

// Greedy best-fit: requests in order of decreasing size, each at the lowest aligned offset that
// overlaps no already-placed request with an overlapping lifetime. `alignment` must be a power
// of two. Sizes must be small enough that offset + size cannot overflow (the loader caps values).
ArenaPlan plan_arena(std::span<const ArenaRequest> requests, uint64_t alignment);

}  // namespace univk::runtime
