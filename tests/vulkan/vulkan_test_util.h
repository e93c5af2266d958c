// Helpers shared by the src/vulkan tests: a validation-on config, and a one-pipeline compute job
// (pipeline, descriptor set, command pool and buffer) for dispatching the test shaders.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/pipeline.h"
#include "univk/vulkan/queue.h"
#include "univk/vulkan/registry.h"
#include "univk_vulkan_test_util_shaders.h"

namespace univk::vulkan::testing {

// The environment's config with validation forced on: every test runs under the layer.
RuntimeConfig test_config();

// One compute pipeline whose set 0 binds `buffers` as storage buffers 0..n-1, with its own
// descriptor pool, command pool and command buffer (one job per thread: never shared).
struct ComputeJob {
  DeviceLease device;
  ComputePipeline pipeline;
  DescriptorPool descriptors;
  VkDescriptorSet set = VK_NULL_HANDLE;
  CommandPool commands;
  VkCommandBuffer cmd = VK_NULL_HANDLE;

  static Result<ComputeJob> create(DeviceLease device, std::span<const uint32_t> spirv,
                                   const std::vector<BufferRange>& buffers, uint32_t push_constant_bytes,
                                   const std::string& name);
  // (Re-)records cmd: bind, push constants, dispatch(groups), then a barrier making the shader's
  // writes visible to the host.
  Status record(std::span<const uint8_t> push_constants, uint32_t groups);
  Result<uint64_t> submit(uint64_t wait_value = 0) { return device->queue().submit({&cmd, 1}, wait_value); }
};

template <typename T>
std::span<const uint8_t> bytes_of(const T& value) {
  return {reinterpret_cast<const uint8_t*>(&value), sizeof(T)};
}

// Dispatches fill.comp over `n` uints with `base` on `device`, waits and checks every value
// (Internal naming the first wrong element).
Status run_fill_check(const DeviceLease& device, uint32_t n, uint32_t base);

// scale_add.comp (y = x * -2 + 1) over `n` floats in device-local buffers, in two submissions:
// the upload copy, then (waiting on it through the timeline) a buffer barrier, the dispatch, a
// full barrier, the readback copy and a host-read barrier. Checks every output. Exercises
// record_* on whichever barrier path the device uses (synchronization2 or legacy).
Status run_staged_scale_add_check(const DeviceLease& device, uint32_t n);

// What spin.comp computes: x -> x * 1664525 + 1013904223 applied `iterations` times.
uint32_t lcg_iterate(uint32_t x, uint32_t iterations);

}  // namespace univk::vulkan::testing
