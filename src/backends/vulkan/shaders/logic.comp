#version 450
// Comparisons (float32 operands) and logical operators (bool operands) with broadcasting; the
// result is bool, one byte 0 or 1. VARIANT: the LogicOp (op_lowering.h) in the low 8 bits;
// kLogicScalar: operand b is the push constant `scalar`; kLogicScalarFirst: the scalar is the
// left operand. Comparisons follow IEEE (NaN compares unequal to everything, itself included).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint VARIANT = 0;
const uint kScalar = 1u << 8, kScalarFirst = 1u << 9;

layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 0) readonly buffer A8 { uint8_t a8[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 1) readonly buffer B8 { uint8_t b8[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint8_t y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint rank;
  float scalar;
  uint pad;
  uint dims[6];
  uint a_strides[6];
  uint b_strides[6];
} p;

bool compare(uint op, float u, float v) {
  switch (op) {
    case 0u: return u == v;
    case 1u: return u != v;
    case 2u: return u < v;
    case 3u: return u <= v;
    case 4u: return u > v;
  }
  return u >= v;
}

void main() {
  const uint i = linear_index();
  if (i >= p.n) return;
  uint rest = i, ia = 0, ib = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint c = rest % p.dims[d];
    rest /= p.dims[d];
    ia += c * p.a_strides[d];
    ib += c * p.b_strides[d];
  }
  const uint op = VARIANT & 0xffu;
  bool r;
  if (op >= 6u) {
    const bool u = uint(a8[ia]) != 0u;
    if (op == 8u) {
      r = !u;
    } else {
      const bool v = uint(b8[ib]) != 0u;
      r = op == 6u ? (u && v) : (op == 7u ? (u || v) : u != v);
    }
  } else if ((VARIANT & kScalar) != 0u) {
    r = (VARIANT & kScalarFirst) != 0u ? compare(op, p.scalar, a[ia]) : compare(op, a[ia], p.scalar);
  } else {
    r = compare(op, a[ia], b[ib]);
  }
  y[i] = uint8_t(r ? 1u : 0u);
}
