#version 450
#extension GL_GOOGLE_include_directive : require
// The fp32 and int32 reductions (reduce.glsl).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/reduce.glsl"
