#include "operand_fill.h"

#include <string>

#include "gpu_timing.h"
#include "split_mix64.h"
#include "univk/tensor/dtype.h"
#include "univk/vulkan/command.h"

namespace univk::bench {

Status fill_uniform(const vulkan::DeviceLease& device, const vulkan::BufferRange& range, uint64_t seed,
                    FillFormat format) {
  const uint64_t element = format == FillFormat::kFloat32 ? sizeof(float) : sizeof(uint16_t);
  if (range.size % element != 0) {
    return invalid_argument("fill_uniform: " + std::to_string(range.size) + " bytes is not a whole number of " +
                            std::to_string(element) + "-byte values");
  }
  UNIVK_ASSIGN_OR_RETURN(auto staging, vulkan::Buffer::create(device, range.size, vulkan::MemoryKind::kHostVisible));
  SplitMix64 rng(seed);
  if (format == FillFormat::kFloat32) {
    auto* values = static_cast<float*>(staging.mapped());
    for (uint64_t i = 0; i < range.size / element; ++i) values[i] = rng.uniform();
  } else {
    auto* values = static_cast<uint16_t*>(staging.mapped());
    for (uint64_t i = 0; i < range.size / element; ++i) values[i] = float_to_half(rng.uniform());
  }
  UNIVK_RETURN_IF_ERROR(staging.flush_host_writes());
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  vulkan::record_copy(*device, cmd, staging.range(), range);
  vulkan::record_full_barrier(*device, cmd);
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  return submit_and_wait(device->queue(), cmd).status();
}

}  // namespace univk::bench
