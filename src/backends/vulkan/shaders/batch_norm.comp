#version 450
// batch_norm in inference form over [N, C, *]: y = x * scale[c] + shift[c] with
// scale = weight / sqrt(running_var + eps) and shift = bias - running_mean * scale.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"


layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) readonly buffer Mean { float running_mean[]; };
layout(set = 0, binding = 4) readonly buffer Var { float running_var[]; };
layout(set = 0, binding = 5) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params { uint n; uint C; uint inner; float eps; } p;

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  const uint c = (i / p.inner) % p.C;
  const float scale = w[c] / sqrt(running_var[c] + p.eps);
  const float shift = bias[c] - running_mean[c] * scale;
  y[i] = x[i] * scale + shift;
}
