#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
// Strided copy of 16-bit elements (fp16, int16).
#include "shaders/common.glsl"
#define ELEM uint16_t
#define ELEM_FROM_BITS(u) uint16_t(u)
#include "shaders/copy.glsl"
