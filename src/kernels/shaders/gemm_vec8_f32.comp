#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// fp32 operands, fp32 FMA accumulation on the vectorised core with 8 x 8 accumulators
// (kernels::Kernel::kGemmVec8F32; the kernel: gemm.glsl, the core: gemm_tile.glsl's UNIVK_VEC).
#define UNIVK_VEC 1
#define UNIVK_VEC_8X8 1
#include "kernels/shaders/gemm.glsl"
