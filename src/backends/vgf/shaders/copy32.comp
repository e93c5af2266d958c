#version 450
#extension GL_GOOGLE_include_directive : require
// Strided copy of 32-bit elements (fp32, int32).
#include "shaders/common.glsl"
#define ELEM uint
#define ELEM_FROM_BITS(u) (u)
#include "shaders/copy.glsl"
