#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// Strided copy of 8-bit elements (int8, uint8, bool).
#include "shaders/common.glsl"
#define ELEM uint8_t
#define ELEM_FROM_BITS(u) uint8_t(u)
#include "shaders/copy.glsl"
