#include "univk/tensor/host_allocation.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace univk {
namespace {

constexpr size_t kAlignment = 64;

// Allocations counted since the last fail_nth_host_allocation_for_testing call, and the one to
// fail (0: none).
std::atomic<uint64_t> counted_allocations{0};
std::atomic<uint64_t> allocation_to_fail{0};

bool injected_failure() {
  const uint64_t n = counted_allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  uint64_t armed = allocation_to_fail.load(std::memory_order_relaxed);
  return armed != 0 && n == armed && allocation_to_fail.compare_exchange_strong(armed, 0);
}

[[noreturn]] void throw_allocation_error(size_t bytes, DType dtype, const Shape& shape) {
  throw HostAllocationError("cannot allocate " + std::to_string(bytes) + " bytes of host memory for " +
                            std::string(dtype_name(dtype)) + shape.to_string());
}

}  // namespace

uint8_t* allocate_host_tensor_bytes(size_t bytes, DType dtype, const Shape& shape) {
  if (bytes > SIZE_MAX - kAlignment) throw_allocation_error(bytes, dtype, shape);
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  auto* p = injected_failure() ? nullptr : static_cast<uint8_t*>(std::aligned_alloc(kAlignment, rounded));
  if (p == nullptr) throw_allocation_error(bytes, dtype, shape);
  std::memset(p, 0, rounded);
  return p;
}

uint64_t fail_nth_host_allocation_for_testing(uint64_t n) {
  allocation_to_fail.store(0);
  const uint64_t counted = counted_allocations.exchange(0);
  allocation_to_fail.store(n);
  return counted;
}

}  // namespace univk
