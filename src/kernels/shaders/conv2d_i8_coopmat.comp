#version 450
// 2-d convolution of int8 tensors with int32 accumulation on NV int8 cooperative matrices
// (kernels::Kernel::kConv2dI8Coopmat; TOSA 1.0 CONV2D, a fully connected layer as a 1x1 CONV2D),
// with the same fused epilogue as conv2d_i8.glsl (conv2d_i8_io.glsl's store_output).
//
// Implicit GEMM: rows m are output positions (M = batch * OH * OW), columns n the output
// channels of group gl_WorkGroupID.z, K = KH * KW * (C / groups) walked tap-major as in
// conv2d_i8.glsl: chunks of 4 consecutive k packed little-endian into a uint, the input's
// padding read as input_zp, K's tail and rows past M or columns past OCg as 0. The zero points
// come out of the sum: sum (x - zx)(w - zw) = sum xw - zw sum x - zx sum w + K zx zw.
//
// A workgroup of 8 subgroups of 32 computes a BM x BN tile (BM = 128, BN = 64 or 128), walking
// K in slices of BK = 64: each invocation loads LOADS_A chunks of A and LOADS_B of B into
// registers (the next slice's while the subgroups multiply the current one), stores them into
// the shared tiles, A as [m][k] and B as [n][k] (rows of BK bytes padded by 16: fragment rows
// start 16-byte aligned and the 8 rows one fragment load reads fall in distinct banks), and
// sums their bytes for the sum x / sum w terms. Subgroup s owns rows (s / 2) * 32 and columns
// (s % 2) * BN / 2: FM x FN int32 accumulator fragments of LM x LN (specialization constants:
// 16x16, 16x8 or 8x8, K 32, the shapes VK_NV_cooperative_matrix lists), int8 A fragments
// LM x 32 loaded row-major and B fragments 32 x LN column-major. Epilogue: each subgroup stores
// one accumulator fragment at a time into its own part of the (then free) shared tiles, and
// each invocation corrects and stores elements e = lane + 32 i of it (consecutive columns:
// consecutive output channels) through store_output.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "kernels/shaders/conv2d_i8_io.glsl"

layout(local_size_x = 256) in;
// Fragment rows and columns (kernels::kI8CoopmatFragM/NConstant), tile columns (kI8CoopmatBnConstant);
// 1 and 2 are conv2d_i8.glsl's TM and TN, which this kernel does not have.
layout(constant_id = 3) const uint LM = 16u;
layout(constant_id = 4) const uint LN = 16u;
layout(constant_id = 5) const uint BN = 128u;

const uint SUBGROUP = 32u, INVOCATIONS = 256u;
const uint BM = 128u, BK = 64u, LK = 32u;
const uint SB_M = BM / 4u, SB_N = BN / 2u;  // a subgroup's block: 4 x 2 subgroups
const uint FM = SB_M / LM, FN = SB_N / LN;  // at most 4 x 8 (8x8 fragments, BN 128)
// Loops over fragments and B rows run to these literal bounds and skip the indices past FM, FN
// or LOADS_B: the build's optimizer unrolls them, every array index is a constant in the SPIR-V,
// and no driver has to unroll a loop bounded by a specialization constant to keep the
// accumulators in registers (on the H200 the int8 ResNet18 at batch 32 ran 13% faster).
const uint MAX_FM = 4u, MAX_FN = 8u;
const uint ROW_WORDS = BK / 4u + 4u;        // a shared row: BK bytes and 16 of padding
const uint CHUNKS = BK / 4u;                // chunks of 4 k in a row of a slice
const uint ROWS_PER_PASS = INVOCATIONS / CHUNKS;
const uint LOADS_A = BM / ROWS_PER_PASS;     // 8
const uint LOADS_B = BN / ROWS_PER_PASS;     // 4 or 8
const uint MAX_LOADS_B = 128u / ROWS_PER_PASS;  // with BN 128
const uint B_FIRST = BM * ROW_WORDS;  // the B tile's first word
shared uint smem[(BM + 128u) * ROW_WORDS];
shared int row_sum[BM], col_sum[128];  // sum x over K per tile row, sum w per tile column

// This invocation's rows of each slice: r0 + l * ROWS_PER_PASS, chunk kq.
uint tid, r0, kq;
int in_zp, w_zp;
uint pad_word;
ivec2 stride_yx, dilation_yx;
// A rows: image (and group) input offset, window corner, m < M; B rows: weight row, n < OCg.
uint a_base[LOADS_A];
ivec2 a_corner[LOADS_A];
bool a_live[LOADS_A];
uint b_base[MAX_LOADS_B];
bool b_live[MAX_LOADS_B];
// The next slice's chunks, and the running byte sums of the chunks this invocation stored.
uint ra[LOADS_A], rb[MAX_LOADS_B];
int sum_a[LOADS_A], sum_b[MAX_LOADS_B];

icoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[MAX_FM][MAX_FN];

int byte_sum(uint v) {
  const ivec4 b = ivec4(unpack8(int(v)));
  return b.x + b.y + b.z + b.w;
}

// Input element (tap, channel ic) of A row l: in_zp in the padding.
int input_at(uint l, uint tap, uint ic) {
  const uint ky = tap / p.KW, kx = tap - ky * p.KW;
  const ivec2 at = a_corner[l] + ivec2(ky, kx) * dilation_yx;
  if (uint(at.x) >= p.IH || uint(at.y) >= p.IW) return in_zp;
  return int(x[a_base[l] + uint(at.x) * p.in_sh + uint(at.y) * p.in_sw + ic * p.in_sc]);
}

// The chunk of A row l at k (4 values from k, 0 past K).
uint load_a(uint l, uint k) {
  if (!a_live[l] || k >= p.K) return 0u;
  if (ALIGNED_K) {
    // ICg is a multiple of 4: the chunk is 4 channels of one tap.
    const uint tap = k / p.ICg, ic0 = k - tap * p.ICg;
    const uint ky = tap / p.KW, kx = tap - ky * p.KW;
    const ivec2 at = a_corner[l] + ivec2(ky, kx) * dilation_yx;
    if (uint(at.x) >= p.IH || uint(at.y) >= p.IW) return pad_word;
    const uint first = a_base[l] + uint(at.x) * p.in_sh + uint(at.y) * p.in_sw + ic0 * p.in_sc;
    if ((FLAGS & kWordsIn) != 0u) return xw[first / 4u];
    uint v = 0u;
    [[unroll]] for (uint e = 0u; e < 4u; ++e) v |= (uint(int(x[first + e * p.in_sc])) & 0xffu) << (8u * e);
    return v;
  }
  uint v = 0u;
  [[unroll]] for (uint e = 0u; e < 4u; ++e) {
    if (k + e >= p.K) break;
    const uint tap = (k + e) / p.ICg;
    v |= (uint(input_at(l, tap, k + e - tap * p.ICg)) & 0xffu) << (8u * e);
  }
  return v;
}

// The chunk of B row (output channel) l at k.
uint load_b(uint l, uint k) {
  if (!b_live[l] || k >= p.K) return 0u;
  if (ALIGNED_K) {
    const uint tap = k / p.ICg, ic0 = k - tap * p.ICg;
    const uint first = b_base[l] + ic0 * p.w_ic + tap * p.w_tap;
    if ((FLAGS & kWordsWeight) != 0u) return ww[first / 4u];
    uint v = 0u;
    [[unroll]] for (uint e = 0u; e < 4u; ++e) v |= (uint(int(w[first + e * p.w_ic])) & 0xffu) << (8u * e);
    return v;
  }
  uint v = 0u;
  [[unroll]] for (uint e = 0u; e < 4u; ++e) {
    if (k + e >= p.K) break;
    const uint tap = (k + e) / p.ICg;
    v |= (uint(int(w[b_base[l] + (k + e - tap * p.ICg) * p.w_ic + tap * p.w_tap])) & 0xffu) << (8u * e);
  }
  return v;
}

void load_slice(uint k0) {
  const uint k = k0 + 4u * kq;
  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) ra[l] = load_a(l, k);
  [[unroll]] for (uint l = 0u; l < MAX_LOADS_B; ++l) {
    if (l < LOADS_B) rb[l] = load_b(l, k);
  }
}

void store_slice() {
  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) {
    smem[(r0 + l * ROWS_PER_PASS) * ROW_WORDS + kq] = ra[l];
    if (w_zp != 0) sum_a[l] += byte_sum(ra[l]);
  }
  [[unroll]] for (uint l = 0u; l < MAX_LOADS_B; ++l) {
    if (l < LOADS_B) {
      smem[B_FIRST + (r0 + l * ROWS_PER_PASS) * ROW_WORDS + kq] = rb[l];
      if (in_zp != 0) sum_b[l] += byte_sum(rb[l]);
    }
  }
}

// This subgroup's block of the tile: first row and column.
uvec2 subgroup_block() { return uvec2((gl_SubgroupID / 2u) * SB_M, (gl_SubgroupID % 2u) * SB_N); }

void multiply_slice() {
  const uvec2 at = subgroup_block();
  [[unroll]] for (uint kk = 0u; kk < BK; kk += LK) {
    // Offsets and strides in words: A (m, k) at m * ROW_WORDS + k / 4 (row-major), B (k, n) at
    // n * ROW_WORDS + k / 4 (column-major).
    icoopmatNV<8, gl_ScopeSubgroup, LM, LK> fa[MAX_FM];
    [[unroll]] for (uint i = 0u; i < MAX_FM; ++i) {
      if (i < FM) coopMatLoadNV(fa[i], smem, (at.x + i * LM) * ROW_WORDS + kk / 4u, ROW_WORDS, false);
    }
    [[unroll]] for (uint j = 0u; j < MAX_FN; ++j) {
      icoopmatNV<8, gl_ScopeSubgroup, LK, LN> fb;
      if (j < FN) coopMatLoadNV(fb, smem, B_FIRST + (at.y + j * LN) * ROW_WORDS + kk / 4u, ROW_WORDS, true);
      [[unroll]] for (uint i = 0u; i < MAX_FM; ++i) {
        if (i < FM && j < FN) acc[i][j] = coopMatMulAddNV(fa[i], fb, acc[i][j]);
      }
    }
  }
}

void main() {
  tid = gl_SubgroupID * SUBGROUP + gl_SubgroupInvocationID;
  r0 = tid / CHUNKS;
  kq = tid % CHUNKS;
  const uint tile_m0 = gl_WorkGroupID.x * BM, tile_n0 = gl_WorkGroupID.y * BN, g = gl_WorkGroupID.z;
  in_zp = bitfieldExtract(int(p.zero_points), 0, 16);
  w_zp = bitfieldExtract(int(p.zero_points), 16, 16);
  pad_word = uint(in_zp & 0xff) * 0x01010101u;
  stride_yx = ivec2(p.stride & 0xffffu, p.stride >> 16);
  dilation_yx = ivec2(p.dilation & 0xffffu, p.dilation >> 16);
  const ivec2 pad_yx = ivec2(p.pad & 0xffffu, p.pad >> 16);
  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) {
    const uint m = tile_m0 + r0 + l * ROWS_PER_PASS;
    a_live[l] = m < p.M;
    const uint ox = m % p.OW, t = m / p.OW;
    const uint oy = t % p.OH, n = t / p.OH;
    a_base[l] = p.off_in + n * p.in_sn + g * p.ICg * p.in_sc;
    a_corner[l] = ivec2(oy, ox) * stride_yx - pad_yx;
    sum_a[l] = 0;
  }
  [[unroll]] for (uint l = 0u; l < MAX_LOADS_B; ++l) {
    const uint n = tile_n0 + r0 + l * ROWS_PER_PASS;
    b_live[l] = l < LOADS_B && n < p.OCg;
    b_base[l] = p.off_w + (g * p.OCg + n) * p.w_oc;
    sum_b[l] = 0;
  }
  [[unroll]] for (uint i = 0u; i < MAX_FM; ++i) {
    [[unroll]] for (uint j = 0u; j < MAX_FN; ++j) {
      if (i < FM && j < FN) acc[i][j] = icoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0);
    }
  }
  if (tid < BM) row_sum[tid] = 0;
  if (tid < BN) col_sum[tid] = 0;

  load_slice(0u);
  for (uint k0 = 0u; k0 < p.K; k0 += BK) {
    barrier();  // every subgroup is done with the previous slice
    store_slice();
    barrier();
    if (k0 + BK < p.K) load_slice(k0 + BK);
    multiply_slice();
  }

  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) {
    if (w_zp != 0) atomicAdd(row_sum[r0 + l * ROWS_PER_PASS], sum_a[l]);
  }
  [[unroll]] for (uint l = 0u; l < MAX_LOADS_B; ++l) {
    if (l < LOADS_B && in_zp != 0) atomicAdd(col_sum[r0 + l * ROWS_PER_PASS], sum_b[l]);
  }
  barrier();  // the sums are complete and every subgroup is done with the shared tiles

  const uvec2 at = subgroup_block();
  const uint staging = gl_SubgroupID * LM * LN;  // LM x LN int32, row-major
  const uint lane = gl_SubgroupInvocationID;
  const int zz = int(p.K) * in_zp * w_zp;
  [[unroll]] for (uint i = 0u; i < MAX_FM; ++i) {
    [[unroll]] for (uint j = 0u; j < MAX_FN; ++j) {
      if (i < FM && j < FN) {
        coopMatStoreNV(acc[i][j], smem, staging, LN, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        // Elements e = lane + 32 i of the row-major fragment: 32 is a multiple of LN, so a lane
        // keeps its column (output channel) and its epilogue constants.
        const uint column = at.y + j * LN + lane % LN, n = tile_n0 + column;
        if (n < p.OCg) {
          const ChannelEpilogue c = channel_epilogue(g * p.OCg + n);
          const int column_terms = zz - in_zp * col_sum[column];
          for (uint e = lane; e < LM * LN; e += SUBGROUP) {  // not unrolled: one inlined epilogue
            const uint row = at.x + i * LM + e / LN, m = tile_m0 + row;
            if (m < p.M) store_output(m, g * p.OCg + n, int(smem[staging + e]) - w_zp * row_sum[row] + column_terms, c);
          }
        }
        subgroupBarrier();  // read before the next fragment overwrites it
      }
    }
  }
}
