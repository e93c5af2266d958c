// Batched strided GEMM of fp32 tensors (the multiply's precision: the variant's core):
//   out[b] = act(alpha * (A[b] @ B[b]) + beta * bias[b] + residual[b])
// Every operand is addressed through (batch, row, column) element strides plus a base offset,
// so transposed and broadcast operands need no copy. Workgroup (x, y) picks the output tile
// (locate_tile, gemm_tile.glsl), z = batch * SPLITS + split. Bindings and push constants:
// gemm_io.glsl.
#include "kernels/shaders/gemm_tile.glsl"
#include "kernels/shaders/activation.glsl"
#include "kernels/shaders/gemm_io.glsl"
#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT) && !defined(UNIVK_VEC_8X8)
layout(set = 0, binding = 3) writeonly buffer Out4 { vec4 y4[]; };
#endif

void prepare_slice(uint k0) {}

float load_a(uint s, uint k0, uint kk) {
  const uint m = tile_m0 + a_row(s), k = k0 + kk;
  if (m >= p.M || (k_check && k >= k_end)) return 0.0;
  return a[p.off_a + batch_index() * p.a_bs + m * p.a_rs + k * p.a_cs];
}

float load_b(uint k0, uint kk, uint n_local) {
  const uint k = k0 + kk, n = tile_n0 + n_local;
  if ((k_check && k >= k_end) || n >= p.N) return 0.0;
  return b[p.off_b + batch_index() * p.b_bs + k * p.b_rs + n * p.b_cs];
}

#ifdef UNIVK_VEC
// 4 elements from the first: along K (kFlagAKFast: the column stride is 1) or M (the row
// stride is 1). The planner guarantees 4-aligned offsets and strides and a multiple of 4 as the
// walked extent, so the 4 are all inside or all outside.
vec4 load_a4(uint s, uint k0, uint kk) {
  const uint m = tile_m0 + a_row(s), k = k0 + kk;
  if (m >= p.M || (k_check && k >= k_end)) return vec4(0.0);
  return a4[(p.off_a + batch_index() * p.a_bs + m * p.a_rs + k * p.a_cs) / 4u];
}

// Along N (kFlagBNFast) or K, likewise.
vec4 load_b4(uint k0, uint kk, uint n_local) {
  const uint k = k0 + kk, n = tile_n0 + n_local;
  if ((k_check && k >= k_end) || n >= p.N) return vec4(0.0);
  return b4[(p.off_b + batch_index() * p.b_bs + k * p.b_rs + n * p.b_cs) / 4u];
}
#endif

uint out_row(uint m) { return batch_index() * p.o_bs + m * p.o_rs; }

float residual_at(uint row, uint n) { return res[p.off_res + row + n * p.o_cs]; }

void store_out(uint row, uint m, uint n, float v, float r) {
  v *= p.alpha;
  if ((FLAGS & kFlagBias) != 0u) {
    v += p.beta * bias[p.off_bias + batch_index() * p.bias_bs + m * p.bias_rs + n * p.bias_cs];
  }
  if ((FLAGS & kFlagResidual) != 0u) v += r;
  y[p.off_out + row + n * p.o_cs] = activation(ACT, v, p.lo, p.hi);
}

#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT) && !defined(UNIVK_VEC_8X8)
// residual_at and store_out for columns n .. n+3 (kFlagVecOut: the column stride is 1, the
// output 4-aligned; the residual's offset need not be, so its 4 loads are scalar).
vec4 residual4_at(uint row, uint n) {
  const uint o = p.off_res + row + n;
  return vec4(res[o], res[o + 1u], res[o + 2u], res[o + 3u]);
}

void store_out4(uint row, uint m, uint n, vec4 v, vec4 r) {
  v *= p.alpha;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    if ((FLAGS & kFlagBias) != 0u) {
      v[j] += p.beta * bias[p.off_bias + batch_index() * p.bias_bs + m * p.bias_rs + (n + j) * p.bias_cs];
    }
    if ((FLAGS & kFlagResidual) != 0u) v[j] += r[j];
    v[j] = activation(ACT, v[j], p.lo, p.hi);
  }
  y4[(p.off_out + row + n) / 4u] = v;
}
#endif

void main() {
  if (!locate_tile(p.M, p.N)) return;
  if (!split_k_sum_pass(p.split_pass)) gemm_main_loop(p.K);
  if (!split_k_reduce(p.split_pass)) return;
  store_tile(p.M, p.N);
}
