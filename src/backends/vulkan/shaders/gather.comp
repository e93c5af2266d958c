#version 450
// index_select (and embedding through it): out[o][j][k] = x[o][index[j]][k] over 32-bit
// elements, the input seen as [outer, size, inner] and the output as [outer, count, inner].
// VARIANT 0: int32 indices; 1: int64 indices (read as low and high words, no 64-bit
// arithmetic). An index outside [0, size) is clamped into it, so no read leaves the input
// (docs/OPERATORS.md: the CPU reference reports it instead).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;

layout(set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(set = 0, binding = 1) readonly buffer Index { uint index[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform Params {
  uint n;
  uint size;
  uint count;
  uint inner;
} p;

uint clamped_index(uint j) {
  if (VARIANT == 0u) return uint(clamp(int(index[j]), 0, int(p.size) - 1));
  const uint lo = index[2u * j];
  const int hi = int(index[2u * j + 1u]);
  if (hi < 0) return 0u;
  if (hi > 0) return p.size - 1u;
  return min(lo, p.size - 1u);
}

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  const uint k = i % p.inner;
  const uint j = (i / p.inner) % p.count;
  const uint outer = i / (p.inner * p.count);
  o[i] = x[(outer * p.size + clamped_index(j)) * p.inner + k];
}
