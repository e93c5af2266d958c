#version 450
// int8 operands, int32 accumulation with one integer dot product per chunk (OpSDot; needs
// shaderIntegerDotProduct: kernels::Kernel::kConv2dI8Dot; the kernel: conv2d_i8.glsl).
#define UNIVK_DOT
#include "kernels/shaders/conv2d_i8.glsl"
