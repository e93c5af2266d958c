#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// fp32 operands, fp32 FMA accumulation (kernels::Kernel::kGemmF32; the kernel: gemm.glsl).
#include "kernels/shaders/gemm.glsl"
