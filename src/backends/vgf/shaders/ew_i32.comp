#version 450
#extension GL_GOOGLE_include_directive : require
// Fused elementwise program over int32 tensors.
#include "shaders/common.glsl"
#include "shaders/ew_int_ops.glsl"
#define SCALAR int
#include "shaders/elementwise.glsl"
