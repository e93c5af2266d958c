#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// CAST between fp32 and fp16 (TOSA 1.0: round to nearest even).
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] element count, P[3..8] dims,
// P[9..14] output strides, P[15..20] input strides.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(constant_id = 0) const uint IN_F16 = 0;
layout(constant_id = 1) const uint OUT_F16 = 1;

layout(std430, set = 0, binding = 1) writeonly buffer OutF { float OF[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutH { float16_t OH[]; };
layout(std430, set = 0, binding = 2) readonly buffer InF { float IF[]; };
layout(std430, set = 0, binding = 2) readonly buffer InH { float16_t IH[]; };

void main() {
  const uint total = P[2];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint o = P[0] + strided_offset(e, 3u, 9u);
  const uint i = P[1] + strided_offset(e, 3u, 15u);
  const float v = IN_F16 != 0u ? float(IH[i]) : IF[i];
  if (OUT_F16 != 0u) OH[o] = float16_t(v);
  else OF[o] = v;
}
