// parallel_memcpy copies every byte exactly once, whatever the size, thread count and alignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "univk/base/parallel_copy.h"

namespace univk {
namespace {

std::vector<uint8_t> pattern(size_t bytes, uint32_t seed) {
  std::vector<uint8_t> v(bytes);
  uint32_t x = seed;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

TEST(ParallelCopy, CopiesEveryByteForManySizesAndThreadCounts) {
  // Below, at and above the parallel threshold, sizes that do not divide into pages or threads,
  // and an unaligned start.
  const size_t sizes[] = {0,
                          1,
                          4095,
                          kParallelCopyMinBytes - 1,
                          kParallelCopyMinBytes,
                          kParallelCopyMinBytes + 4097,
                          3 * kParallelCopyMinBytes + 13};
  const auto src = pattern(3 * kParallelCopyMinBytes + 64, 7);
  for (size_t bytes : sizes) {
    for (unsigned threads : {0u, 1u, 2u, 3u, 8u}) {
      for (size_t offset : {size_t{0}, size_t{3}}) {
        SCOPED_TRACE(testing::Message() << bytes << " bytes, " << threads << " threads, offset " << offset);
        std::vector<uint8_t> dst(bytes + 2 * offset + 1, 0xAB);
        parallel_memcpy(dst.data() + offset, src.data() + offset, bytes, threads);
        for (size_t i = 0; i < offset; ++i) ASSERT_EQ(dst[i], 0xAB) << "wrote before the destination";
        ASSERT_EQ(std::memcmp(dst.data() + offset, src.data() + offset, bytes), 0);
        ASSERT_EQ(dst[offset + bytes], 0xAB) << "wrote past the destination";
      }
    }
  }
}

}  // namespace
}  // namespace univk
