// The cooperative-matrix core on the vectorised loads (gemm_tile.glsl with UNIVK_COOPMAT and
// UNIVK_VEC; included there, after the slot helpers): slice loading, fp16 shared tiles, the
// multiply and the epilogue.
//
// Slices: each invocation loads LOADS_A4 (LOADS_B4) groups of 4 consecutive elements along the
// operand's contiguous dimension (a_slot4, b_slot4): one 16-byte load with kFlagVecA (kFlagVecB),
// else 4 scalar loads; it keeps them as loaded (fp32) through the multiply of the current slice
// and converts them to fp16 (rounding to nearest even) only as it stores them to shared memory
// as one 8-byte word. A conversion at the load would be the loads' first use, so each
// invocation would wait for them before its multiply instead of during it (on an H100: GEMM
// 4096^3 1.17x slower on 128x128x16/8x8cv, 1.39x on 128x128x32/8x8cv, the batch-32
// convolutions 1.05-1.3x; docs/PERFORMANCE.md). Along M, the 4 elements of an A group lie in 4
// rows, A slots 4*l .. 4*l+3 (a_row in gemm_tile.glsl).
//
// Shared memory is one array of 8-byte words (4 halves), in halves: A buffers 0 and 1, then B
// buffers 0 and 1 (double-buffered: one barrier per slice). A is stored [m][k] when its loads
// walk K (kFlagAKFast), else [k][m]; B [k][n] when they walk N (kFlagBNFast), else [n][k]; rows
// padded by 8 halves, so fragment rows start 16-byte aligned and the 8 rows a fragment load
// reads at once fall in distinct banks. Each A buffer holds BM * (BK + 8) halves, the larger of
// the two layouts (BM >= BK; the planner checks), B likewise with BN.
//
// Subgroup s (of WG / 32, subgroups of 32) owns the block of rows (s / SG_N) * 4*TM and columns
// (s % SG_N) * 8*TN: FM x FN fragments of 16x16 fp32 accumulators (FM = TM / 4, FN = TN / 2).
// Epilogue: after the K loop the shared tiles are free; each subgroup stores one fragment at a
// time into its own 1 KiB of them (16 x 16 floats, row-major) and each invocation reads one
// column's values in 8 of its rows back (16 invocations per row: coalesced stores), so the
// kernel's epilogue (out_row, residual_at, store_out) runs per element as for the FMA cores,
// the 8 residual loads before the 8 stores.

const uint SUBGROUP = 32u;
const uint SG_N = BN / (8u * TN);
const uint FM = TM / 4u;
const uint FN = TN / 2u;
const bool A_K_FAST = (FLAGS & kFlagAKFast) != 0u;
const bool B_N_FAST = (FLAGS & kFlagBNFast) != 0u;
const uint A_STRIDE = A_K_FAST ? BK + 8u : BM + 8u;  // halves
const uint B_STRIDE = B_N_FAST ? BN + 8u : BK + 8u;
const uint A_HALVES = BM * (BK + 8u);  // one A buffer
const uint B_HALVES = BN * (BK + 8u);
const uint B_FIRST = 2u * A_HALVES;  // B buffer 0
shared uvec2 smem[(2u * (A_HALVES + B_HALVES)) / 4u];

// Fragments: at most 4 x 4 (a 64 x 64 block); the loops run to FM and FN.
fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> cm[4][4];

void coopmat_zero() {
  [[unroll]] for (uint i = 0u; i < FM; ++i) {
    [[unroll]] for (uint j = 0u; j < FN; ++j) cm[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  }
}

void load_slice(uint k0, bool check) {
  k_check = check;
  prepare_slice(k0);
  [[unroll]] for (uint l = 0u; l < LOADS_A4; ++l) {
    const uint k = a_slot4(l).y;
    if (VEC_A) {
      ra4[l] = load_a4(A_K_FAST ? l : 4u * l, k0, k);
    } else if (A_K_FAST) {
      ra4[l] = vec4(load_a(l, k0, k), load_a(l, k0, k + 1u), load_a(l, k0, k + 2u), load_a(l, k0, k + 3u));
    } else {
      ra4[l] = vec4(load_a(4u * l, k0, k), load_a(4u * l + 1u, k0, k), load_a(4u * l + 2u, k0, k),
                    load_a(4u * l + 3u, k0, k));
    }
  }
  [[unroll]] for (uint l = 0u; l < LOADS_B4; ++l) {
    const uvec2 s = b_slot4(l);
    if (VEC_B) {
      rb4[l] = load_b4(k0, s.x, s.y);
    } else if (B_N_FAST) {
      rb4[l] = vec4(load_b(k0, s.x, s.y), load_b(k0, s.x, s.y + 1u), load_b(k0, s.x, s.y + 2u),
                    load_b(k0, s.x, s.y + 3u));
    } else {
      rb4[l] = vec4(load_b(k0, s.x, s.y), load_b(k0, s.x + 1u, s.y), load_b(k0, s.x + 2u, s.y),
                    load_b(k0, s.x + 3u, s.y));
    }
  }
}

uvec2 packed(vec4 loaded) {
  const f16vec4 v = f16vec4(loaded);
  return uvec2(packFloat2x16(v.xy), packFloat2x16(v.zw));
}

void store_slice(uint buf) {
  [[unroll]] for (uint l = 0u; l < LOADS_A4; ++l) {
    const uvec2 s = a_slot4(l);  // (row, k): 4 along K or along M
    const uint h = buf * A_HALVES + (A_K_FAST ? s.x * A_STRIDE + s.y : s.y * A_STRIDE + s.x);
    smem[h / 4u] = packed(ra4[l]);
  }
  [[unroll]] for (uint l = 0u; l < LOADS_B4; ++l) {
    const uvec2 s = b_slot4(l);  // (k, column)
    const uint h = B_FIRST + buf * B_HALVES + (B_N_FAST ? s.x * B_STRIDE + s.y : s.y * B_STRIDE + s.x);
    smem[h / 4u] = packed(rb4[l]);
  }
}

// This subgroup's block of the tile: first row and column.
uvec2 subgroup_block() { return uvec2((gl_SubgroupID / SG_N) * (4u * TM), (gl_SubgroupID % SG_N) * (8u * TN)); }

void multiply_slice(uint buf) {
  const uvec2 at = subgroup_block();
  const uint a0 = buf * A_HALVES, b0 = B_FIRST + buf * B_HALVES;
  [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
    // Offsets and strides in 8-byte words. Fragment (m, k) of A: row-major in [m][k],
    // column-major in [k][m]; likewise B. (The layout argument must be a literal.) The A
    // fragments stay loaded while the B ones come one at a time (fewer registers).
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fa[4];
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
      const uint m = at.x + i * 16u;
      if (A_K_FAST) {
        coopMatLoadNV(fa[i], smem, (a0 + m * A_STRIDE + kk) / 4u, A_STRIDE / 4u, false);
      } else {
        coopMatLoadNV(fa[i], smem, (a0 + kk * A_STRIDE + m) / 4u, A_STRIDE / 4u, true);
      }
    }
    [[unroll]] for (uint j = 0u; j < FN; ++j) {
      const uint n = at.y + j * 16u;
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fb;
      if (B_N_FAST) {
        coopMatLoadNV(fb, smem, (b0 + kk * B_STRIDE + n) / 4u, B_STRIDE / 4u, false);
      } else {
        coopMatLoadNV(fb, smem, (b0 + n * B_STRIDE + kk) / 4u, B_STRIDE / 4u, true);
      }
      [[unroll]] for (uint i = 0u; i < FM; ++i) cm[i][j] = coopMatMulAddNV(fa[i], fb, cm[i][j]);
    }
  }
}

void store_tile(uint rows, uint columns) {
  barrier();  // every subgroup is done with the shared tiles
  const uvec2 at = subgroup_block();
  const uint staging = gl_SubgroupID * 128u;  // 16 x 16 floats in 8-byte words
  const uint lane = gl_SubgroupInvocationID;
  // This invocation's column of a fragment, and its rows r0 + 2q: each store writes two rows of
  // 16 consecutive columns.
  const uint c = lane % 16u, r0 = lane / 16u;
  [[unroll]] for (uint i = 0u; i < FM; ++i) {
    const uint m0 = tile_m0 + at.x + i * 16u + r0;
    uint row[8];
    [[unroll]] for (uint q = 0u; q < 8u; ++q) row[q] = m0 + 2u * q < rows ? out_row(m0 + 2u * q) : 0u;
    [[unroll]] for (uint j = 0u; j < FN; ++j) {
      coopMatStoreNV(cm[i][j], smem, staging, 8u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      const uint n = tile_n0 + at.y + j * 16u + c;
      // The 8 residuals first, then the 8 stores (store_out's declaration says why).
      float r[8];
      [[unroll]] for (uint q = 0u; q < 8u; ++q) {
        const bool inside = m0 + 2u * q < rows && n < columns;
        r[q] = (FLAGS & kFlagResidual) != 0u && inside ? residual_at(row[q], n) : 0.0;
      }
      [[unroll]] for (uint q = 0u; q < 8u; ++q) {
        const uint m = m0 + 2u * q;
        const uvec2 pair = smem[staging + (r0 + 2u * q) * 8u + c / 2u];
        if (m < rows && n < columns) store_out(row[q], m, n, uintBitsToFloat(c % 2u == 0u ? pair.x : pair.y), r[q]);
      }
      subgroupBarrier();  // read before the next fragment overwrites it
    }
  }
}
