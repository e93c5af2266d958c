#include "compare.h"

#include <cmath>

namespace univk::tools {
namespace {

double element(const HostTensor& t, int64_t i) {
  const size_t k = static_cast<size_t>(i);
  switch (t.dtype()) {
    case DType::kFloat32:
      return t.data<float>()[k];
    case DType::kFloat16:
      return half_to_float(t.data<uint16_t>()[k]);
    case DType::kInt8:
      return t.data<int8_t>()[k];
    case DType::kUint8:
      return t.data<uint8_t>()[k];
    case DType::kInt16:
      return t.data<int16_t>()[k];
    case DType::kInt32:
      return t.data<int32_t>()[k];
    case DType::kInt64:
      return static_cast<double>(t.data<int64_t>()[k]);
    case DType::kBool:
      return t.data<uint8_t>()[k] != 0;
  }
  return 0.0;
}

}  // namespace

Comparison compare_tensors(const HostTensor& output, const HostTensor& reference, double atol, double rtol) {
  Comparison c;
  if (output.dtype() != reference.dtype() || output.shape() != reference.shape()) {
    c.problem = "output is " + output.describe() + ", reference is " + reference.describe();
    return c;
  }
  const bool exact = output.dtype() != DType::kFloat32 && output.dtype() != DType::kFloat16;
  for (int64_t i = 0; i < output.numel(); ++i) {
    const double a = element(output, i), b = element(reference, i);
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
