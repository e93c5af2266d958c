// PyTorch upsample index arithmetic and its exact TOSA RESIZE form (upsample_resize.h).
#include "univk/ops/upsample_resize.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "univk/ops/tosa_ops.h"

namespace univk::ops {

int64_t upsample_nearest_source(int64_t dst, int64_t in, int64_t out, float scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale)), in - 1);
}

UpsampleTaps upsample_linear_taps(int64_t dst, int64_t in, float scale, bool align_corners) {
  // PyTorch evaluates the half-pixel form in double and rounds it to the fp32 source index.
  const float src =
      align_corners ? scale * static_cast<float>(dst) : static_cast<float>(std::max(scale * (dst + 0.5) - 0.5, 0.0));
  UpsampleTaps t;
  t.i0 = static_cast<int64_t>(src);
  t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
  t.w1 = src - static_cast<float>(t.i0);
  return t;
}

namespace {

// One axis of a RESIZE: output position dst reads from (dst * d + offset) / n.
struct Axis {
  int64_t n = 1, d = 1, offset = 0, border = 0;
};

// The rational step of PyTorch's exact (unrounded) index arithmetic; reduced to lowest terms so
// larger sizes stay within TOSA's scale limit.
Axis axis_for(const Upsample2d& u, int64_t in, int64_t out) {
  Axis a;
  if (in == 1) {
    a = {out, 1, 0};  // every output position reads the single row/column
  } else if (!u.bilinear) {
    a = {2 * out, 2 * in, -out};  // floor(dst * in / out) as round-half-up of dst * in / out - 1/2
  } else if (u.align_corners) {
    a = out > 1 ? Axis{out - 1, in - 1, 0} : Axis{1, 1, 0};
  } else {
    a = {2 * out, 2 * in, in - out};  // (dst + 1/2) * in / out - 1/2
  }
  const int64_t g = std::gcd(std::gcd(a.n, a.d), a.offset);
  a.n /= g, a.d /= g, a.offset /= g;
  a.border = (out - 1) * a.d - (in - 1) * a.n + a.offset;
  return a;
}

// The sample RESIZE takes (spec arithmetic: floor division, fp32 fraction, clamped taps) equals
// PyTorch's at every output position; taps that coincide or carry no weight compare as one.
bool axis_matches(const Upsample2d& u, const Axis& a, int64_t in, int64_t out, float scale) {
  for (int64_t dst = 0; dst < out; ++dst) {
    const int64_t pos = dst * a.d + a.offset;
    const int64_t i = pos >= 0 ? pos / a.n : -((-pos + a.n - 1) / a.n);
    const float frac = static_cast<float>(pos - i * a.n) / static_cast<float>(a.n);
    const int64_t i0 = std::max<int64_t>(i, 0), i1 = std::min<int64_t>(i + 1, in - 1);
    if (!u.bilinear) {
      if ((frac >= 0.5f ? i1 : i0) != upsample_nearest_source(dst, in, out, scale)) return false;
      continue;
    }
    UpsampleTaps t = upsample_linear_taps(dst, in, scale, u.align_corners);
    UpsampleTaps r{i0, i1, frac};
    for (UpsampleTaps* x : {&t, &r}) {
      if (x->i0 == x->i1 || x->w1 == 0.0f) *x = {x->i0, x->i0, 0.0f};
    }
    if (t.i0 != r.i0 || t.i1 != r.i1 || t.w1 != r.w1) return false;
  }
  return true;
}

}  // namespace

Result<Attributes> resize_for_upsample(const Upsample2d& u) {
  const Axis y = axis_for(u, u.in.h, u.out_h), x = axis_for(u, u.in.w, u.out_w);
  Attributes attrs;
  attrs.set("mode", u.bilinear ? kTosaResizeBilinear : kTosaResizeNearest);
  attrs.set("scale", std::vector<int64_t>{y.n, y.d, x.n, x.d});
  attrs.set("offset", std::vector<int64_t>{y.offset, x.offset});
  attrs.set("border", std::vector<int64_t>{y.border, x.border});
  auto checked = tosa_resize(attrs, Shape{1, u.in.h, u.in.w, 1});
  if (!checked.ok()) return unsupported("no RESIZE within TOSA's limits: " + checked.status().message());
  if (!axis_matches(u, y, u.in.h, u.out_h, u.scale_h) || !axis_matches(u, x, u.in.w, u.out_w, u.scale_w)) {
    return unsupported("PyTorch's fp32 source positions for " + std::to_string(u.in.h) + "x" + std::to_string(u.in.w) +
                       " -> " + std::to_string(u.out_h) + "x" + std::to_string(u.out_w) +
                       " are not RESIZE's exact ones");
  }
  return attrs;
}

}  // namespace univk::ops
