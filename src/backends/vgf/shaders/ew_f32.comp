#version 450
#extension GL_GOOGLE_include_directive : require
// Fused elementwise program over fp32 tensors.
#include "shaders/common.glsl"
#include "shaders/ew_float_ops.glsl"
#define SCALAR float
#define VEC4 vec4
#define TO_REG(x) (x)
#define FROM_REG(x) (x)
#define VEC_TO_REG(v) (v)
#define VEC_FROM_REG(r) (r)
#include "shaders/elementwise.glsl"
