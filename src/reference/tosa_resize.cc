// TOSA 1.0 RESIZE on fp32 NHWC (ops::TosaResize): the spec's integer source position per output
// row/column, fp32 fractions, edge clamping, and round-half-up for NEAREST_NEIGHBOR.
#include <algorithm>

#include "common.h"
#include "univk/ops/tosa_ops.h"

namespace univk::reference::detail {
namespace {

// The two clamped taps along one axis and the fraction towards the second.
struct Taps {
  int64_t i0 = 0, i1 = 0;
  float frac = 0;
};

Taps taps(int64_t dst, int64_t in, int64_t n, int64_t d, int64_t offset) {
  const int64_t pos = dst * d + offset;
  // Floor division: pos may be negative (down to -n) at the first output.
  const int64_t i = pos >= 0 ? pos / n : -((-pos + n - 1) / n);
  Taps t;
  t.frac = static_cast<float>(pos - i * n) / static_cast<float>(n);
  t.i0 = std::max<int64_t>(i, 0);
  t.i1 = std::min<int64_t>(i + 1, in - 1);
  return t;
}

Result<Tensors> resize(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  if (x.dtype() != DType::kFloat32) return unsupported("dtype " + std::string(dtype_name(x.dtype())));
  UNIVK_ASSIGN_OR_RETURN(ops::TosaResize r, ops::tosa_resize(attrs, x.shape()));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, r.output.dims()));
  const int64_t ih = x.shape()[1], iw = x.shape()[2], c = x.shape()[3];
  const int64_t oh = r.output[1], ow = r.output[2];
  const float* src = x.data<float>().data();
  float* dst = out.data<float>().data();
  for (int64_t b = 0; b < x.shape()[0]; ++b) {
    const float* img = src + b * ih * iw * c;
    for (int64_t oy = 0; oy < oh; ++oy) {
      const Taps ty = taps(oy, ih, r.scale[0], r.scale[1], r.offset[0]);
      for (int64_t ox = 0; ox < ow; ++ox) {
        const Taps tx = taps(ox, iw, r.scale[2], r.scale[3], r.offset[1]);
        float* o = dst + ((b * oh + oy) * ow + ox) * c;
        if (r.mode == ops::kTosaResizeNearest) {
          const int64_t sy = ty.frac >= 0.5f ? ty.i1 : ty.i0, sx = tx.frac >= 0.5f ? tx.i1 : tx.i0;
          std::copy_n(img + (sy * iw + sx) * c, c, o);
          continue;
        }
        const float* v00 = img + (ty.i0 * iw + tx.i0) * c;
        const float* v01 = img + (ty.i0 * iw + tx.i1) * c;
        const float* v10 = img + (ty.i1 * iw + tx.i0) * c;
        const float* v11 = img + (ty.i1 * iw + tx.i1) * c;
        const float dy = ty.frac, dx = tx.frac;
        for (int64_t k = 0; k < c; ++k) {
          float acc = v00[k] * (1.0f - dy) * (1.0f - dx);
          acc += v01[k] * (1.0f - dy) * dx;
          acc += v10[k] * dy * (1.0f - dx);
          acc += v11[k] * dy * dx;
          o[k] = acc;
        }
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable tosa_resize_ops() { return {{"RESIZE", resize}}; }

}  // namespace univk::reference::detail
