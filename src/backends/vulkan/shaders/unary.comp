#version 450
// Elementwise unary operators and tensor-scalar binary operators; the operator is a
// specialization constant (UnaryOp in op_lowering.h), with bit 16 set (kUnaryVec4) for the form
// that runs 4 elements per invocation through 16-byte loads and stores (n a multiple of 4).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"
#include "kernels/shaders/activation.glsl"

layout(constant_id = 0) const uint VARIANT = 0;
const uint OP = VARIANT & 0xffffu;
const bool VEC4 = (VARIANT >> 16) != 0u;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 0) readonly buffer In4 { vec4 x4[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 1) writeonly buffer Out4 { vec4 y4[]; };
layout(push_constant) uniform Params { uint n; float p0; float p1; } params;

float apply(float v) {
  const float p0 = params.p0, p1 = params.p1;
  switch (OP) {
    case 0: return act_sigmoid(v);
    case 1: return tanh_safe(v);
    case 2: return v < 0.0 ? 0.0 : v;
    case 3: return clamp_nan(v, p0, p1);
    case 4: return gelu_erf(v);
    case 5: return gelu_tanh(v);
    case 6: return v * act_sigmoid(v);
    case 7: return hardswish(v);
    case 8: return hardsigmoid(v);
    case 9: return exp(v);
    case 10: return log(v);
    case 11: return -v;
    case 12: return abs(v);
    case 13: return sqrt(v);
    case 14: return 1.0 / sqrt(v);
    case 15: return 1.0 / v;
    case 16: return v + p0;
    case 17: return v - p0;
    case 18: return p0 + p1 * v;
    case 19: return p0 - p1 * v;
    case 20: return v * p0;
    case 21: return v / p0;
    case 22: return p0 / v;
    case 23: return nan_max(v, p0);
    case 24: return nan_min(v, p0);
    case 25: return pow_c(v, p0);
    case 26: return pow_c(p0, v);
    case 27: return floor(v);
    case 28: return ceil(v);
    case 29: return sin(v);
    case 30: return cos(v);
  }
  return v;
}

void main() {
  const uint i = linear_index();
  if (VEC4) {
    if (i >= params.n / 4u) return;
    const vec4 v = x4[i];
    y4[i] = vec4(apply(v.x), apply(v.y), apply(v.z), apply(v.w));
    return;
  }
  if (i >= params.n) return;
  y[i] = apply(x[i]);
}
