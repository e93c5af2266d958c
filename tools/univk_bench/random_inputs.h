// Random inputs for a method, from a fixed seed (the same seed gives the same bytes).
#pragma once

#include <cstdint>
#include <vector>

#include "univk/runtime/program.h"

namespace univk::bench {

// Floats uniform in [-1, 1); integers uniform in [-8, 8] ([0, 8] for unsigned, {0, 1} for bool).
std::vector<HostTensor> random_inputs(const std::vector<runtime::TensorInfo>& infos, uint64_t seed);

}  // namespace univk::bench
