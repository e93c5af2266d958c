#version 450
#extension GL_GOOGLE_include_directive : require
// CONV3D (TOSA 1.0, fp32): output [N,OD,OH,OW,OC] = bias + sum over the window (KD x KH x KW)
// and IC of input [N,D,H,W,IC] x weight [OC,KD,KH,KW,IC], taps outside the input skipped (zero
// padding). A direct convolution: one invocation per output element, each looping over its
// KD*KH*KW*IC taps (no tiling or reuse between invocations: the kernel library's implicit GEMM
// covers 2-d convolutions only).
// Bindings: 1 output, 2 input, 3 weight, 4 bias. Params after 4 base words: P[4] element count,
// P[5..9] output dims (N, OD, OH, OW, OC), P[10..13] input dims (D, H, W, IC), P[14..16] kernel
// (KD, KH, KW), P[17..19] stride, P[20..22] dilation, P[23..25] leading pad (front, top, left),
// P[26..30] output strides, P[31..35] input strides, P[36..40] weight strides (oc, kd, kh, kw,
// ic), P[41] bias stride (0 when one bias broadcasts).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Out { float O[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { float X[]; };
layout(std430, set = 0, binding = 3) readonly buffer Weight { float W[]; };
layout(std430, set = 0, binding = 4) readonly buffer Bias { float B[]; };

void main() {
  const uint e = invocation_index();
  if (e >= P[4]) return;
  uint rest = e;
  const uint f = rest % P[9];
  rest /= P[9];
  const uint ox = rest % P[8];
  rest /= P[8];
  const uint oy = rest % P[7];
  rest /= P[7];
  const uint oz = rest % P[6];
  const uint n = rest / P[6];
  float acc = B[P[3] + f * P[41]];
  for (uint t = 0u; t < P[14]; ++t) {
    const int z = int(oz * P[17] + t * P[20]) - int(P[23]);
    if (z < 0 || z >= int(P[10])) continue;
    for (uint i = 0u; i < P[15]; ++i) {
      const int y = int(oy * P[18] + i * P[21]) - int(P[24]);
      if (y < 0 || y >= int(P[11])) continue;
      for (uint j = 0u; j < P[16]; ++j) {
        const int x = int(ox * P[19] + j * P[22]) - int(P[25]);
        if (x < 0 || x >= int(P[12])) continue;
        const uint in_at = P[1] + n * P[31] + uint(z) * P[32] + uint(y) * P[33] + uint(x) * P[34];
        const uint w_at = P[2] + f * P[36] + t * P[37] + i * P[38] + j * P[39];
        for (uint c = 0u; c < P[13]; ++c) acc += X[in_at + c * P[35]] * W[w_at + c * P[40]];
      }
    }
  }
  O[P[0] + n * P[26] + oz * P[27] + oy * P[28] + ox * P[29] + f * P[30]] = acc;
}
