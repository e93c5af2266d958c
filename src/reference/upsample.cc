// PyTorch upsample_nearest2d and upsample_bilinear2d on NCHW (or unbatched CHW) fp32, with
// PyTorch's fp32 index arithmetic (ops::Upsample2d).

#include "common.h"
#include "univk/ops/upsample_resize.h"

namespace univk::reference::detail {
namespace {

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
          v = plane[ops::upsample_nearest_source(y, pl.h, u.out_h, u.scale_h) * pl.w +
                    ops::upsample_nearest_source(xo, pl.w, u.out_w, u.scale_w)];
        } else {
          const ops::UpsampleTaps h = ops::upsample_linear_taps(y, pl.h, u.scale_h, u.align_corners);
          const ops::UpsampleTaps w = ops::upsample_linear_taps(xo, pl.w, u.scale_w, u.align_corners);
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
