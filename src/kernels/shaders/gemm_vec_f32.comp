#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// fp32 operands, fp32 FMA accumulation on the vectorised core (kernels::Kernel::kGemmVecF32; the
// kernel: gemm.glsl, the core: gemm_tile.glsl's UNIVK_VEC).
#define UNIVK_VEC 1
#include "kernels/shaders/gemm.glsl"
