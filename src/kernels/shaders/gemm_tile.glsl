// The register-tiled core shared by the GEMM-shaped kernels (gemm_f32, conv2d_f32).
//
// A workgroup computes a BM x BN output tile; each of its (BM/TM)*(BN/TN) invocations holds
// TM x TN accumulators. K is walked in slices of BK: each invocation loads its share of the A
// slice (BM x BK) and the B slice (BK x BN) into registers, stores them to shared memory, and
// while the shared tiles are multiplied the next slice's loads are already in flight (register
// double buffering: one pair of barriers per slice). The planner (src/kernels/gemm.cc) picks the
// tiling and guarantees that the workgroup size divides BM*BK and BN*BK.
//
// Load order: a loader either walks M (N) fastest across neighbouring invocations, or K
// fastest, whichever is contiguous in memory (FLAGS bits), so global loads coalesce.
//
// Precision: fp32 FMAs by default. With kFlagF16Operands, every operand value is rounded to
// fp16 as it is loaded and the products are accumulated in fp32 (the numerics of the
// cooperative-matrix variant, for devices without it). UNIVK_COOPMAT (defined by the
// *_coopmat_f16 shaders) keeps the staged loads but stores the slices to shared memory as fp16
// and multiplies them with NV cooperative matrices (16x16x16, fp32 accumulators): the
// workgroup is 8 subgroups of 32 in a 4 x 2 grid, each owning a (BM/4) x (BN/2) block of the
// tile; after the K loop the accumulators go through shared memory into acc[][] in the FMA
// core's layout, so the epilogues are shared; it has no split-K (split_k_reduce). The planner
// runs it only on devices that report that shape, with 256 invocations, subgroups of 32, BM/4
// and BN/2 multiples of 16, and never splits it.
//
// DIRECT (for CPU implementations, where barriers and shared memory cost more than they save):
// no shared memory; each invocation reads its TM rows of A and TN columns of B straight from
// the buffers, one k at a time.
//
// Split-K (SPLITS > 1, kernels::KernelDispatch::splits): K is cut into SPLITS ranges of
// split_chunk(K) elements (a multiple of BK, so a range starts on a slice boundary), and
// workgroup z is batch_index() * SPLITS + split_index(). Each workgroup stores its partial tile
// to the scratch binding, then counts itself in its tile's counter (an atomic in scratch); the
// one that arrives last sums the SPLITS partials in split order (deterministic whichever
// arrives last), resets the counter to zero and runs the epilogue. The others end. Scratch
// layout, in 32-bit words: one counter per output tile (batch-major, then row tile, column
// tile), padded to a multiple of 64; then per tile and split, BM*BN partial sums, element
// (i, j) of invocation t at (i*TN + j)*WG + t (coalesced). The counters must be zero before
// the dispatch: record_kernel zeroes them (vkCmdFillBuffer), and the last arrival leaves them
// zero again.
//
// Tiles: workgroups (x, y) enumerate the output tiles of a batch row-major, tile y *
// gl_NumWorkGroups.x + x, with column_tiles tiles per row (locate_tile). On the natural grid
// (x = column tiles) that is row tile y, column tile x; when the row tiles exceed the device's
// y limit the planner widens x to a multiple of the column tiles, and the workgroups past the
// last tile end at once.
//
// The including shader defines, after including this file,
//   float load_a(uint s, uint k0, uint kk): A at row a_row(s) of the tile, k = k0 + kk;
//   float load_b(uint k0, uint kk, uint n): B at k = k0 + kk, column n of the tile;
// which return 0 for k >= k_end (only the last slice of a range needs the check: k_check is
// false for the others), calls locate_tile() first (and ends when it returns false), then
// gemm_main_loop(K), then split_k_reduce() before its epilogue. k0 is a multiple of BK in the
// staged path: slice-uniform work can hang off it.

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 16;
layout(constant_id = 4) const uint TM = 4;
layout(constant_id = 5) const uint TN = 4;
layout(constant_id = 6) const uint ACT = 0;    // kernels::Activation of the epilogue
layout(constant_id = 7) const uint FLAGS = 0;  // kFlag* below
layout(constant_id = 8) const uint DIRECT = 0;
layout(constant_id = 9) const uint SPLITS = 1;  // K ranges (split-K); see above

const uint kFlagBias = 1u;      // add the bias operand
const uint kFlagResidual = 2u;  // add the residual operand (before the activation)
const uint kFlagAKFast = 4u;    // A slice loads walk K fastest (else M)
const uint kFlagBNFast = 8u;    // B slice loads walk N fastest (else K)
// 16: the including kernel's own flag.
const uint kFlagF16Operands = 32u;  // round operands to fp16 (see Precision above)

const uint THREADS_M = BM / TM;
const uint THREADS_N = BN / TN;
const uint WG = THREADS_M * THREADS_N;
const uint LOADS_A = BM * BK / WG;
const uint LOADS_B = BN * BK / WG;
// A rows this invocation reads (its slots): its accumulator rows when DIRECT, else its share
// of the staged slice.
const uint A_SLOTS = DIRECT != 0u ? TM : LOADS_A;

#ifdef UNIVK_COOPMAT
// fp16 slices, each stored in the order its loaders walk (FLAGS), so neighbouring invocations
// write neighbouring halves: A as [k][m] (M fastest) or [m][k] (K fastest), B as [k][n] or
// [n][k]; the fragment loads read them column- or row-major to match. Rows are padded by 8
// halves (16 bytes), keeping every fragment's start and stride 16-byte aligned as
// cooperative-matrix loads require.
const bool A_K_FAST = (FLAGS & kFlagAKFast) != 0u;
const bool B_N_FAST = (FLAGS & kFlagBNFast) != 0u;
const uint A_STRIDE = A_K_FAST ? BK + 8u : BM + 8u;
const uint B_STRIDE = B_N_FAST ? BN + 8u : BK + 8u;
// Sized for the larger layout (BM, BN >= BK): sizes chosen by a spec-constant select misplaced
// the arrays on the H200's driver.
shared float16_t As[BM * (BK + 8u)];
shared float16_t Bs[BN * (BK + 8u)];
// The accumulators on their way into acc[][], row-major.
shared float Cs[BM * BN];
const uint FRAG_M = BM / 64u;  // 16x16 fragments per subgroup along M (4 subgroups)
const uint FRAG_N = BN / 32u;  // and along N (2 subgroups)
fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> cm[2][2];
#else
// One column of padding: a K-fastest store then hits distinct banks.
shared float As[BK][BM + 1];
shared float Bs[BK][BN + 1];
#endif

// The scratch (split-K). The cooperative-matrix variants have no split-K (split_k_reduce), so
// their binding goes unused.
#ifdef UNIVK_COOPMAT
layout(set = 0, binding = 5) buffer Scratch { uint scratch[]; };
#else
layout(set = 0, binding = 5) coherent buffer Scratch { uint scratch[]; };
#endif

float acc[TM][TN];
// End of this workgroup's K range; whether the slice being loaded may reach past it.
uint k_end;
bool k_check;
shared uint last_arrival;
float ra[LOADS_A];
float rb[LOADS_B];

// This invocation's accumulator rows are tm + i*THREADS_M, its columns tn + j*THREADS_N: the
// interleaving makes neighbouring invocations read neighbouring shared-memory words.
uint tile_row() { return gl_LocalInvocationID.x / THREADS_N; }
uint tile_col() { return gl_LocalInvocationID.x % THREADS_N; }

// (row in the tile, k in the slice) of A slot l of this invocation.
uvec2 a_slot(uint l) {
  const uint e = gl_LocalInvocationID.x + l * WG;
  return (FLAGS & kFlagAKFast) != 0u ? uvec2(e / BK, e % BK) : uvec2(e % BM, e / BM);
}
// (k in the slice, column in the tile) of B slot l of this invocation.
uvec2 b_slot(uint l) {
  const uint e = gl_LocalInvocationID.x + l * WG;
  return (FLAGS & kFlagBNFast) != 0u ? uvec2(e / BN, e % BN) : uvec2(e % BK, e / BK);
}

uint ceil_div(uint a, uint b) { return a / b + (a % b != 0u ? 1u : 0u); }

// First output row and column of this workgroup's tile (locate_tile).
uint tile_m0;
uint tile_n0;

// Sets tile_m0 and tile_n0 for an output of rows x columns; false for a workgroup past the
// last tile (see Tiles above). Uniform across the workgroup.
bool locate_tile(uint rows, uint columns) {
  const uint column_tiles = ceil_div(columns, BN);
  const uint t = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint row_tile = t / column_tiles;
  tile_m0 = row_tile * BM;
  tile_n0 = (t - row_tile * column_tiles) * BN;
  return row_tile < ceil_div(rows, BM);
}

// The batch (or group) and the K range of this workgroup.
uint batch_index() { return gl_WorkGroupID.z / SPLITS; }
uint split_index() { return gl_WorkGroupID.z % SPLITS; }
// K elements per split: ceil(K / SPLITS) rounded up to BK (kernels::detail::split_chunk).
uint split_chunk(uint K) { return SPLITS == 1u ? K : ((K + SPLITS - 1u) / SPLITS + BK - 1u) / BK * BK; }

// Row within the tile of A slot s.
uint a_row(uint s) { return DIRECT != 0u ? tile_row() + s * THREADS_M : a_slot(s).x; }

float load_a(uint s, uint k0, uint kk);
float load_b(uint k0, uint kk, uint n);

// `v` as the multiply sees it: rounded to fp16 with kFlagF16Operands (Precision above).
// The rounding is spelt out (to nearest, ties to even, as the cooperative-matrix variants'
// conversion and the tests' reference round): packHalf2x16's rounding mode is the
// implementation's, and the H200's driver did not round to nearest there. The quantum is the
// fp16 spacing at v's exponent (2^-24 below fp16's normal range); dividing and multiplying by a
// power of two is exact, so roundEven does all the rounding. Past 65504 it gives 65536 or more:
// infinity, as the conversion would.
float round_to_fp16(float v) {
  if (isnan(v) || isinf(v)) return v;
  int e;
  frexp(v, e);
  const float quantum = ldexp(1.0, max(e - 1, -14) - 10);
  const float r = roundEven(v / quantum) * quantum;
  return abs(r) > 65504.0 ? sign(r) * uintBitsToFloat(0x7f800000u) : r;
}

float operand(float v) { return (FLAGS & kFlagF16Operands) != 0u ? round_to_fp16(v) : v; }

void load_slice(uint k0, bool check) {
  k_check = check;
  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) ra[l] = operand(load_a(l, k0, a_slot(l).y));
  [[unroll]] for (uint l = 0u; l < LOADS_B; ++l) {
    const uvec2 s = b_slot(l);
    rb[l] = operand(load_b(k0, s.x, s.y));
  }
}

void store_slice() {
  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) {
    const uvec2 s = a_slot(l);
#ifdef UNIVK_COOPMAT
    As[A_K_FAST ? s.x * A_STRIDE + s.y : s.y * A_STRIDE + s.x] = float16_t(ra[l]);
#else
    As[s.y][s.x] = ra[l];
#endif
  }
  [[unroll]] for (uint l = 0u; l < LOADS_B; ++l) {
    const uvec2 s = b_slot(l);
#ifdef UNIVK_COOPMAT
    Bs[B_N_FAST ? s.x * B_STRIDE + s.y : s.y * B_STRIDE + s.x] = float16_t(rb[l]);
#else
    Bs[s.x][s.y] = rb[l];
#endif
  }
}

#ifdef UNIVK_COOPMAT
// This subgroup's block of the tile: first row and column.
uvec2 subgroup_block() { return uvec2((gl_SubgroupID / 2u) * (BM / 4u), (gl_SubgroupID % 2u) * (BN / 2u)); }

void multiply_slice() {
  const uvec2 at = subgroup_block();
  [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fa[2];
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fb[2];
    // Fragment (m, k) of A: row-major in [m][k], column-major in [k][m]; likewise B.
    // (The layout argument must be a literal.)
    [[unroll]] for (uint i = 0u; i < FRAG_M; ++i) {
      const uint m = at.x + i * 16u;
      if (A_K_FAST) {
        coopMatLoadNV(fa[i], As, m * A_STRIDE + kk, A_STRIDE, false);
      } else {
        coopMatLoadNV(fa[i], As, kk * A_STRIDE + m, A_STRIDE, true);
      }
    }
    [[unroll]] for (uint j = 0u; j < FRAG_N; ++j) {
      const uint n = at.y + j * 16u;
      if (B_N_FAST) {
        coopMatLoadNV(fb[j], Bs, kk * B_STRIDE + n, B_STRIDE, false);
      } else {
        coopMatLoadNV(fb[j], Bs, n * B_STRIDE + kk, B_STRIDE, true);
      }
    }
    [[unroll]] for (uint i = 0u; i < FRAG_M; ++i) {
      [[unroll]] for (uint j = 0u; j < FRAG_N; ++j) cm[i][j] = coopMatMulAddNV(fa[i], fb[j], cm[i][j]);
    }
  }
}

// acc[][] = the cooperative accumulators, through shared memory.
void coopmat_to_acc() {
  const uvec2 at = subgroup_block();
  [[unroll]] for (uint i = 0u; i < FRAG_M; ++i) {
    [[unroll]] for (uint j = 0u; j < FRAG_N; ++j) {
      coopMatStoreNV(cm[i][j], Cs, (at.x + i * 16u) * BN + at.y + j * 16u, BN, false);
    }
  }
  barrier();
  const uint tm = tile_row(), tn = tile_col();
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = Cs[(tm + i * THREADS_M) * BN + tn + j * THREADS_N];
  }
}
#else

void multiply_slice() {
  const uint tm = tile_row(), tn = tile_col();
  [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
    float ar[TM];
    float br[TN];
    [[unroll]] for (uint i = 0u; i < TM; ++i) ar[i] = As[kk][tm + i * THREADS_M];
    [[unroll]] for (uint j = 0u; j < TN; ++j) br[j] = Bs[kk][tn + j * THREADS_N];
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
    }
  }
}

#endif

void direct_loop(uint k_begin) {
  const uint tn = tile_col();
  k_check = false;
  for (uint k = k_begin; k < k_end; ++k) {
    float ar[TM];
    float br[TN];
    [[unroll]] for (uint i = 0u; i < TM; ++i) ar[i] = operand(load_a(i, k, 0u));
    [[unroll]] for (uint j = 0u; j < TN; ++j) br[j] = operand(load_b(k, 0u, tn + j * THREADS_N));
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
    }
  }
}

// Loads slice k0, checking K only when it reaches past k_end (the constant argument lets the
// compiler drop the checks from the other slices).
void load_slice_at(uint k0) {
  if (k0 + BK <= k_end) {
    load_slice(k0, false);
  } else {
    load_slice(k0, true);
  }
}

// acc = this workgroup's K range of the product.
void gemm_main_loop(uint K) {
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = 0.0;
  }
  const uint chunk = split_chunk(K);
  const uint k_begin = min(K, split_index() * chunk);
  k_end = min(K, k_begin + chunk);
#ifdef UNIVK_COOPMAT
  [[unroll]] for (uint i = 0u; i < FRAG_M; ++i) {
    [[unroll]] for (uint j = 0u; j < FRAG_N; ++j) cm[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  }
#endif
  if (k_begin < k_end) {
    if (DIRECT != 0u) {
      direct_loop(k_begin);
      return;
    }
    load_slice_at(k_begin);
    for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
      store_slice();
      barrier();
      if (k0 + BK < k_end) load_slice_at(k0 + BK);
      multiply_slice();
      barrier();
    }
  }
#ifdef UNIVK_COOPMAT
  coopmat_to_acc();
#endif
}

// Split-K's reduction (see above); call from uniform control flow. Returns whether this
// workgroup runs the epilogue, with acc the sum over every split: always when SPLITS == 1.
bool split_k_reduce() {
#ifdef UNIVK_COOPMAT
  // Compiled out: with the reduction's device-scope atomics and fences merely present (even
  // specialised away by SPLITS = 1), the H200's driver (NVIDIA, Vulkan memory model) computed
  // wrong products; the planner never splits these variants (tiling.cc).
  return true;
#else
  if (SPLITS == 1u) return true;
  const uint lid = gl_LocalInvocationID.x;
  const uint tile = (batch_index() * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint tiles = gl_NumWorkGroups.x * gl_NumWorkGroups.y * (gl_NumWorkGroups.z / SPLITS);
  const uint partials = (tiles + 63u) / 64u * 64u + tile * SPLITS * (BM * BN) + lid;
  const uint mine = partials + split_index() * (BM * BN);
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) scratch[mine + (i * TN + j) * WG] = floatBitsToUint(acc[i][j]);
  }
  memoryBarrierBuffer();
  barrier();
  if (lid == 0u) {
    // Device-scope fences in the invocation that counts: the partials this workgroup wrote are
    // visible before its arrival is, and the others' before the last arrival reads them.
    memoryBarrierBuffer();
    const uint arrived = atomicAdd(scratch[tile], 1u);
    memoryBarrierBuffer();
    last_arrival = arrived == SPLITS - 1u ? 1u : 0u;
    if (arrived == SPLITS - 1u) atomicExchange(scratch[tile], 0u);  // zero for the next run
  }
  barrier();
  if (last_arrival == 0u) return false;
  memoryBarrierBuffer();
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = 0.0;
  }
  for (uint s = 0u; s < SPLITS; ++s) {
    const uint at = partials + s * (BM * BN);
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] += uintBitsToFloat(scratch[at + (i * TN + j) * WG]);
    }
  }
  return true;
#endif
}
