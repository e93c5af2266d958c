#version 450
// where(cond, x, y) and masked_fill(x, mask, value) with broadcasting: out = cond ? x : y over
// float32 values and a bool (one byte) condition. VARIANT 1 (masked_fill): the push constant
// `value` stands for x. Strides are per output dim (0 on broadcast dims).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;

layout(set = 0, binding = 0) readonly buffer Cond { uint8_t c[]; };
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 2) readonly buffer Y { float y[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float o[]; };
layout(push_constant) uniform Params {
  uint n;
  uint rank;
  float value;
  uint pad;
  uint dims[6];
  uint c_strides[6];
  uint x_strides[6];
  uint y_strides[6];
} p;

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  uint rest = i, ic = 0, ix = 0, iy = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint k = rest % p.dims[d];
    rest /= p.dims[d];
    ic += k * p.c_strides[d];
    ix += k * p.x_strides[d];
    iy += k * p.y_strides[d];
  }
  if (uint(c[ic]) != 0u) {
    o[i] = VARIANT == 1u ? p.value : x[ix];
  } else {
    o[i] = y[iy];
  }
}
