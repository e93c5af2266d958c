// The batched strided GEMM's bindings and push constants (kernels::GemmPush), shared by the
// GEMM-shaped kernel (gemm.glsl) and the few-rows kernel (gemm_skinny_f32.comp). Bindings: 0 A,
// 1 B, 2 bias, 3 out, 4 residual (same strides as out), 5 scratch (split-K, gemm_tile.glsl);
// unused ones are bound to any buffer. Element (b, r, c) of an operand is at
// off + b * bs + r * rs + c * cs.
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 0) readonly buffer A4 { vec4 a4[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 1) readonly buffer B4 { vec4 b4[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 4) readonly buffer Residual { float res[]; };
layout(push_constant) uniform Params {
  uint off_a, off_b, off_bias, off_out, off_res;
  uint M, N, K;
  uint a_bs, a_rs, a_cs;
  uint b_bs, b_rs, b_cs;
  uint bias_bs, bias_rs, bias_cs;
  uint o_bs, o_rs, o_cs;
  float alpha, beta, lo, hi;
  uint split_pass;  // split-K's pass (gemm_tile.glsl)
} p;
