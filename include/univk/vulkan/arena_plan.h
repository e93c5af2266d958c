// Arena planning: byte offsets in one buffer for tensors with known lifetimes, so that tensors
// whose lifetimes overlap never share a byte and all others may. Used for the fused method's
// arena (values passed between delegates), the VulkanBackend's intermediates and the VgfBackend's
// per-segment scratch. Pure data: no Vulkan calls, tested without a GPU
// (tests/vulkan/arena_plan_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace univk::vulkan {

// One tensor that lives in the arena from step `first` to step `last` (inclusive). A step is
// whatever the caller orders work by: an instruction, a dispatch, a kernel.
struct ArenaRequest {
  uint64_t size = 0;  // bytes; 0 is treated as 1 so every request has an address of its own
  size_t first = 0;
  size_t last = 0;
};

struct ArenaPlan {
  std::vector<uint64_t> offsets;  // per request, multiples of the alignment
  uint64_t total = 0;             // bytes of the arena, a multiple of the alignment (0 when empty)
};

// Greedy best-fit: requests in order of decreasing size (ties in request order), each at the
// lowest aligned offset that overlaps no already-placed request with an overlapping lifetime.
// Simple and close to optimal for the chain-shaped graphs delegates and methods have.
// `alignment` must be a power of two. Sizes must be small enough that offset + size cannot
// overflow (loaders cap tensor sizes long before).
ArenaPlan plan_arena(std::span<const ArenaRequest> requests, uint64_t alignment);

}  // namespace univk::vulkan
