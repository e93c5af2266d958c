#version 450
// Direct 2-d convolution, NCHW, weight [OC, C/groups, KH, KW], optional bias: one invocation
// per output element. Padding is given as top/left; the output size already accounts for the
// bottom/right padding.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"


layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW;
  uint groups;
  uint has_bias;
} p;

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  const uint ox = i % p.OW;
  const uint oy = (i / p.OW) % p.OH;
  const uint oc = (i / (p.OW * p.OH)) % p.OC;
  const uint b = i / (p.OW * p.OH * p.OC);
  const uint icg = p.C / p.groups;
  const uint g = oc / (p.OC / p.groups);
  const int y0 = int(oy * p.SH) - int(p.PT);
  const int x0 = int(ox * p.SW) - int(p.PL);
  float acc = p.has_bias != 0 ? bias[oc] : 0.0;
  for (uint ci = 0; ci < icg; ++ci) {
    const uint plane = (b * p.C + g * icg + ci) * p.H * p.W;
    const uint kbase = (oc * icg + ci) * p.KH * p.KW;
    for (uint ky = 0; ky < p.KH; ++ky) {
      const int yy = y0 + int(ky * p.DH);
      if (yy < 0 || yy >= int(p.H)) continue;
      for (uint kx = 0; kx < p.KW; ++kx) {
        const int xx = x0 + int(kx * p.DW);
        if (xx < 0 || xx >= int(p.W)) continue;
        acc += x[plane + uint(yy) * p.W + uint(xx)] * w[kbase + ky * p.KW + kx];
      }
    }
  }
  y[i] = acc;
}
