#version 450
// Broadcasting binary operators: out[i] = op(a[offset_a(i)], b[offset_b(i)]) where the
// offsets come from per-operand strides (0 on broadcast dims) over the coalesced output dims.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint OP = 0;  // BinaryOp in op_lowering.h

layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint rank;
  float alpha;
  uint pad;
  uint dims[6];
  uint a_strides[6];
  uint b_strides[6];
} params;

void main() {
  const uint i = linear_index();
  if (i >= params.n) return;
  uint rest = i, ia = 0, ib = 0;
  for (int d = int(params.rank) - 1; d >= 0; --d) {
    const uint c = rest % params.dims[d];
    rest /= params.dims[d];
    ia += c * params.a_strides[d];
    ib += c * params.b_strides[d];
  }
  const float u = a[ia], v = b[ib];
  float r;
  switch (OP) {
    case 0: r = u + params.alpha * v; break;
    case 1: r = u - params.alpha * v; break;
    case 2: r = u * v; break;
    case 3: r = u / v; break;
    case 4: r = nan_max(u, v); break;
    case 5: r = nan_min(u, v); break;
    default: r = pow_c(u, v); break;
  }
  y[i] = r;
}
