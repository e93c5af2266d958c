#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Batched GEMM of few rows (kernels::Kernel::kGemmSkinnyF32, planned by gemm_skinny.cc: batch-1
// linear layers), fp32:
//   out[b] = act(alpha * (A[b] @ B[b]) + beta * bias[b] + residual[b])
// for A's rows and B's columns contiguous along K (column stride of A and row stride of B 1) and
// K a multiple of 4; any other strides, as gemm.glsl.
//
// Workgroup (x, y, z) computes rows y * R .. y * R + R - 1 by columns x * NC .. x * NC + NC - 1
// of batch z. Its WG invocations split K instead of the output: the 4-element groups of K are
// cut into one contiguous range per team of 8 consecutive invocations, and a team walks its
// range 8 groups at a time, invocation t of the team taking group t of each 8. So the
// invocations of a team read neighbouring 16 bytes of each row and column (two cache lines
// serve the 8 lanes of a CPU implementation's SIMD loop, which runs one team at a time, and
// each team streams through its range; a GPU's loads coalesce into 128-byte segments), where a
// kernel of one output per invocation has each lane stream a row of its own. (Interleaving the
// whole workgroup instead, invocation i taking groups i, i + WG, ..., ran 1.7x slower on
// lavapipe from cold caches: each SIMD loop there strode through memory.) The R x NC partial
// sums then go through shared memory, and invocation j < R * NC adds output j's WG partials in
// invocation order (deterministic) and runs the epilogue. With kFlagVecA (kFlagVecB) a group loads as one
// 16-byte value, else as 4 scalars (the planner's vector access: the offsets and strides that
// walk it are multiples of 4).
#include "kernels/shaders/activation.glsl"
#include "kernels/shaders/gemm_io.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint R = 1;   // rows per workgroup
layout(constant_id = 2) const uint NC = 8;  // columns per workgroup
layout(constant_id = 6) const uint ACT = 0;
layout(constant_id = 7) const uint FLAGS = 0;

// kernels::detail's kFlag* (gemm_tile.glsl's values).
const uint kFlagBias = 1u, kFlagResidual = 2u, kFlagVecA = 64u, kFlagVecB = 128u;

const uint WG = gl_WorkGroupSize.x;
// Teams of TEAM consecutive invocations (WG is a multiple): each team walks a contiguous range of
// K, its invocations side by side.
const uint TEAM = 8u;
const uint TEAMS = WG / TEAM;
shared float partial[R * NC * WG];

// The 4 elements from K index 4 * g of row m of A and of column n of B.
vec4 row_of_a(uint batch, uint m, uint g) {
  const uint at = p.off_a + batch * p.a_bs + m * p.a_rs + 4u * g;
  if ((FLAGS & kFlagVecA) != 0u) return a4[at / 4u];
  return vec4(a[at], a[at + 1u], a[at + 2u], a[at + 3u]);
}

vec4 column_of_b(uint batch, uint n, uint g) {
  const uint at = p.off_b + batch * p.b_bs + n * p.b_cs + 4u * g;
  if ((FLAGS & kFlagVecB) != 0u) return b4[at / 4u];
  return vec4(b[at], b[at + 1u], b[at + 2u], b[at + 3u]);
}

void main() {
  const uint n0 = gl_WorkGroupID.x * NC, m0 = gl_WorkGroupID.y * R, batch = gl_WorkGroupID.z;
  const uint lane = gl_LocalInvocationID.x;
  // Rows and columns past the output read the last one (in bounds, uniform control flow) and
  // store nothing.
  float acc[R * NC];
  [[unroll]] for (uint o = 0u; o < R * NC; ++o) acc[o] = 0.0;
  const uint groups = p.K / 4u;
  const uint team = lane / TEAM, chunk = (groups + TEAMS - 1u) / TEAMS;
  const uint end = min(groups, (team + 1u) * chunk);
  for (uint g = team * chunk + lane % TEAM; g < end; g += TEAM) {
    vec4 rows[R];
    [[unroll]] for (uint r = 0u; r < R; ++r) rows[r] = row_of_a(batch, min(m0 + r, p.M - 1u), g);
    [[unroll]] for (uint c = 0u; c < NC; ++c) {
      const vec4 column = column_of_b(batch, min(n0 + c, p.N - 1u), g);
      [[unroll]] for (uint r = 0u; r < R; ++r) acc[r * NC + c] += dot(rows[r], column);
    }
  }
  [[unroll]] for (uint o = 0u; o < R * NC; ++o) partial[o * WG + lane] = acc[o];
  barrier();
  for (uint o = lane; o < R * NC; o += WG) {
    const uint m = m0 + o / NC, n = n0 + o % NC;
    if (m >= p.M || n >= p.N) continue;
    float v = 0.0;
    for (uint i = 0u; i < WG; ++i) v += partial[o * WG + i];
    v *= p.alpha;
    if ((FLAGS & kFlagBias) != 0u) v += p.beta * bias[p.off_bias + batch * p.bias_bs + m * p.bias_rs + n * p.bias_cs];
    const uint at = batch * p.o_bs + m * p.o_rs + n * p.o_cs;
    if ((FLAGS & kFlagResidual) != 0u) v += res[p.off_res + at];
    y[p.off_out + at] = activation(ACT, v, p.lo, p.hi);
  }
}
