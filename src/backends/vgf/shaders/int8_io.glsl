// 8-bit / 32-bit element access for the integer shaders (needs shaderInt8 and
// storageBuffer8BitAccess). Each tensor binding is declared as int8, int32 and float arrays at
// the same binding; a kind constant picks the view: 0 int8, 1 uint8, 2 int32, 3 fp32, 4 bool.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(std430, set = 0, binding = 1) writeonly buffer Out8 { int8_t O8[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out32 { int O32[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutF { float OF[]; };
layout(std430, set = 0, binding = 2) readonly buffer In8 { int8_t I8[]; };
layout(std430, set = 0, binding = 2) readonly buffer In32 { int I32[]; };
layout(std430, set = 0, binding = 2) readonly buffer InF { float IF[]; };

const uint KIND_INT8 = 0u, KIND_UINT8 = 1u, KIND_INT32 = 2u, KIND_FP32 = 3u, KIND_BOOL = 4u;

int load_int(uint kind, uint i) {
  if (kind == KIND_INT32) return I32[i];
  const int v = int(I8[i]);
  return kind == KIND_INT8 ? v : (v & 0xff);
}

// Stores the low bits of `v` (int8/uint8/bool) or the whole value (int32).
void store_int(uint kind, uint i, int v) {
  if (kind == KIND_INT32) O32[i] = v;
  else O8[i] = int8_t(v);
}

int clamp_to(uint kind, int v) {
  if (kind == KIND_INT8) return clamp(v, -128, 127);
  if (kind == KIND_UINT8) return clamp(v, 0, 255);
  return v;
}
