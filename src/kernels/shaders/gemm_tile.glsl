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
// UNIVK_VEC (defined by the *_vec_f32 shaders): the vectorised FMA core. TM and TN are multiples
// of 4 (but TM of a direct tiling, which may be 1: then rows one at a time, acc_row) and each
// invocation owns TM/4 groups of 4 consecutive rows (group g: rows
// 4 * (g * THREADS_M + tm) + 0..3) and likewise TN/4 groups of 4 consecutive columns, so
// multiply_slice reads every operand as a vec4 from shared tiles stored [k][m] and [k][n]
// (neighbouring invocations read neighbouring vec4s), and the shared tiles are double-buffered:
// one barrier per slice. With kFlagVecA (kFlagVecB) the A (B) slice is loaded as 16-byte vectors
// along the operand's contiguous dimension (K with kFlagAKFast, else M; N with kFlagBNFast,
// else K); the planner sets them only when every vector is aligned and inside the operand
// (kernels::KernelDispatch::vector_access). Otherwise the loads are the scalar ones above.
// With kFlagLean (Tiling::lean) the core keeps fewer values live: a slice goes from global to
// shared memory at once (the next slice into the other buffer before the multiply, no registers
// held across it), and the multiply reads one vec4 of A and one of B per 4x4 quarter of the
// accumulators.
//
// UNIVK_COOPMAT with UNIVK_VEC (the *_coopmat_vec_f16 shaders, gemm_coopmat_tile.glsl): the
// vectorised core's loads and double-buffered slices, stored to shared memory as packed fp16
// (each invocation converts 4 consecutive elements along the walked dimension as it stores them
// as one 8-byte word) and multiplied on NV cooperative matrices; each subgroup owns a (4*TM) x
// (8*TN) block of the tile, (TM/4) x (TN/2) fragments of 16x16, and its epilogue reads the
// fragments back through a 1 KiB shared staging area of its own. Split-K below.
//
// DIRECT (for CPU implementations, where barriers and shared memory cost more than they save):
// no shared memory; each invocation reads its TM rows of A and TN columns of B straight from
// the buffers, one k at a time; on the vectorised core (UNIVK_VEC) with both operands
// contiguous along K and vector loads allowed (kFlagVecA with kFlagAKFast, kFlagVecB without
// kFlagBNFast), 4 k at a time (direct_loop_vec).
//
// Split-K (SPLITS > 1, kernels::KernelDispatch::splits): K is cut into SPLITS ranges of
// split_chunk(K) elements (a multiple of BK, so a range starts on a slice boundary), and
// workgroup z is batch_index() * SPLITS + split_index(). The kernel runs twice over the same
// bindings (kernels::record_kernel), the pass in the push word split_pass: in pass 0 each
// workgroup computes its range and stores the partial tile to the scratch binding; in pass 1
// (after a barrier) the workgroups of split 0 skip the main loop, sum the tile's SPLITS
// partials in split order (deterministic) and run the epilogue, and the others end. Plain
// stores and loads: no atomics, no counters, nothing to zero. Scratch layout, in 32-bit words:
// per output tile (batch-major, then row tile, column tile) and split, BM*BN partial sums. FMA
// cores: element (i, j) of invocation t at (i*TN + j)*WG + t (coalesced). Cooperative-matrix
// core on vectorised loads: fragment (i, j) of subgroup s at ((s*FM + i)*FN + j)*256,
// row-major 16 x 16. The older cooperative-matrix core never splits (the planner).
//
// Tiles: workgroups (x, y) enumerate the output tiles of a batch row-major, tile y *
// gl_NumWorkGroups.x + x, with column_tiles tiles per row (locate_tile). On the natural grid
// (x = column tiles) that is row tile y, column tile x; when the row tiles exceed the device's
// y limit the planner widens x to a multiple of the column tiles, and the workgroups past the
// last tile end at once.
//
// The including shader defines, after including this file,
//   void prepare_slice(uint k0): slice-uniform work before slice k0's loads (staged path);
//   float load_a(uint s, uint k0, uint kk): A at row a_row(s) of the tile, k = k0 + kk;
//   float load_b(uint k0, uint kk, uint n): B at k = k0 + kk, column n of the tile;
//   vec4 load_a4(uint s, uint k0, uint kk), vec4 load_b4(uint k0, uint kk, uint n): the same
//     from 4 consecutive elements along the operand's contiguous dimension (kFlagVecA/B);
//   uint out_row(uint m), float residual_at(uint row, uint n) and
//     void store_out(uint row, uint m, uint n, float v, float r): the epilogue of output
//     element (m, n), row = out_row(m) (more below, at their declarations);
// which return 0 for k >= k_end (only the last slice of a range needs the check: k_check is
// false for the others), calls locate_tile() first (and ends when it returns false), then
// gemm_main_loop(K) unless split_k_sum_pass(pass), then split_k_reduce(pass) (and ends when it
// returns false), then store_tile(rows, columns), which runs the
// epilogue on every element of the tile inside the output. k0 is a multiple of BK in the
// staged path: slice-uniform work can hang off it.

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 16;
#ifdef UNIVK_VEC_8X8
// 8 x 8 accumulators known at compile time (specialization constants 4 and 5 go unused): the
// build's optimizer unrolls the accumulator loops and turns acc[][] into 64 scalars. With the
// sizes specialised, the H200's driver kept 64 accumulators in memory (12 times slower).
const uint TM = 8u;
const uint TN = 8u;
#else
layout(constant_id = 4) const uint TM = 4;
layout(constant_id = 5) const uint TN = 4;
#endif
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
const uint kFlagVecA = 64u;         // A slice loads are 16-byte vectors (UNIVK_VEC above)
const uint kFlagVecB = 128u;        // B slice loads likewise
const uint kFlagLean = 256u;        // UNIVK_VEC: the lean loop (above)
const uint kFlagVecOut = 512u;      // UNIVK_VEC (FMA core, not 8x8): 16-byte output stores (store_tile)

const uint THREADS_M = BM / TM;
const uint THREADS_N = BN / TN;
const uint WG = THREADS_M * THREADS_N;
// Slice elements per invocation (staged path); at least 1, as a zero-length array is not valid
// SPIR-V: a direct tiling may have fewer slice elements than invocations.
const uint LOADS_A = BM * BK < WG ? 1u : BM * BK / WG;
const uint LOADS_B = BN * BK < WG ? 1u : BN * BK / WG;
// A rows this invocation reads (its slots): its accumulator rows when DIRECT, else its share
// of the staged slice.
const uint A_SLOTS = DIRECT != 0u ? TM : LOADS_A;
#ifdef UNIVK_VEC
const bool VEC_A = (FLAGS & kFlagVecA) != 0u;
const bool VEC_B = (FLAGS & kFlagVecB) != 0u;
// Vector loads per invocation and slice (the planner's vector tilings make them whole).
const uint LOADS_A4 = BM * BK < 4u * WG ? 1u : BM * BK / (4u * WG);
const uint LOADS_B4 = BN * BK < 4u * WG ? 1u : BN * BK / (4u * WG);
#ifdef UNIVK_COOPMAT_VEC
// Whole vector slots (gemm_coopmat_tile.glsl): along K one row each; along M 4 rows, one A slot
// per row (the including kernel keeps per-row state per slot).
const uint A_LIVE_SLOTS = (FLAGS & kFlagAKFast) != 0u ? LOADS_A4 : 4u * LOADS_A4;
#else
// The A slots in use: slots 0..A_LIVE_SLOTS-1 of A_SLOTS (a vector slot covers 4 elements;
// DIRECT: one slot per accumulator row either way).
const uint A_LIVE_SLOTS = VEC_A && DIRECT == 0u ? LOADS_A4 : A_SLOTS;
#endif
#else
const uint A_LIVE_SLOTS = A_SLOTS;
#endif

#if defined(UNIVK_COOPMAT) && defined(UNIVK_VEC)
#define UNIVK_COOPMAT_VEC 1
#endif

#ifdef UNIVK_COOPMAT_VEC
// Declared by gemm_coopmat_tile.glsl.
#elif defined(UNIVK_COOPMAT)
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
#elif defined(UNIVK_VEC)
// Two buffers of [k][m] and [k][n] vec4s; one vec4 of padding per row, so the 4 scalar stores of
// a vector loaded along K hit distinct banks.
shared vec4 As4[2][BK][BM / 4u + 1u];
shared vec4 Bs4[2][BK][BN / 4u + 1u];
#else
// One column of padding: a K-fastest store then hits distinct banks.
shared float As[BK][BM + 1];
shared float Bs[BK][BN + 1];
#endif

// The scratch: split-K's partial tiles (above).
layout(set = 0, binding = 5) buffer Scratch { uint scratch[]; };

float acc[TM][TN];
// End of this workgroup's K range; whether the slice being loaded may reach past it.
uint k_end;
bool k_check;
float ra[LOADS_A];
float rb[LOADS_B];
#ifdef UNIVK_VEC
// The cooperative-matrix core keeps them as loaded too (fp32) and converts them to fp16 as it
// stores them to shared memory (gemm_coopmat_tile.glsl says why).
vec4 ra4[LOADS_A4];
vec4 rb4[LOADS_B4];
#endif

// This invocation's (tm, tn) in the THREADS_M x THREADS_N grid. Its accumulator rows are
// tm + i*THREADS_M, its columns tn + j*THREADS_N (UNIVK_VEC: groups of 4, acc_row below): the
// interleaving makes neighbouring invocations read neighbouring shared-memory words.
uint tile_row() { return gl_LocalInvocationID.x / THREADS_N; }
uint tile_col() { return gl_LocalInvocationID.x % THREADS_N; }

// Row and column in the tile of accumulator acc[i][j] (UNIVK_VEC: groups of 4, above).
#ifdef UNIVK_VEC
// Direct vectorised tilings of fewer than 4 rows per invocation (matrix-vector products) take
// rows one at a time, as the scalar core does.
uint acc_row(uint i) {
  return TM % 4u == 0u ? ((i / 4u) * THREADS_M + tile_row()) * 4u + i % 4u : tile_row() + i * THREADS_M;
}
uint acc_col(uint j) { return ((j / 4u) * THREADS_N + tile_col()) * 4u + j % 4u; }
#else
uint acc_row(uint i) { return tile_row() + i * THREADS_M; }
uint acc_col(uint j) { return tile_col() + j * THREADS_N; }
#endif

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

#ifdef UNIVK_VEC
// (first row, first k) of A vector slot l, and (first k, first column) of B vector slot l:
// 4 elements along the operand's contiguous dimension.
uvec2 a_slot4(uint l) {
  const uint e = gl_LocalInvocationID.x + l * WG;
  return (FLAGS & kFlagAKFast) != 0u ? uvec2(e / (BK / 4u), e % (BK / 4u) * 4u) : uvec2(e % (BM / 4u) * 4u, e / (BM / 4u));
}
uvec2 b_slot4(uint l) {
  const uint e = gl_LocalInvocationID.x + l * WG;
  return (FLAGS & kFlagBNFast) != 0u ? uvec2(e / (BN / 4u), e % (BN / 4u) * 4u) : uvec2(e % (BK / 4u) * 4u, e / (BK / 4u));
}
#endif

// Row within the tile of A slot s.
uint a_row(uint s) {
#ifdef UNIVK_COOPMAT_VEC
  return (FLAGS & kFlagAKFast) != 0u ? a_slot4(s).x : a_slot4(s / 4u).x + s % 4u;
#elif defined(UNIVK_VEC)
  if (VEC_A && DIRECT == 0u) return a_slot4(s).x;
#endif
  return DIRECT != 0u ? acc_row(s) : a_slot(s).x;
}

void prepare_slice(uint k0);
float load_a(uint s, uint k0, uint kk);
float load_b(uint k0, uint kk, uint n);
#ifdef UNIVK_VEC
vec4 load_a4(uint s, uint k0, uint kk);
vec4 load_b4(uint k0, uint kk, uint n);
#endif
// The epilogue, the including kernel's (m, n in the whole output): the part of output row m's
// address shared by its elements; the residual of element (m, n) (read only with
// kFlagResidual); then the element's store with accumulator v and residual r (added only with
// kFlagResidual). The residual is loaded apart from the store so that an epilogue can issue
// the loads of several elements before their stores: the output may alias the residual as far
// as the compiler knows, so it keeps each load after the stores before it, and an element at a
// time would wait out one load latency each.
uint out_row(uint m);
float residual_at(uint row, uint n);
void store_out(uint row, uint m, uint n, float v, float r);
#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT) && !defined(UNIVK_VEC_8X8)
vec4 residual4_at(uint row, uint n);
void store_out4(uint row, uint m, uint n, vec4 v, vec4 r);
#endif

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
vec4 operand4(vec4 v) {
  return (FLAGS & kFlagF16Operands) != 0u
             ? vec4(round_to_fp16(v.x), round_to_fp16(v.y), round_to_fp16(v.z), round_to_fp16(v.w))
             : v;
}

#ifdef UNIVK_COOPMAT_VEC
#include "kernels/shaders/gemm_coopmat_tile.glsl"
#else

void load_slice(uint k0, bool check) {
  k_check = check;
  prepare_slice(k0);
#ifdef UNIVK_VEC
  if (VEC_A) {
    [[unroll]] for (uint l = 0u; l < LOADS_A4; ++l) ra4[l] = operand4(load_a4(l, k0, a_slot4(l).y));
  } else {
    [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) ra[l] = operand(load_a(l, k0, a_slot(l).y));
  }
  if (VEC_B) {
    [[unroll]] for (uint l = 0u; l < LOADS_B4; ++l) {
      const uvec2 s = b_slot4(l);
      rb4[l] = operand4(load_b4(k0, s.x, s.y));
    }
  } else {
    [[unroll]] for (uint l = 0u; l < LOADS_B; ++l) {
      const uvec2 s = b_slot(l);
      rb[l] = operand(load_b(k0, s.x, s.y));
    }
  }
#else
  [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) ra[l] = operand(load_a(l, k0, a_slot(l).y));
  [[unroll]] for (uint l = 0u; l < LOADS_B; ++l) {
    const uvec2 s = b_slot(l);
    rb[l] = operand(load_b(k0, s.x, s.y));
  }
#endif
}

#ifdef UNIVK_VEC
// The loaded slice into shared buffer `buf`: vectors along M (N) whole, vectors along K and
// scalars one component at a time.
void store_slice(uint buf) {
  if (VEC_A) {
    [[unroll]] for (uint l = 0u; l < LOADS_A4; ++l) {
      const uvec2 s = a_slot4(l);
      if ((FLAGS & kFlagAKFast) != 0u) {
        [[unroll]] for (uint c = 0u; c < 4u; ++c) As4[buf][s.y + c][s.x / 4u][s.x % 4u] = ra4[l][c];
      } else {
        As4[buf][s.y][s.x / 4u] = ra4[l];
      }
    }
  } else {
    [[unroll]] for (uint l = 0u; l < LOADS_A; ++l) {
      const uvec2 s = a_slot(l);
      As4[buf][s.y][s.x / 4u][s.x % 4u] = ra[l];
    }
  }
  if (VEC_B) {
    [[unroll]] for (uint l = 0u; l < LOADS_B4; ++l) {
      const uvec2 s = b_slot4(l);
      if ((FLAGS & kFlagBNFast) != 0u) {
        Bs4[buf][s.x][s.y / 4u] = rb4[l];
      } else {
        [[unroll]] for (uint c = 0u; c < 4u; ++c) Bs4[buf][s.x + c][s.y / 4u][s.y % 4u] = rb4[l][c];
      }
    }
  } else {
    [[unroll]] for (uint l = 0u; l < LOADS_B; ++l) {
      const uvec2 s = b_slot(l);
      Bs4[buf][s.x][s.y / 4u][s.y % 4u] = rb[l];
    }
  }
}

const bool LEAN = (FLAGS & kFlagLean) != 0u;

void multiply_slice(uint buf) {
  const uint tm = tile_row(), tn = tile_col();
  if (LEAN) {
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
      [[unroll]] for (uint g = 0u; g < TM / 4u; ++g) {
        const vec4 a = As4[buf][kk][g * THREADS_M + tm];
        [[unroll]] for (uint h = 0u; h < TN / 4u; ++h) {
          const vec4 b = Bs4[buf][kk][h * THREADS_N + tn];
          [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            [[unroll]] for (uint j = 0u; j < 4u; ++j) {
              acc[4u * g + i][4u * h + j] = fma(a[i], b[j], acc[4u * g + i][4u * h + j]);
            }
          }
        }
      }
    }
    return;
  }
  [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
    vec4 ar[(TM + 3u) / 4u];  // rounded up: a direct tiling's TM may be 1 (not staged, but compiled)
    vec4 br[TN / 4u];
    [[unroll]] for (uint g = 0u; g < TM / 4u; ++g) ar[g] = As4[buf][kk][g * THREADS_M + tm];
    [[unroll]] for (uint g = 0u; g < TN / 4u; ++g) br[g] = Bs4[buf][kk][g * THREADS_N + tn];
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = fma(ar[i / 4u][i % 4u], br[j / 4u][j % 4u], acc[i][j]);
    }
  }
}

#else

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

#endif

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
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = Cs[acc_row(i) * BN + acc_col(j)];
  }
}
#elif !defined(UNIVK_VEC)

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

#endif  // UNIVK_COOPMAT_VEC

#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT)
// DIRECT on the vectorised core with both operands loaded as vectors along K: 4 elements of
// K per load, slice by slice (the including kernel's slice-uniform work, prepare_slice, once
// per slice), each invocation's TM rows by TN columns.
void direct_loop_vec(uint k_begin) {
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    k_check = k0 + BK > k_end;
    prepare_slice(k0);
    for (uint kk = 0u; kk < BK; kk += 4u) {
      vec4 ar[TM];
      vec4 br[TN];
      [[unroll]] for (uint i = 0u; i < TM; ++i) ar[i] = operand4(load_a4(i, k0, kk));
      [[unroll]] for (uint j = 0u; j < TN; ++j) br[j] = operand4(load_b4(k0, kk, acc_col(j)));
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        [[unroll]] for (uint j = 0u; j < TN; ++j) {
          [[unroll]] for (uint c = 0u; c < 4u; ++c) acc[i][j] = fma(ar[i][c], br[j][c], acc[i][j]);
        }
      }
    }
  }
}
#endif

void direct_loop(uint k_begin) {
#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT)
  if (VEC_A && VEC_B && (FLAGS & kFlagAKFast) != 0u && (FLAGS & kFlagBNFast) == 0u) {
    direct_loop_vec(k_begin);
    return;
  }
#endif
  // Slice by slice (k_begin is a slice boundary), so the including kernel's slice-uniform work
  // holds for each k; the K bound is checked here, not in the loads.
  k_check = false;
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    prepare_slice(k0);
    const uint kn = min(BK, k_end - k0);
    for (uint kk = 0u; kk < kn; ++kk) {
      float ar[TM];
      float br[TN];
      [[unroll]] for (uint i = 0u; i < TM; ++i) ar[i] = operand(load_a(i, k0, kk));
      [[unroll]] for (uint j = 0u; j < TN; ++j) br[j] = operand(load_b(k0, kk, acc_col(j)));
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
      }
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
  const uint chunk = split_chunk(K);
  const uint k_begin = min(K, split_index() * chunk);
  k_end = min(K, k_begin + chunk);
#ifdef UNIVK_COOPMAT_VEC
  coopmat_zero();
#else
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = 0.0;
  }
#endif
#if defined(UNIVK_COOPMAT) && !defined(UNIVK_COOPMAT_VEC)
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
#ifdef UNIVK_VEC
    // Double-buffered: a slice's stores go to the buffer not read by the previous multiply,
    // and this slice's barrier orders them after every invocation finished the one before.
    // The lean loop (kFlagLean) stores the next slice into the other buffer before the
    // multiply instead (its last reader finished before the barrier ending the previous slice),
    // and the barrier ending this slice publishes it.
#ifdef UNIVK_COOPMAT_VEC
    const bool lean = false;
#else
    const bool lean = LEAN;
#endif
    uint buf = 0u;
    if (lean) {
      store_slice(0u);
      barrier();
    }
    for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
      if (!lean) {
        store_slice(buf);
        barrier();
      }
      if (k0 + BK < k_end) {
        load_slice_at(k0 + BK);
        if (lean) store_slice(buf ^ 1u);
      }
      multiply_slice(buf);
      if (lean) barrier();
      buf ^= 1u;
    }
#else
    for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
      store_slice();
      barrier();
      if (k0 + BK < k_end) load_slice_at(k0 + BK);
      multiply_slice();
      barrier();
    }
#endif
  }
#if defined(UNIVK_COOPMAT) && !defined(UNIVK_COOPMAT_VEC)
  coopmat_to_acc();
#endif
}

#ifndef UNIVK_COOPMAT_VEC
// The epilogue over this invocation's accumulators (gemm_coopmat_tile.glsl has its own), for an
// output of rows x columns. With kFlagVecOut (the vectorised core; the planner sets it where 4
// consecutive columns are contiguous, 4-aligned, and columns is a multiple of 4) each group of
// 4 columns is one 16-byte store: store_out4, the including kernel's, for columns n .. n+3; the
// residuals of the whole tile are loaded before the first store (at most 8 x 4 values). The
// scalar path loads a row's residuals before its stores. Neither is in the 8x8 variant
// (UNIVK_VEC_8X8), which keeps one element at a time: on the H200 its 64 accumulators spilled
// with the vector path compiled in, and its kernels ran 13-15 times slower.
const bool RESIDUAL = (FLAGS & kFlagResidual) != 0u;
void store_tile(uint rows, uint columns) {
#if defined(UNIVK_VEC) && !defined(UNIVK_VEC_8X8)
  if ((FLAGS & kFlagVecOut) != 0u) {
    vec4 r[TM][TN / 4u];
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      const uint m = tile_m0 + acc_row(i);
      const uint row = m < rows ? out_row(m) : 0u;
      [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
        const uint n = tile_n0 + acc_col(j);
        r[i][j / 4u] = RESIDUAL && m < rows && n < columns ? residual4_at(row, n) : vec4(0.0);
      }
    }
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      const uint m = tile_m0 + acc_row(i);
      if (m >= rows) continue;
      const uint row = out_row(m);
      [[unroll]] for (uint j = 0u; j < TN; j += 4u) {
        const uint n = tile_n0 + acc_col(j);
        const vec4 v = vec4(acc[i][j], acc[i][j + 1u], acc[i][j + 2u], acc[i][j + 3u]);
        if (n < columns) store_out4(row, m, n, v, r[i][j / 4u]);
      }
    }
    return;
  }
#endif
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = tile_m0 + acc_row(i);
    if (m >= rows) continue;
    const uint row = out_row(m);
#ifdef UNIVK_VEC_8X8
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      const uint n = tile_n0 + acc_col(j);
      if (n < columns) store_out(row, m, n, acc[i][j], RESIDUAL ? residual_at(row, n) : 0.0);
    }
#else
    float r[TN];
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      const uint n = tile_n0 + acc_col(j);
      r[j] = RESIDUAL && n < columns ? residual_at(row, n) : 0.0;
    }
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      const uint n = tile_n0 + acc_col(j);
      if (n < columns) store_out(row, m, n, acc[i][j], r[j]);
    }
#endif
  }
}
#endif

// Whether this dispatch is split-K's pass 1 (see above), where the main loop is skipped;
// `pass` is the push word split_pass. Uniform.
bool split_k_sum_pass(uint pass) { return SPLITS > 1u && pass == 1u; }

// First word of this workgroup's tile's partials in scratch (see above).
uint split_k_partials() {
  const uint tile = (batch_index() * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  return tile * SPLITS * (BM * BN);
}

// Split-K's two passes (see above), after gemm_main_loop in pass 0 and instead of it in pass 1;
// call from uniform control flow. Returns whether this workgroup runs the epilogue, with the
// accumulators the sum over every split: always without split-K; never in pass 0, which stores
// its partial tile; in pass 1 for split 0's workgroups.
bool split_k_reduce(uint pass) {
  if (SPLITS == 1u) return true;
#if defined(UNIVK_COOPMAT) && !defined(UNIVK_COOPMAT_VEC)
  return true;  // never split (the planner)
#else
  const uint partials = split_k_partials();
#ifdef UNIVK_COOPMAT_VEC
  const uint mine = partials + gl_SubgroupID * (FM * FN * 256u);
  if (pass == 0u) {
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
      [[unroll]] for (uint j = 0u; j < FN; ++j) {
        coopMatStoreNV(cm[i][j], scratch, mine + split_index() * (BM * BN) + (i * FN + j) * 256u, 16u, false);
      }
    }
    return false;
  }
  if (split_index() != 0u) return false;
  coopmat_zero();
  for (uint s = 0u; s < SPLITS; ++s) {
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
      [[unroll]] for (uint j = 0u; j < FN; ++j) {
        fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> part;
        coopMatLoadNV(part, scratch, mine + s * (BM * BN) + (i * FN + j) * 256u, 16u, false);
        // Component-wise (the same type maps components to invocations alike): Debian 12's
        // spirv-opt crashes on the matrices' own addition.
        for (int e = 0; e < part.length(); ++e) cm[i][j][e] += part[e];
      }
    }
  }
#else
  const uint mine = partials + gl_LocalInvocationID.x;
  if (pass == 0u) {
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) {
        scratch[mine + split_index() * (BM * BN) + (i * TN + j) * WG] = floatBitsToUint(acc[i][j]);
      }
    }
    return false;
  }
  if (split_index() != 0u) return false;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = 0.0;
  }
  for (uint s = 0u; s < SPLITS; ++s) {
    const uint at = mine + s * (BM * BN);
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] += uintBitsToFloat(scratch[at + (i * TN + j) * WG]);
    }
  }
#endif
  return true;
#endif
}
