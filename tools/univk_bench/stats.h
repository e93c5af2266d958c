// Summary statistics of timing samples (latencies, GPU times) for univk-bench.
#pragma once

#include <cstddef>
#include <vector>

namespace univk::bench {

struct Summary {
  size_t count = 0;
  double min = 0, p50 = 0, p90 = 0, mean = 0, max = 0;
};

// Percentiles by linear interpolation between the sorted samples (p50 of {1,2,3,4} is 2.5).
// All zero for no samples.
Summary summarize(std::vector<double> samples);

}  // namespace univk::bench
