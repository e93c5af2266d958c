// fp32 -> fp16 -> fp32 rounding on the host, for references of kernels that round their
// operands to fp16 (precision=fp16, univk/kernels/kernel.h).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "univk/tensor/tensor.h"

namespace univk::testing {

// `v` rounded to the nearest fp16 value (ties to even; overflow to infinity), as a float.
inline float round_to_fp16(float v) {
  const float a = std::fabs(v);
  if (std::isnan(v)) return v;
  if (!(a < 65520.0f)) return std::copysign(INFINITY, v);  // halfway to the next binade rounds up
  if (a < 6.103515625e-05f) {
    // fp16 subnormals: multiples of 2^-24; nearbyint rounds ties to even in the default mode.
    return std::copysign(std::nearbyint(a * 16777216.0f) / 16777216.0f, v);
  }
  // Keep 10 of fp32's 23 mantissa bits, rounding the 13 dropped ones to nearest, ties to even.
  uint32_t bits = std::bit_cast<uint32_t>(a);
  bits += 0xfffu + ((bits >> 13) & 1u);
  bits &= ~0x1fffu;
  return std::copysign(std::bit_cast<float>(bits), v);
}

// Every element of fp32 `t` rounded by round_to_fp16.
inline HostTensor rounded_to_fp16(const HostTensor& t) {
  HostTensor out(DType::kFloat32, t.shape());
  std::transform(t.data<float>().begin(), t.data<float>().end(), out.data<float>().begin(), round_to_fp16);
  return out;
}

}  // namespace univk::testing
