#version 450
// softmax / log_softmax (MODE 0 / 1) along one dim of a tensor viewed as [outer, D, inner]:
// one workgroup per row (outer * inner rows), elements D apart by `inner`.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint MODE = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params { uint rows; uint D; uint inner; } p;

shared float red[256];

void main() {
  const uint row = linear_group();
  if (row >= p.rows) return;  // uniform per workgroup
  const uint tid = gl_LocalInvocationID.x;
  const uint base = (row / p.inner) * p.D * p.inner + row % p.inner;
  float m = -kInf;
  for (uint j = tid; j < p.D; j += 256) m = max(m, x[base + j * p.inner]);
  red[tid] = m;
  barrier();
  for (uint s = 128; s > 0; s >>= 1) {
    if (tid < s) red[tid] = max(red[tid], red[tid + s]);
    barrier();
  }
  m = red[0];
  barrier();
  float sum = 0.0;
  for (uint j = tid; j < p.D; j += 256) sum += exp(x[base + j * p.inner] - m);
  red[tid] = sum;
  barrier();
  for (uint s = 128; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];
    barrier();
  }
  sum = red[0];
  const float log_sum = log(sum);
  for (uint j = tid; j < p.D; j += 256) {
    const uint k = base + j * p.inner;
    y[k] = MODE == 1 ? (x[k] - m) - log_sum : exp(x[k] - m) / sum;
  }
}
