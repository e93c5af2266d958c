#version 450
#extension GL_GOOGLE_include_directive : require
// SCATTER (TOSA 1.0), second step: values_out [N,K,C] (already holding values_in, copied by the
// dispatch before this one) takes row indices[n,w] from input [N,W,C] (int32 indices), over
// 32-bit elements and strided views. One invocation per input element; a row whose index is
// outside [0, K) is not written (the spec leaves such a result unpredictable; the reference
// refuses it, as it refuses two indices naming one row).
// Bindings: 1 values_out, 2 indices, 3 input. Params after 3 base words: P[3] element count
// (N*W*C), P[4] K, P[5] W, P[6] C, P[7..9] values_out strides (n, k, c), P[10..11] indices
// strides (n, w), P[12..14] input strides (n, w, c).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(std430, set = 0, binding = 1) buffer Out { uint O[]; };
layout(std430, set = 0, binding = 2) readonly buffer Indices { int I[]; };
layout(std430, set = 0, binding = 3) readonly buffer Input { uint V[]; };

void main() {
  const uint e = invocation_index();
  if (e >= P[3]) return;
  const uint c = e % P[6];
  const uint w = (e / P[6]) % P[5];
  const uint n = e / (P[6] * P[5]);
  const int k = I[P[1] + n * P[10] + w * P[11]];
  if (k < 0 || uint(k) >= P[4]) return;
  O[P[0] + n * P[7] + uint(k) * P[8] + c * P[9]] = V[P[2] + n * P[12] + w * P[13] + c * P[14]];
}
