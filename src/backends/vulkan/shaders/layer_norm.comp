#version 450
// layer_norm over the last D elements of each row: mean and biased variance, then optional
// elementwise weight and bias. VARIANT 1: one invocation per row (short rows), 0: one
// workgroup per row with two workgroup reductions.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params { uint rows; uint D; float eps; uint has_weight; uint has_bias; } p;

shared float red[256];

float workgroup_sum(float v) {
  const uint tid = gl_LocalInvocationID.x;
  red[tid] = v;
  barrier();
  for (uint s = 128; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];
    barrier();
  }
  const float total = red[0];
  barrier();
  return total;
}

void write_row(uint base, uint first, uint step, float mean, float inv) {
  for (uint j = first; j < p.D; j += step) {
    float v = (x[base + j] - mean) * inv;
    if (p.has_weight != 0) v *= w[j];
    if (p.has_bias != 0) v += bias[j];
    y[base + j] = v;
  }
}

void main() {
  if (VARIANT == 1) {
    const uint row = linear_index();
    if (row >= p.rows) return;
    const uint base = row * p.D;
    float s = 0.0;
    for (uint j = 0; j < p.D; ++j) s += x[base + j];
    const float mean = s / float(p.D);
    float sq = 0.0;
    for (uint j = 0; j < p.D; ++j) {
      const float d = x[base + j] - mean;
      sq += d * d;
    }
    write_row(base, 0, 1, mean, inversesqrt(sq / float(p.D) + p.eps));
    return;
  }
  const uint row = linear_group();
  if (row >= p.rows) return;  // uniform per workgroup
  const uint tid = gl_LocalInvocationID.x;
  const uint base = row * p.D;
  float s = 0.0;
  for (uint j = tid; j < p.D; j += 256) s += x[base + j];
  const float mean = workgroup_sum(s) / float(p.D);
  float sq = 0.0;
  for (uint j = tid; j < p.D; j += 256) {
    const float d = x[base + j] - mean;
    sq += d * d;
  }
  write_row(base, tid, 256, mean, inversesqrt(workgroup_sum(sq) / float(p.D) + p.eps));
}
