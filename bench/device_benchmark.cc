// Google Benchmark micro-benchmarks of the shared device runtime's hot paths (never run by the
// tests; timings are never asserted):
//   SubmitWait/threads:N   an empty command buffer through Queue::submit + Queue::wait, from N
//                          threads at once on one queue (the lock covers vkQueueSubmit alone,
//                          so waiting threads must not serialise each other's submits);
//   WriteDeviceLocal/T/bytes  a copy into a persistently mapped DEVICE_LOCAL|HOST_VISIBLE buffer
//                          (how fused mode takes program inputs), T memcpy or parallel_memcpy_N
//                          (at most N threads: fewer where parallel_copy.h's minimum allows);
//   WriteHost/T/bytes      the same into host memory (where the device has no such buffer);
//   ReadHost/T/bytes       a copy out of a mapped host-visible buffer (how outputs come back).
// The device is created in main, before the benchmarks run, and destroyed after them.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "univk/base/parallel_copy.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace {

using univk::vulkan::Buffer;
using univk::vulkan::CommandPool;
using univk::vulkan::Device;
using univk::vulkan::MemoryKind;

void submit_wait(benchmark::State& state, const std::shared_ptr<Device>& device) {
  // One pool per thread: command pools are never shared between threads.
  auto pool = CommandPool::create(device);
  if (!pool.ok()) return state.SkipWithError(pool.status().to_string().c_str());
  auto cmd = pool->allocate();
  if (!cmd.ok()) return state.SkipWithError(cmd.status().to_string().c_str());
  if (!univk::vulkan::begin_command_buffer(*device, *cmd).ok() ||
      !univk::vulkan::end_command_buffer(*device, *cmd).ok()) {
    return state.SkipWithError("recording an empty command buffer failed");
  }
  const VkCommandBuffer buffers[] = {*cmd};
  for (auto _ : state) {
    auto value = device->queue().submit(buffers);
    if (!value.ok()) return state.SkipWithError(value.status().to_string().c_str());
    if (!device->queue().wait(*value).ok()) return state.SkipWithError("Queue::wait failed");
  }
}

// memcpy (threads == 1) or univk::parallel_memcpy between host memory and mapped memory of `kind`.
void mapped_copy(benchmark::State& state, const std::shared_ptr<Device>& device, MemoryKind kind, bool write,
                 unsigned threads) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  auto buffer = Buffer::create(device, bytes, kind);
  if (!buffer.ok()) return state.SkipWithError(buffer.status().to_string().c_str());
  std::vector<uint8_t> host(bytes, 1);
  auto* mapped = static_cast<uint8_t*>(buffer->mapped());
  for (auto _ : state) {
    if (write) {
      univk::parallel_memcpy(mapped, host.data(), bytes, threads);
    } else {
      univk::parallel_memcpy(host.data(), mapped, bytes, threads);
    }
    benchmark::DoNotOptimize(host.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.SetLabel(buffer->device_local() ? "device-local" : "host memory");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  auto device = Device::create(univk::vulkan::RuntimeConfig::from_environment(), {});
  if (!device.ok()) {
    std::fprintf(stderr, "device_benchmark: %s\n", device.status().to_string().c_str());
    return 1;
  }
  std::shared_ptr<Device> dev = *device;
  benchmark::RegisterBenchmark("SubmitWait", [dev](benchmark::State& s) { submit_wait(s, dev); })
      ->ThreadRange(1, 4)
      ->UseRealTime();
  // Program inputs are written into device-local host-visible memory (a discrete GPU's BAR) or
  // host memory, outputs read from host memory; 1 thread (memcpy) against parallel_memcpy.
  struct Case {
    const char* name;
    MemoryKind kind;
    bool write;
  };
  for (const Case c :
       {Case{"WriteDeviceLocal", MemoryKind::kDeviceLocalHostVisible, true},
        Case{"WriteHost", MemoryKind::kHostVisible, true}, Case{"ReadHost", MemoryKind::kHostVisible, false}}) {
    // Sizes: small (one thread whatever the count), a batch-32 224x224 image input (19.3 MB),
    // then large ones.
    for (unsigned threads : {1u, 2u, 4u, 8u}) {
      const std::string name =
          std::string(c.name) + (threads == 1 ? "/memcpy" : "/parallel_memcpy_" + std::to_string(threads));
      benchmark::RegisterBenchmark(
          name.c_str(), [dev, c, threads](benchmark::State& s) { mapped_copy(s, dev, c.kind, c.write, threads); })
          ->Arg(64 << 10)
          ->Arg(4 << 20)
          ->Arg(32 * 3 * 224 * 224 * 4)
          ->Arg(64 << 20)
          ->Arg(1 << 30)
          ->UseRealTime();
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
