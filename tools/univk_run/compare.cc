#include "compare.h"

#include <cmath>

namespace univk::tools {

Comparison compare_tensors(const HostTensor& output, const HostTensor& reference, double atol, double rtol) {
  Comparison c;
  if (output.dtype() != reference.dtype() || output.shape() != reference.shape()) {
    c.problem = "output is " + output.describe() + ", reference is " + reference.describe();
    return c;
  }
  const bool exact = output.dtype() != DType::kFloat32 && output.dtype() != DType::kFloat16;
  for (int64_t i = 0; i < output.numel(); ++i) {
    const double a = output.element_as_double(static_cast<size_t>(i)),
                 b = reference.element_as_double(static_cast<size_t>(i));
    bool ok;
    if (std::isnan(a) || std::isnan(b)) {
      ok = std::isnan(a) && std::isnan(b);
    } else if (std::isinf(a) || std::isinf(b)) {
      ok = a == b;
    } else {
      const double err = std::fabs(a - b);
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (b != 0.0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(b));
      ok = exact ? a == b : err <= atol + rtol * std::fabs(b);
    }
    if (!ok) {
      if (c.mismatches == 0) c.first_mismatch = i;
      ++c.mismatches;
    }
  }
  c.match = c.mismatches == 0;
  return c;
}

}  // namespace univk::tools
