// parallel_memcpy: memcpy that splits copies of tens of megabytes over several threads.
//
// Program inputs and outputs are copied between the caller's tensors and mapped Vulkan memory on
// every execute. One thread copies a few GB/s (on the H200 host, into the GPU's BAR, 9-19
// GB/s), so a batch-32 ResNet input (19.3 MB) costs 1-2 ms on one thread; several threads share
// the work. Small copies stay on the calling thread: starting a thread costs tens of
// microseconds.
#pragma once

#include <cstddef>

namespace univk {

// Copies below this size run on the calling thread; above it, each thread copies at least half
// of it.
inline constexpr size_t kParallelCopyMinBytes = size_t{4} << 20;

// Same contract as std::memcpy (no overlap). Uses up to `max_threads` threads in total (the
// caller's included; 0 means min(std::thread::hardware_concurrency(), 8)); falls back to the
// calling thread for whatever a thread cannot be started for.
void parallel_memcpy(void* dst, const void* src, size_t bytes, unsigned max_threads = 0);

}  // namespace univk
