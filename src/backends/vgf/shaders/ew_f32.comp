#version 450
#extension GL_GOOGLE_include_directive : require
// Fused elementwise program over fp32 tensors.
#include "shaders/common.glsl"
#include "shaders/ew_float_ops.glsl"
#define SCALAR float
#include "shaders/elementwise.glsl"
