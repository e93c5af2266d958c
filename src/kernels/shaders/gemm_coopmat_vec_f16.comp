#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Operands loaded as fp32 (16-byte loads where aligned) and rounded to fp16 into double-buffered
// fp16 shared tiles, NV cooperative matrices with fp32 accumulation, several 16x16 fragments per
// subgroup (kernels::Kernel::kGemmCoopmatVecF16; the kernel: gemm.glsl, the core:
// gemm_coopmat_tile.glsl).
#define UNIVK_COOPMAT 1
#define UNIVK_VEC 1
#include "kernels/shaders/gemm.glsl"
