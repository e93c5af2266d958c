#version 450
#extension GL_GOOGLE_include_directive : require
// TABLE (TOSA 1.0, int8): out = table[in + 128] with a 256-entry int8 table.
// Bindings: 1 output, 2 input, 3 table. Params after 3 base words: P[3] element count,
// P[4..9] dims, P[10..15] output strides, P[16..21] input strides.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/int8_io.glsl"

layout(std430, set = 0, binding = 3) readonly buffer Table { int8_t T[]; };

void main() {
  const uint total = P[3];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint o = P[0] + strided_offset(e, 4u, 10u);
  const uint i = P[1] + strided_offset(e, 4u, 16u);
  O8[o] = T[P[2] + uint(int(I8[i]) + 128)];
}
