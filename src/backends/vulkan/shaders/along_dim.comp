#version 450
// One invocation per line along a dim of a float32 tensor seen as [outer, size, inner]:
// VARIANT 0 argmax, 1 argmin (int64 results written as a low and a high word; the first index
// of the extreme, a NaN counting as the extreme, as PyTorch), 2 cumsum (compensated summation,
// so long lines stay within the reference's tolerance).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 1) writeonly buffer OutWords { uint yw[]; };
layout(push_constant) uniform Params {
  uint lines;
  uint size;
  uint inner;
} p;

void main() {
  const uint line = linear_index();
  if (line >= p.lines) return;
  const uint inner = line % p.inner;
  const uint base = (line / p.inner) * p.size * p.inner + inner;
  if (VARIANT == 2u) {
    float sum = 0.0, carry = 0.0;
    for (uint k = 0u; k < p.size; ++k) {
      const uint at = base + k * p.inner;
      const float v = x[at] - carry;
      const float t = sum + v;
      // An infinite or NaN sum has nothing left to compensate (inf - inf would poison it).
      carry = isinf(t) || isnan(t) ? 0.0 : (t - sum) - v;
      sum = t;
      y[at] = sum;
    }
    return;
  }
  uint best = 0u;
  float best_value = x[base];
  for (uint k = 1u; k < p.size && !isnan(best_value); ++k) {
    const float v = x[base + k * p.inner];
    if (isnan(v) || (VARIANT == 0u ? v > best_value : v < best_value)) {
      best = k;
      best_value = v;
    }
  }
  yw[2u * line] = best;
  yw[2u * line + 1u] = 0u;
}
