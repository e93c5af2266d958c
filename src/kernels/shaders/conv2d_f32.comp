#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// fp32 operands, fp32 FMA accumulation (kernels::Kernel::kConv2dF32; the kernel: conv2d.glsl),
// with the K table for channels no slice divides.
#define UNIVK_CONV_K_TABLE 1
#include "kernels/shaders/conv2d.glsl"
