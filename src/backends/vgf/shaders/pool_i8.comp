#version 450
#extension GL_GOOGLE_include_directive : require
// AVG_POOL2D / MAX_POOL2D (TOSA 1.0, int8). AVG sums (x - input_zp) over the in-bounds taps and
// divides by their count with the spec's reciprocal_scale/apply_scale_32, which equals rounding
// half away from zero: (acc +- count/2) / count with truncation; then + output_zp, clamp.
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] output count, P[3..6] output
// dims (N,OH,OW,C), P[7..10] output strides, P[11..14] input strides, P[15..16] IH,IW,
// P[17..18] kernel y,x, P[19..20] stride y,x, P[21..22] pad top,left, P[23] input_zp,
// P[24] output_zp. NCHW_ORDER: as in pool.glsl, 1 = (n, c, oy, ox) with ox fastest, 0 = (n, oy, ox, c).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/int8_io.glsl"

layout(constant_id = 0) const uint IS_MAX = 0;
layout(constant_id = 1) const uint NCHW_ORDER = 0;
// P[17..18] and P[4..6] again, so the tap loops unroll and the decomposition divides by
// constants (see pool.glsl); KERNEL_Y = KERNEL_X = 0 for large windows: runtime-bounded loops.
layout(constant_id = 2) const uint KERNEL_Y = 1;
layout(constant_id = 3) const uint KERNEL_X = 1;
layout(constant_id = 4) const uint OUT_H = 1;
layout(constant_id = 5) const uint OUT_W = 1;
layout(constant_id = 6) const uint OUT_C = 1;

void main() {
  const uint total = P[2];
  const int in_zp = int(P[23]), out_zp = int(P[24]);
  const uint e = invocation_index();
  if (e >= total) return;
  uint rest = e, c, ox, oy;
  if (NCHW_ORDER != 0u) {
    ox = rest % OUT_W; rest /= OUT_W;
    oy = rest % OUT_H; rest /= OUT_H;
    c = rest % OUT_C; rest /= OUT_C;
  } else {
    c = rest % OUT_C; rest /= OUT_C;
    ox = rest % OUT_W; rest /= OUT_W;
    oy = rest % OUT_H; rest /= OUT_H;
  }
  const uint n = rest;
  const int y0 = int(oy * P[19]) - int(P[21]);
  const int x0 = int(ox * P[20]) - int(P[22]);
  const uint in_base = P[1] + n * P[11] + c * P[14];
  int acc = IS_MAX != 0u ? -128 : 0;
  int count = 0;
  if (KERNEL_Y == 0u) {
    const int y_begin = max(y0, 0), y_end = min(y0 + int(P[17]), int(P[15]));
    const int x_begin = max(x0, 0), x_end = min(x0 + int(P[18]), int(P[16]));
    [[dont_unroll]] for (int iy = y_begin; iy < y_end; ++iy) {
      const uint row = in_base + uint(iy) * P[12];
      [[dont_unroll]] for (int ix = x_begin; ix < x_end; ++ix) {
        const int v = int(I8[row + uint(ix) * P[13]]);
        acc = IS_MAX != 0u ? max(acc, v) : acc + (v - in_zp);
      }
    }
    count = max(y_end - y_begin, 0) * max(x_end - x_begin, 0);
  }
  [[unroll]] for (uint ky = 0u; ky < KERNEL_Y; ++ky) {
    const int iy = y0 + int(ky);
    if (iy < 0 || iy >= int(P[15])) continue;
    [[unroll]] for (uint kx = 0u; kx < KERNEL_X; ++kx) {
      const int ix = x0 + int(kx);
      if (ix < 0 || ix >= int(P[16])) continue;
      const int v = int(I8[in_base + uint(iy) * P[12] + uint(ix) * P[13]]);
      acc = IS_MAX != 0u ? max(acc, v) : acc + (v - in_zp);
      ++count;
    }
  }
  int result = acc;
  if (IS_MAX == 0u) result = clamp((acc >= 0 ? acc + count / 2 : acc - count / 2) / count + out_zp, -128, 127);
  O8[P[0] + n * P[7] + oy * P[8] + ox * P[9] + c * P[10]] = int8_t(result);
}
