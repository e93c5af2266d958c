#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// REDUCE_ALL and REDUCE_ANY on bool tensors (reduce.glsl).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#define REDUCE_BOOL
#include "shaders/reduce.glsl"
