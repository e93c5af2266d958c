#include "univk/base/parallel_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

namespace univk {

namespace {

// Each thread copies at least this much, so threads are not started for slivers.
constexpr size_t kMinBytesPerThread = kParallelCopyMinBytes / 2;
// Chunk boundaries are page aligned (relative to the start of the copy).
constexpr size_t kChunkAlignment = 4096;

}  // namespace

void parallel_memcpy(void* dst, const void* src, size_t bytes, unsigned max_threads) {
  if (max_threads == 0) max_threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  const size_t by_size = bytes / kMinBytesPerThread;
  const unsigned threads = static_cast<unsigned>(std::min<size_t>(max_threads, std::max<size_t>(by_size, 1)));
  if (bytes < kParallelCopyMinBytes || threads <= 1) {
    if (bytes != 0) std::memcpy(dst, src, bytes);
    return;
  }
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  const size_t per_thread = (bytes + threads - 1) / threads;
  const size_t chunk = (per_thread + kChunkAlignment - 1) / kChunkAlignment * kChunkAlignment;
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  size_t caller_begin = 0;  // the caller copies [caller_begin, bytes): its own chunk and any unstarted ones
  for (unsigned t = 1; t < threads; ++t) {
    const size_t begin = t * chunk;
    if (begin >= bytes) break;
    const size_t size = std::min(chunk, bytes - begin);
    try {
      workers.emplace_back([=] { std::memcpy(out + begin, in + begin, size); });
    } catch (const std::system_error&) {
      caller_begin = begin;  // no more threads: the caller copies from here on
      break;
    }
  }
  std::memcpy(out, in, std::min(chunk, bytes));
  if (caller_begin != 0) std::memcpy(out + caller_begin, in + caller_begin, bytes - caller_begin);
  for (std::thread& w : workers) w.join();
}

}  // namespace univk
