#version 450
// layer_norm over the last D elements of each row: one workgroup per row, mean and biased
// variance by two reductions, then optional elementwise weight and bias.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"


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

void main() {
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
  const float inv = inversesqrt(workgroup_sum(sq) / float(p.D) + p.eps);
  for (uint j = tid; j < p.D; j += 256) {
    float v = (x[base + j] - mean) * inv;
    if (p.has_weight != 0) v *= w[j];
    if (p.has_bias != 0) v += bias[j];
    y[base + j] = v;
  }
}
