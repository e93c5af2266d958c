// Seeded random contents for the benchmarks' operand buffers. Tensor cores and FMA units draw
// less power on zeros (what fresh device memory holds), and a GPU at its power limit clocks by
// what it draws, so kernels and floors timed on zeros run faster than on a model's data.
#pragma once

#include <cstdint>

#include "univk/base/status.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/registry.h"

namespace univk::bench {

enum class FillFormat { kFloat32, kFloat16 };

// Writes `range` (whole elements of `format`) with values uniform in [-1, 1) from `seed`,
// through a host-visible staging buffer and one GPU copy, and waits for the copy.
Status fill_uniform(const vulkan::DeviceLease& device, const vulkan::BufferRange& range, uint64_t seed,
                    FillFormat format = FillFormat::kFloat32);

}  // namespace univk::bench
