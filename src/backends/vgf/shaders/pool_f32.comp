#version 450
#extension GL_GOOGLE_include_directive : require
// AVG/MAX_POOL2D over fp32 tensors (see pool.glsl).
#include "shaders/common.glsl"
#include "shaders/ew_float_ops.glsl"
#define SCALAR float
#define PAIR vec2
#define QUAD vec4
#include "shaders/pool.glsl"
