#version 450
#extension GL_GOOGLE_include_directive : require
// MATMUL (TOSA 1.0, fp32): A [N,H,C] x B [N,C,W] -> [N,H,W], every operand through strides.
// Bindings: 1 output, 2 A, 3 B. Params after 3 base words: P[3] output count,
// P[4..6] output dims, P[7..9] output strides, P[10..12] A strides, P[13..15] B strides, P[16] C.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Out { float O[]; };
layout(std430, set = 0, binding = 2) readonly buffer A { float AV[]; };
layout(std430, set = 0, binding = 3) readonly buffer B { float BV[]; };

void main() {
  const uint total = P[3];
  const uint e = invocation_index();
  if (e >= total) return;
  uint rest = e;
  const uint w = rest % P[6]; rest /= P[6];
  const uint h = rest % P[5]; rest /= P[5];
  const uint n = rest;
  uint a = P[1] + n * P[10] + h * P[11];
  uint b = P[2] + n * P[13] + w * P[15];
  float acc = 0.0;
  for (uint c = 0u; c < P[16]; ++c) {
    acc += AV[a] * BV[b];
    a += P[12];
    b += P[14];
  }
  O[P[0] + n * P[7] + h * P[8] + w * P[9]] = acc;
}
