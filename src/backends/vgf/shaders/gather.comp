#version 450
#extension GL_GOOGLE_include_directive : require
// GATHER (TOSA 1.0): output [N,W,C] = values [N,K,C] at rows indices [N,W] (int32), over
// 32-bit elements and strided views. An index outside [0, K) is clamped into it, so no read
// leaves the values (the spec leaves such a result unpredictable).
// Bindings: 1 output, 2 values, 3 indices. Params after 3 base words: P[3] element count,
// P[4] K, P[5] W, P[6] C, P[7..9] output strides (n, w, c), P[10..12] values strides (n, k, c),
// P[13..14] indices strides (n, w).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Out { uint O[]; };
layout(std430, set = 0, binding = 2) readonly buffer Values { uint V[]; };
layout(std430, set = 0, binding = 3) readonly buffer Indices { int I[]; };

void main() {
  const uint e = invocation_index();
  if (e >= P[3]) return;
  const uint c = e % P[6];
  const uint w = (e / P[6]) % P[5];
  const uint n = e / (P[6] * P[5]);
  const uint k = uint(clamp(I[P[2] + n * P[13] + w * P[14]], 0, int(P[4]) - 1));
  O[P[0] + n * P[7] + w * P[8] + c * P[9]] = V[P[1] + n * P[10] + k * P[11] + c * P[12]];
}
