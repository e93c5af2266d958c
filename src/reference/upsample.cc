// PyTorch upsample_nearest2d and upsample_bilinear2d on NCHW (or unbatched CHW) fp32, with
// PyTorch's fp32 index arithmetic (ops::Upsample2d).
#include <algorithm>
#include <cmath>

#include "common.h"

namespace univk::reference::detail {
namespace {

int64_t nearest_source(int64_t dst, int64_t in, int64_t out, float scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale)), in - 1);
}

// The two taps and the weight of the second along one dim.
struct Taps {
  int64_t i0 = 0, i1 = 0;
  float w1 = 0;
};
Taps linear_taps(int64_t dst, int64_t in, float scale, bool align_corners) {
  // PyTorch evaluates the half-pixel form in double and rounds it to the fp32 source index.
  const float src =
      align_corners ? scale * static_cast<float>(dst) : static_cast<float>(std::max(scale * (dst + 0.5) - 0.5, 0.0));
  Taps t;
  t.i0 = static_cast<int64_t>(src);
  t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
  t.w1 = src - static_cast<float>(t.i0);
  return t;
}

Result<Tensors> upsample2d(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Upsample2d u, ops::upsample2d(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const ops::Planes& pl = u.in;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, u.output.dims()));
  const float* x = inputs[0].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t c = 0; c < pl.count; ++c) {
    const float* plane = x + c * pl.h * pl.w;
    for (int64_t y = 0; y < u.out_h; ++y) {
      for (int64_t xo = 0; xo < u.out_w; ++xo) {
        float v;
        if (!u.bilinear) {
          v = plane[nearest_source(y, pl.h, u.out_h, u.scale_h) * pl.w + nearest_source(xo, pl.w, u.out_w, u.scale_w)];
        } else {
          const Taps h = linear_taps(y, pl.h, u.scale_h, u.align_corners);
          const Taps w = linear_taps(xo, pl.w, u.scale_w, u.align_corners);
          const float h0 = 1.0f - h.w1, w0 = 1.0f - w.w1;
          v = h0 * (w0 * plane[h.i0 * pl.w + w.i0] + w.w1 * plane[h.i0 * pl.w + w.i1]) +
              h.w1 * (w0 * plane[h.i1 * pl.w + w.i0] + w.w1 * plane[h.i1 * pl.w + w.i1]);
        }
        o[(c * u.out_h + y) * u.out_w + xo] = v;
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable upsample_ops() { return {{"upsample_nearest2d", upsample2d}, {"upsample_bilinear2d", upsample2d}}; }

}  // namespace univk::reference::detail
