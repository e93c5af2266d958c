#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// 1x1 convolution without padding or groups, fp32 (kernels::Kernel::kConv2dPointwiseF32; the
// planner takes it on GPUs for short K, where the GEMM core's slices, barriers and register
// staging cost more than the few multiply-adds per output they serve):
//   out[m, n] = act(sum_k in[m, k] * w[n, k] + bias[n] + residual[m, n])
// over output positions m (batch, row, column; the input position is the output's times the
// stride) and output channels n, for any element strides of input, output and weight.
//
// A workgroup computes BM = RG * TM output positions by BN = 4 * CG output channels: its
// invocations form RG row groups by CG column groups, and each holds TM vec4 accumulators, 4
// consecutive output channels at TM positions (rows rg, rg + RG, ...: neighbouring invocations
// of a warp cover neighbouring positions and channels, so its stores coalesce). K goes in
// chunks of KC: the workgroup stages the chunk of the weight in shared memory as [k][n] vec4s
// (one barrier pair per chunk; a short K is one chunk), and each invocation reads its
// positions' input channels straight from memory, 4 at a time, and multiplies them with the
// staged vec4s. No split-K, and no register staging of the next step's loads: on the H200 that
// ran the short-K problems this kernel is for 10-25% slower.
// Vector access (FLAGS): input channels contiguous, K and the input's offset and strides
// multiples of 4 (kFlagVecIn), otherwise the same reads one element at a time; the stores as
// conv_store_f32.glsl says.
// Bindings: 0 input, 1 weight, 2 bias, 3 out, 4 residual (out's strides), 5 scratch (unused).
// The push-constant layout is kernels::Conv2dPush.
#include "kernels/shaders/activation.glsl"
#include "kernels/shaders/conv_push.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CG = 8;   // column groups (vec4s of output channels)
layout(constant_id = 2) const uint TM = 4;   // output positions per invocation
layout(constant_id = 3) const uint KC = 64;  // K per staged chunk, a multiple of 4
layout(constant_id = 6) const uint ACT = 0;
layout(constant_id = 7) const uint FLAGS = 0;

const uint kFlagVecIn = 64u;
const bool VEC_IN = (FLAGS & kFlagVecIn) != 0u;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 0) readonly buffer In4 { vec4 x4[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_res;
  UNIVK_CONV_PUSH_GEOMETRY
  uint bias_stride;  // 0: one bias value for every channel
  float lo, hi;
} p;
#include "kernels/shaders/conv_store_f32.glsl"

const uint WG = gl_WorkGroupSize.x;
const uint RG = WG / CG;
const uint BM = RG * TM;
const uint BN = 4u * CG;

shared vec4 Ws[KC * CG];

uint ceil_div(uint a, uint b) { return (a + b - 1u) / b; }

// The weight chunk from k0 into Ws, zero past K and past N.
void stage_weight(uint k0, uint n0) {
  for (uint e = gl_LocalInvocationID.x; e < KC * BN; e += WG) {
    // Walk whichever of k and n is contiguous in the weight, so the loads coalesce.
    const bool k_fast = p.w_ic <= p.w_oc;
    const uint kk = k_fast ? e % KC : e / BN;
    const uint nn = k_fast ? e / KC : e % BN;
    const uint k = k0 + kk, n = n0 + nn;
    Ws[kk * CG + nn / 4u][nn % 4u] = k < p.K && n < p.OCg ? w[p.off_w + n * p.w_oc + k * p.w_ic] : 0.0;
  }
}

// Input channels k..k+3 at element offset `at` of a position; zero past K.
vec4 load_in(uint at, uint k) {
  if (VEC_IN) return x4[(at + k) / 4u];
  vec4 v = vec4(0.0);
  [[unroll]] for (uint c = 0u; c < 4u; ++c) {
    if (k + c < p.K) v[c] = x[at + (k + c) * p.in_sc];
  }
  return v;
}

// Element offset of output position m's batch, row and column in a tensor with strides
// (sn, sh, sw), the position scaled by the stride for the input.
uint position_offset(uint m, uint sn, uint sh, uint sw, uint sy, uint sx) {
  const uint ox = m % p.OW, t = m / p.OW;
  const uint oy = t % p.OH, n = t / p.OH;
  return n * sn + oy * sy * sh + ox * sx * sw;
}

void main() {
  const uint column_tiles = ceil_div(p.OCg, BN);
  const uint t = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint row_tile = t / column_tiles;
  if (row_tile >= ceil_div(p.M, BM)) return;  // past the last tile (the grid folds rows into x)
  const uint m0 = row_tile * BM, n0 = (t - row_tile * column_tiles) * BN;
  const uint rg = gl_LocalInvocationID.x / CG, cg = gl_LocalInvocationID.x % CG;
  const uint sy = p.stride & 0xffffu, sx = p.stride >> 16;

  // Positions past M read position 0 and are not stored.
  uint in_at[TM];
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = m0 + rg + i * RG;
    in_at[i] = p.off_in + position_offset(m < p.M ? m : 0u, p.in_sn, p.in_sh, p.in_sw, sy, sx);
  }
  vec4 acc[TM];
  [[unroll]] for (uint i = 0u; i < TM; ++i) acc[i] = vec4(0.0);

  for (uint k0 = 0u; k0 < p.K; k0 += KC) {
    if (k0 > 0u) barrier();  // every invocation is done with the previous chunk
    stage_weight(k0, n0);
    barrier();
    const uint kc = min(KC, p.K - k0);
    for (uint kk = 0u; kk < kc; kk += 4u) {
      vec4 a[TM];
      [[unroll]] for (uint i = 0u; i < TM; ++i) a[i] = load_in(in_at[i], k0 + kk);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        const vec4 b = Ws[(kk + c) * CG + cg];
        [[unroll]] for (uint i = 0u; i < TM; ++i) acc[i] = fma(vec4(a[i][c]), b, acc[i]);
      }
    }
  }

  const uint n = n0 + 4u * cg;
  if (n >= p.OCg) return;
  const vec4 b = channel_bias(n);
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = m0 + rg + i * RG;
    if (m >= p.M) continue;
    store_channels(position_offset(m, p.out_sn, p.out_sh, p.out_sw, 1u, 1u) + n * p.out_sc, n, acc[i] + b);
  }
}
