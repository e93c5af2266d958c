// Output checking for univk-run: elementwise closeness of an output and a reference tensor.
#pragma once

#include <cstdint>
#include <string>

#include "univk/tensor/tensor.h"

namespace univk::tools {

struct Comparison {
  bool match = false;
  std::string problem;     // set when shapes/dtypes differ
  int64_t mismatches = 0;  // elements outside the tolerance
  int64_t first_mismatch = -1;
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;  // |a - b| / |b| over elements with b != 0
};

// Float tensors: |out - ref| <= atol + rtol * |ref| (NaN matches NaN, inf matches the same inf);
// integer and bool tensors: exact. Shapes and dtypes must be equal.
Comparison compare_tensors(const HostTensor& output, const HostTensor& reference, double atol, double rtol);

}  // namespace univk::tools
