// Fused elementwise shader body: 4 consecutive output elements per invocation. The includer
// defines the ops (ew_*_ops.glsl, which define REG), the stored types SCALAR and VEC4 (float and
// vec4, int and ivec4, float16_t and f16vec4) with their conversions TO_REG(scalar) /
// FROM_REG(component) / VEC_TO_REG(vec) / VEC_FROM_REG(reg), then includes this file.
// Bindings: 1 output, 2..5 inputs (program input slots 0..3).
// Params after the 5 base words: P[5] element count, P[6..11] output dims, P[12..17] output
// strides, P[18 + 6k ..] input k strides (0 on broadcast dims).
layout(local_size_x = 256) in;

// 0: strided (any views), 1: linear (all views packed, same shape), 2: linear with aligned
// 4-element loads/stores (the recorder picks 2 when every base offset is a multiple of 4).
layout(constant_id = 0) const uint MODE = 0;
layout(constant_id = 1) const uint NUM_INPUTS = 1;

layout(std430, set = 0, binding = 1) writeonly buffer Out { SCALAR O[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutV { VEC4 OV[]; };
layout(std430, set = 0, binding = 2) readonly buffer In0 { SCALAR I0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In0V { VEC4 I0V[]; };
layout(std430, set = 0, binding = 3) readonly buffer In1 { SCALAR I1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In1V { VEC4 I1V[]; };
layout(std430, set = 0, binding = 4) readonly buffer In2 { SCALAR I2[]; };
layout(std430, set = 0, binding = 4) readonly buffer In2V { VEC4 I2V[]; };
layout(std430, set = 0, binding = 5) readonly buffer In3 { SCALAR I3[]; };
layout(std430, set = 0, binding = 5) readonly buffer In3V { VEC4 I3V[]; };

#include "shaders/ew_program.glsl"

SCALAR load_scalar(uint k, uint i) {
  switch (k) {
    case 0u: return I0[i];
    case 1u: return I1[i];
    case 2u: return I2[i];
  }
  return I3[i];
}

REG load_vec(uint k, uint i4) {
  switch (k) {
    case 0u: return VEC_TO_REG(I0V[i4]);
    case 1u: return VEC_TO_REG(I1V[i4]);
    case 2u: return VEC_TO_REG(I2V[i4]);
  }
  return VEC_TO_REG(I3V[i4]);
}

void main() {
  const uint total = P[5];
  const uint groups = (total + 3u) / 4u;
  const uint g = invocation_index();
  if (g >= groups) return;
  const uint e0 = g * 4u;
  if (MODE == 2u) {
    [[unroll]] for (uint k = 0u; k < 4u; ++k)
      if (k < NUM_INPUTS) X[k] = load_vec(k, P[1u + k] / 4u + g);
    ew_run();
    OV[P[0] / 4u + g] = VEC_FROM_REG(ew_result());
    return;
  }
  const uint n = min(4u, total - e0);
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    if (k >= NUM_INPUTS) continue;
    REG v = REG(0);
    for (uint j = 0u; j < n; ++j) {
      uint off = MODE == 1u ? e0 + j : strided_offset(e0 + j, 6u, 18u + 6u * k);
      v[j] = TO_REG(load_scalar(k, P[1u + k] + off));
    }
    X[k] = v;
  }
  ew_run();
  REG r = ew_result();
  for (uint j = 0u; j < n; ++j) {
    uint off = MODE == 1u ? e0 + j : strided_offset(e0 + j, 6u, 12u);
    O[P[0] + off] = FROM_REG(r[j]);
  }
}
