#version 450
// softmax / log_softmax along one dim of a tensor viewed as [outer, D, inner]; rows are the
// outer * inner lines of D elements, `inner` apart. VARIANT bit 0: log_softmax; bit 1: one
// invocation per row (short rows), otherwise one workgroup per row.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params { uint rows; uint D; uint inner; } p;

shared float red[256];

uint row_base(uint row) { return (row / p.inner) * p.D * p.inner + row % p.inner; }

void write_row(uint base, uint first, uint step, float m, float sum) {
  const float log_sum = log(sum);
  for (uint j = first; j < p.D; j += step) {
    const uint k = base + j * p.inner;
    y[k] = (VARIANT & 1u) != 0 ? (x[k] - m) - log_sum : exp(x[k] - m) / sum;
  }
}

void main() {
  if ((VARIANT & 2u) != 0) {
    const uint row = linear_index();
    if (row >= p.rows) return;
    const uint base = row_base(row);
    float m = -kInf;
    for (uint j = 0; j < p.D; ++j) m = max(m, x[base + j * p.inner]);
    float sum = 0.0;
    for (uint j = 0; j < p.D; ++j) sum += exp(x[base + j * p.inner] - m);
    write_row(base, 0, 1, m, sum);
    return;
  }
  const uint row = linear_group();
  if (row >= p.rows) return;  // uniform per workgroup
  const uint tid = gl_LocalInvocationID.x;
  const uint base = row_base(row);
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
  write_row(base, tid, 256, m, red[0]);
}
