#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Operands rounded to fp16, multiplied by NV cooperative matrices with fp32 accumulation
// (kernels::Kernel::kConv2dCoopmatF16; the kernel: conv2d.glsl, the core: gemm_tile.glsl).
#define UNIVK_COOPMAT 1
#include "kernels/shaders/conv2d.glsl"
