#version 450
// conv_transpose2d over NCHW (weight [C, OC/groups, KH, KW]): one invocation per output element
// gathers the input pixels the transposed convolution scatters onto it (ops::ConvTranspose2d).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n;  // output elements
  uint C, H, W;
  uint OC, OH, OW;
  uint ICG, OCG;  // channels per group
  uint KH, KW, SH, SW, PH, PW, DH, DW;
  uint has_bias;
} p;

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  const uint ox = i % p.OW;
  const uint oy = (i / p.OW) % p.OH;
  const uint f = (i / (p.OW * p.OH)) % p.OC;
  const uint batch = i / (p.OW * p.OH * p.OC);
  const uint g = f / p.OCG, fg = f % p.OCG;
  float acc = p.has_bias != 0u ? bias[f] : 0.0;
  for (uint ci = g * p.ICG; ci < (g + 1u) * p.ICG; ++ci) {
    const uint plane = (batch * p.C + ci) * p.H * p.W;
    const uint kern = (ci * p.OCG + fg) * p.KH * p.KW;
    for (uint ky = 0; ky < p.KH; ++ky) {
      const int ty = int(oy + p.PH) - int(ky * p.DH);
      if (ty < 0 || uint(ty) % p.SH != 0u) continue;
      const uint iy = uint(ty) / p.SH;
      if (iy >= p.H) continue;
      for (uint kx = 0; kx < p.KW; ++kx) {
        const int tx = int(ox + p.PW) - int(kx * p.DW);
        if (tx < 0 || uint(tx) % p.SW != 0u) continue;
        const uint ix = uint(tx) / p.SW;
        if (ix >= p.W) continue;
        acc += x[plane + iy * p.W + ix] * w[kern + ky * p.KW + kx];
      }
    }
  }
  y[i] = acc;
}
