// PyTorch's upsample index arithmetic (ops::Upsample2d) per output row/column, and the TOSA
// RESIZE that reproduces it exactly. Shared by the reference kernels (src/reference/upsample.cc)
// and the compiler's TOSA lowering, so the VgfBackend takes an upsample only where RESIZE reads
// the same source elements with the same fp32 weights as PyTorch. Pure functions.
#pragma once

#include <cstdint>

#include "univk/base/status.h"
#include "univk/ops/torch_ops.h"
#include "univk/tensor/attributes.h"

namespace univk::ops {

// Nearest: the source index of output `dst` along an axis of `in` -> `out` with step `scale`.
int64_t upsample_nearest_source(int64_t dst, int64_t in, int64_t out, float scale);

// Bilinear: the two taps along an axis and the fp32 weight of the second.
struct UpsampleTaps {
  int64_t i0 = 0, i1 = 0;
  float w1 = 0;
};
UpsampleTaps upsample_linear_taps(int64_t dst, int64_t in, float scale, bool align_corners);

// The RESIZE attributes (mode, scale, offset, border) on the NHWC form of `u`. Unsupported when
// no RESIZE within TOSA's limits matches PyTorch's taps and weights at every output position
// (e.g. a scale factor whose fp32 reciprocal PyTorch steps by is not exact).
Result<Attributes> resize_for_upsample(const Upsample2d& u);

}  // namespace univk::ops
