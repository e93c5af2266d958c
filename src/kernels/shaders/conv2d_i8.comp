#version 450
// int8 operands, int32 accumulation with four multiplies per chunk (kernels::Kernel::kConv2dI8;
// the kernel: conv2d_i8.glsl).
#include "kernels/shaders/conv2d_i8.glsl"
