#version 450
// 2-d convolution, NCHW, weight [OC, C/groups, KH, KW], optional bias. Each invocation computes
// one output position for a block of OCB output channels of one group, so every input element
// it loads feeds OCB accumulators; neighbouring invocations take neighbouring output columns
// (coalesced input loads, the same weights across the workgroup). Padding is given as
// top/left; the output size already accounts for bottom/right padding.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint OCB = 1;  // output channels per invocation

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n;  // invocations: N * groups * blocks * OH * OW
  uint N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW;
  uint groups;
  uint has_bias;
  uint blocks;  // channel blocks per group: ceil((OC / groups) / OCB)
} p;

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  const uint ox = i % p.OW;
  const uint oy = (i / p.OW) % p.OH;
  const uint rest = i / (p.OW * p.OH);
  const uint blk = rest % (p.groups * p.blocks);
  const uint b = rest / (p.groups * p.blocks);
  const uint g = blk / p.blocks;
  const uint ocg = p.OC / p.groups;
  const uint icg = p.C / p.groups;
  const uint oc0 = g * ocg + (blk % p.blocks) * OCB;
  const uint count = min(OCB, g * ocg + ocg - oc0);
  float acc[OCB];
  for (uint q = 0; q < OCB; ++q) acc[q] = (q < count && p.has_bias != 0) ? bias[oc0 + q] : 0.0;
  const int y0 = int(oy * p.SH) - int(p.PT);
  const int x0 = int(ox * p.SW) - int(p.PL);
  const uint ksize = p.KH * p.KW;
  for (uint ci = 0; ci < icg; ++ci) {
    const uint plane = (b * p.C + g * icg + ci) * p.H * p.W;
    const uint kbase = (oc0 * icg + ci) * ksize;
    for (uint ky = 0; ky < p.KH; ++ky) {
      const int yy = y0 + int(ky * p.DH);
      if (yy < 0 || yy >= int(p.H)) continue;
      for (uint kx = 0; kx < p.KW; ++kx) {
        const int xx = x0 + int(kx * p.DW);
        if (xx < 0 || xx >= int(p.W)) continue;
        const float v = x[plane + uint(yy) * p.W + uint(xx)];
        const uint k = kbase + ky * p.KW + kx;
        for (uint q = 0; q < OCB; ++q) {
          if (q < count) acc[q] += v * w[k + q * icg * ksize];
        }
      }
    }
  }
  for (uint q = 0; q < count; ++q) y[((b * p.OC + oc0 + q) * p.OH + oy) * p.OW + ox] = acc[q];
}
