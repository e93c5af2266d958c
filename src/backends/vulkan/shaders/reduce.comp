#version 450
// sum / mean / prod / amax / amin over a set of dims. The input is addressed through `dims`/`strides`:
// the first kept_rank entries are the kept dims (output order), the next red_rank the reduced
// ones. VARIANT bit 0: mean (divide by R); bit 1: one invocation per output (short reductions),
// otherwise one workgroup per output; bit 2: amax, bit 3: amin (NaN propagates in both); bit 4:
// prod.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n_out;
  uint R;
  uint kept_rank;
  uint red_rank;
  uint dims[6];
  uint strides[6];
} p;

shared float red[256];

uint kept_offset(uint o) {
  uint off = 0;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    off += (o % p.dims[d]) * p.strides[d];
    o /= p.dims[d];
  }
  return off;
}

uint reduced_offset(uint r) {
  uint off = 0;
  for (int d = int(p.kept_rank + p.red_rank) - 1; d >= int(p.kept_rank); --d) {
    off += (r % p.dims[d]) * p.strides[d];
    r /= p.dims[d];
  }
  return off;
}

float init_value() {
  return (VARIANT & 4u) != 0 ? -kInf : ((VARIANT & 8u) != 0 ? kInf : ((VARIANT & 16u) != 0 ? 1.0 : 0.0));
}

float combine(float a, float b) {
  if ((VARIANT & 4u) != 0) return nan_max(a, b);
  if ((VARIANT & 8u) != 0) return nan_min(a, b);
  if ((VARIANT & 16u) != 0) return a * b;
  return a + b;
}

float finish(float sum) { return (VARIANT & 1u) != 0 ? sum / float(p.R) : sum; }

void main() {
  if ((VARIANT & 2u) != 0) {
    const uint o = linear_index();
    if (o >= p.n_out) return;
    const uint base = kept_offset(o);
    float sum = init_value();
    for (uint r = 0; r < p.R; ++r) sum = combine(sum, x[base + reduced_offset(r)]);
    y[o] = finish(sum);
    return;
  }
  const uint o = linear_group();
  if (o >= p.n_out) return;  // uniform per workgroup
  const uint tid = gl_LocalInvocationID.x;
  const uint base = kept_offset(o);
  float sum = init_value();
  for (uint r = tid; r < p.R; r += 256) sum = combine(sum, x[base + reduced_offset(r)]);
  red[tid] = sum;
  barrier();
  for (uint s = 128; s > 0; s >>= 1) {
    if (tid < s) red[tid] = combine(red[tid], red[tid + s]);
    barrier();
  }
  if (tid == 0) y[o] = finish(red[0]);
}
