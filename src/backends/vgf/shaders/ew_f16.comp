#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Fused elementwise program over fp16 tensors, computed in fp32 registers.
#include "shaders/common.glsl"
#include "shaders/ew_float_ops.glsl"
#define SCALAR float16_t
#define VEC4 f16vec4
#define TO_REG(x) float(x)
#define FROM_REG(x) float16_t(x)
#define VEC_TO_REG(v) vec4(v)
#define VEC_FROM_REG(r) f16vec4(r)
#include "shaders/elementwise.glsl"
