#version 450
#extension GL_GOOGLE_include_directive : require
// Fused elementwise program over int32 tensors.
#include "shaders/common.glsl"
#include "shaders/ew_int_ops.glsl"
#define SCALAR int
#define VEC4 ivec4
#define TO_REG(x) (x)
#define FROM_REG(x) (x)
#define VEC_TO_REG(v) (v)
#define VEC_FROM_REG(r) (r)
#include "shaders/elementwise.glsl"
