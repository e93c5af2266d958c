#version 450
// 2-d pooling over [planes, H, W] (planes = N*C): one invocation per output element.
// MODE 0: avg_pool2d (PyTorch divisor rules), 1: max_pool2d (with dilation, NaN wins),
// 2: adaptive_avg_pool2d, 3: adaptive_max_pool2d (NaN wins).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint MODE = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint H, W, OH, OW;
  uint KH, KW, SH, SW, PH, PW, DH, DW;
  uint include_pad;
  uint divisor_override;
} p;

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  const uint ox = i % p.OW;
  const uint oy = (i / p.OW) % p.OH;
  const uint plane = i / (p.OW * p.OH);
  const uint base = plane * p.H * p.W;
  if (MODE == 1) {
    float best = -kInf;
    const int y0 = int(oy * p.SH) - int(p.PH);
    const int x0 = int(ox * p.SW) - int(p.PW);
    for (uint ky = 0; ky < p.KH; ++ky) {
      const int yy = y0 + int(ky * p.DH);
      if (yy < 0 || yy >= int(p.H)) continue;
      for (uint kx = 0; kx < p.KW; ++kx) {
        const int xx = x0 + int(kx * p.DW);
        if (xx < 0 || xx >= int(p.W)) continue;
        const float v = x[base + uint(yy) * p.W + uint(xx)];
        if (v > best || isnan(v)) best = v;
      }
    }
    y[i] = best;
    return;
  }
  int h0, h1, w0, w1;
  int divisor;
  if (MODE == 2 || MODE == 3) {
    h0 = int((oy * p.H) / p.OH);
    h1 = int(((oy + 1) * p.H + p.OH - 1) / p.OH);
    w0 = int((ox * p.W) / p.OW);
    w1 = int(((ox + 1) * p.W + p.OW - 1) / p.OW);
    divisor = (h1 - h0) * (w1 - w0);
    if (MODE == 3) {
      float best = -kInf;
      for (int yy = h0; yy < h1; ++yy) {
        for (int xx = w0; xx < w1; ++xx) {
          const float v = x[base + uint(yy) * p.W + uint(xx)];
          if (v > best || isnan(v)) best = v;
        }
      }
      y[i] = best;
      return;
    }
  } else {
    // Window clipped first to the padded input (the count_include_pad divisor), then to the input.
    h0 = int(oy * p.SH) - int(p.PH);
    w0 = int(ox * p.SW) - int(p.PW);
    h1 = min(h0 + int(p.KH), int(p.H + p.PH));
    w1 = min(w0 + int(p.KW), int(p.W + p.PW));
    const int padded = (h1 - h0) * (w1 - w0);
    h0 = max(h0, 0);
    w0 = max(w0, 0);
    h1 = min(h1, int(p.H));
    w1 = min(w1, int(p.W));
    if (h0 >= h1 || w0 >= w1) {
      y[i] = 0.0;
      return;
    }
    divisor = p.divisor_override != 0 ? int(p.divisor_override)
                                       : (p.include_pad != 0 ? padded : (h1 - h0) * (w1 - w0));
  }
  float sum = 0.0;
  for (int yy = h0; yy < h1; ++yy) {
    for (int xx = w0; xx < w1; ++xx) sum += x[base + uint(yy) * p.W + uint(xx)];
  }
  y[i] = sum / float(divisor);
}
