#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// AVG/MAX_POOL2D over fp16 tensors, fp32 accumulation (see pool.glsl).
#include "shaders/common.glsl"
#include "shaders/ew_float_ops.glsl"
#define SCALAR float16_t
#define PAIR f16vec2
#define QUAD f16vec4
#include "shaders/pool.glsl"
