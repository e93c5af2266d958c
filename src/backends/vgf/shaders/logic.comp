#version 450
#extension GL_GOOGLE_include_directive : require
// EQUAL, GREATER, GREATER_EQUAL (fp32 operands, bool result), LOGICAL_AND, LOGICAL_OR,
// LOGICAL_XOR, LOGICAL_NOT (bool) and SELECT (bool condition, fp32 operands) of TOSA 1.0, with TOSA
// broadcasting (equal ranks, size-1 dims) through zero strides. Bools are one byte, 0 or 1
// (any non-zero byte reads as true).
// Bindings: 1 output, 2..4 inputs (operands 1..3; a unary or binary operator binds its last
// operand again). Params after 4 base words: P[4] element count, P[5..10] output dims,
// P[11..16] output strides, P[17..22], P[23..28], P[29..34] the operands' strides.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

// 0 EQUAL, 1 GREATER, 2 GREATER_EQUAL, 3 LOGICAL_AND, 4 LOGICAL_OR, 5 LOGICAL_NOT, 6 SELECT,
// 7 LOGICAL_XOR
layout(constant_id = 0) const uint MODE = 0;

layout(std430, set = 0, binding = 1) writeonly buffer Out8 { uint8_t O8[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutF { float OF[]; };
layout(std430, set = 0, binding = 2) readonly buffer A8 { uint8_t A8v[]; };
layout(std430, set = 0, binding = 2) readonly buffer AF { float AFv[]; };
layout(std430, set = 0, binding = 3) readonly buffer B8 { uint8_t B8v[]; };
layout(std430, set = 0, binding = 3) readonly buffer BF { float BFv[]; };
layout(std430, set = 0, binding = 4) readonly buffer CF { float CFv[]; };

void main() {
  const uint total = P[4];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint o = P[0] + strided_offset(e, 5u, 11u);
  const uint a = P[1] + strided_offset(e, 5u, 17u);
  const uint b = P[2] + strided_offset(e, 5u, 23u);
  if (MODE == 6u) {
    OF[o] = uint(A8v[a]) != 0u ? BFv[b] : CFv[P[3] + strided_offset(e, 5u, 29u)];
    return;
  }
  bool r;
  if (MODE <= 2u) {
    const float u = AFv[a], v = BFv[b];
    r = MODE == 0u ? u == v : (MODE == 1u ? u > v : u >= v);
  } else {
    const bool u = uint(A8v[a]) != 0u, v = uint(B8v[b]) != 0u;
    r = MODE == 3u ? (u && v) : (MODE == 4u ? (u || v) : (MODE == 7u ? u != v : !u));
  }
  O8[o] = uint8_t(r ? 1u : 0u);
}
