#include "tiling.h"

#include <algorithm>
#include <string>

namespace univk::kernels {
namespace {

// Staged (GPUs), largest first: each uses at most ~8 KiB of shared memory, within Vulkan's
// guaranteed 16 KiB. 32 accumulators per invocation at most: with 64 (8x8) the H200's compiler
// spilled them and the kernel ran 12 times slower. The last staged
// one uses 128 invocations, the guaranteed maxComputeWorkGroupInvocations, so every device has
// one. Then direct ones: CPU implementations' where the vectorised core's tilings do not fit
// (choose_tiling).
constexpr Tiling kTilings[] = {
    {128, 128, 8, 8, 4},      {128, 64, 8, 8, 4},       {64, 64, 16, 4, 4},
    {32, 32, 16, 2, 2},       {32, 32, 16, 4, 2},       {64, 64, 16, 4, 4, true},
    {32, 64, 16, 4, 4, true}, {32, 32, 16, 4, 4, true}, {8, 128, 16, 2, 4, true},
};
// The last direct tiling, 8 rows tall, serves CPU problems of at most 8 rows (batch-1 linear
// layers), where most of a 64-row tile would idle.
constexpr const Tiling& kSkinnyDirect = kTilings[std::size(kTilings) - 1];

// 256 invocations (8 subgroups of 32 in gemm_tile.glsl's 4 x 2 grid), BK a multiple of 16.
constexpr Tiling kCoopmatTilings[] = {{128, 64, 32, 8, 4, false, true}, {64, 64, 32, 4, 4, false, true}};

// The vectorised core (gemm_tile.glsl's UNIVK_VEC), under evaluation on GPUs: 8x8 and 8x4
// accumulators (static indexing, vec4 reads), 64 to 512 invocations; then the lean loop
// (Tiling::lean) with 8x8; then 8x8 on tiles of 64 rows (64x64x16/8x8v ran GEMM 4096^3
// fastest: 171 registers per invocation, against the 128 the driver allots 128x128's); then
// direct ones for CPU implementations (choose_tiling), which read both operands as vectors
// along K where they allow it: 8x128x16/4x4dv for problems of at most 8 rows whatever their
// loads, then kCpuDirectTilings.
constexpr Tiling kVecTilings[] = {
    {128, 128, 8, 8, 8, false, false, true},       {128, 64, 8, 8, 8, false, false, true},
    {128, 64, 16, 8, 4, false, false, true},       {64, 64, 16, 8, 8, false, false, true},
    {64, 64, 16, 4, 4, false, false, true},        {32, 64, 16, 4, 4, false, false, true},
    {64, 32, 16, 4, 4, false, false, true},        {128, 128, 16, 8, 4, false, false, true},
    {128, 128, 8, 8, 8, false, false, true, true}, {128, 128, 16, 8, 8, false, false, true, true},
    {128, 64, 16, 8, 8, false, false, true, true}, {64, 128, 16, 8, 8, false, false, true},
    {64, 128, 8, 8, 8, false, false, true},        {64, 64, 8, 8, 8, false, false, true},
    {8, 128, 16, 4, 4, true, false, true},         {64, 64, 8, 8, 8, true, false, true},
    {32, 64, 8, 8, 8, true, false, true},          {64, 32, 8, 8, 8, true, false, true},
    {16, 64, 8, 8, 8, true, false, true},          {8, 128, 8, 8, 8, true, false, true},
    {64, 16, 8, 8, 8, true, false, true},          {1, 256, 8, 1, 8, true, false, true},
};

// A CPU implementation's tilings (choose_tiling).
constexpr const Tiling& kCpuVecLarge = kVecTilings[1];
constexpr const Tiling& kCpuVecSmall = kVecTilings[3];
constexpr const Tiling& kCpuVecSkinny = kVecTilings[14];
static_assert(kCpuVecSkinny == Tiling{8, 128, 16, 4, 4, true, false, true});
// Slices of the direct vectorised tilings below (one size, so one check of the operands' loads
// serves them all). 8: a convolution loads vectors only where its input channels per group are
// a multiple of the slice, and 24 channels (MobileNetV2) are not of 16.
constexpr uint32_t kCpuDirectBk = 8;
// The direct vectorised tilings cpu_direct_cost weighs, all with slices of kCpuDirectBk: 8x8
// accumulators on tiles from 64x64 down to 8x128 and 64x16, so small grids still fill the
// host's threads and narrow outputs waste few columns, and one row by 8 columns per invocation
// for matrix-vector products.
constexpr std::span<const Tiling> kCpuDirectTilings(kVecTilings + 15, std::end(kVecTilings));
static_assert(std::all_of(kCpuDirectTilings.begin(), kCpuDirectTilings.end(),
                          [](const Tiling& t) { return t.direct && t.vec && t.bk == kCpuDirectBk; }));

// The cooperative-matrix core on vectorised loads (gemm_coopmat_tile.glsl): subgroups of 32,
// each a (4*tm) x (8*tn) block of (tm/4) x (tn/2) 16x16 fragments; the planner takes six of
// them (kCoopmatPlan* below), the others are forced-only candidates. 128x128: 8 subgroups of
// 2x4 fragments or 4 of 4x4; 128x64: 8 of 2x2 or 4 of 4x2; 64x64: 4 of 2x2; then 128x256 and
// 256x128 with slices of 16 (fewer bytes loaded per multiply-add), 8 subgroups of 4x4; then
// 128x128 with slices of 16, 8 subgroups of 2x4 (128 registers per invocation on an H100
// against 182 with slices of 32: two workgroups per SM); then 16 subgroups (512 invocations):
// 128x128 of 2x2 fragments with slices of 32 and 16, 256x128 of 2x4, 128x64 of 1x2 (more
// subgroups in flight per SM, fewer accumulators each).
// Shared memory 20-40 KiB.
constexpr Tiling kCoopmatVecTilings[] = {
    {128, 128, 32, 8, 8, false, true, true},  {128, 128, 32, 16, 8, false, true, true},
    {128, 64, 32, 8, 4, false, true, true},   {128, 64, 32, 16, 4, false, true, true},
    {64, 64, 32, 8, 4, false, true, true},    {128, 256, 16, 16, 8, false, true, true},
    {256, 128, 16, 16, 8, false, true, true}, {128, 128, 16, 8, 8, false, true, true},
    {128, 128, 32, 8, 4, false, true, true},  {128, 128, 16, 8, 4, false, true, true},
    {256, 128, 16, 8, 8, false, true, true},  {128, 64, 32, 4, 4, false, true, true},
};

// The core's shape rules: accumulators in groups of 4, and (staged) every invocation loading
// whole vec4s of both slices.
constexpr bool vec_shape_ok(const Tiling& t) {
  const uint32_t vectors = 4 * t.invocations();
  return (t.tm % 4 == 0 || t.direct) && t.tn % 4 == 0 && t.bk % 4 == 0 &&
         (t.direct || ((t.bm * t.bk) % vectors == 0 && (t.bn * t.bk) % vectors == 0));
}
static_assert(std::all_of(std::begin(kVecTilings), std::end(kVecTilings), vec_shape_ok));

// The cooperative-matrix core's rules besides: whole 16x16 fragments (at most 4 x 4 per
// subgroup, its array), subgroups tiling the workgroup tile, slices of whole 16-deep steps,
// BM, BN >= BK (the shared buffers' size), and the epilogue's 1 KiB per subgroup inside the
// shared tiles.
constexpr bool coopmat_vec_shape_ok(const Tiling& t) {
  const uint32_t subgroups = t.invocations() / 32;
  return vec_shape_ok(t) && t.invocations() % 32 == 0 && t.tm % 4 == 0 && t.tn % 2 == 0 && t.tm / 4 <= 4 &&
         t.tn / 2 <= 4 && t.bm % (4 * t.tm) == 0 && t.bn % (8 * t.tn) == 0 && t.bk % 16 == 0 && t.bm >= t.bk &&
         t.bn >= t.bk && subgroups * 1024 <= 2 * uint64_t{t.bk + 8} * (t.bm + t.bn) * 2;
}
static_assert(std::all_of(std::begin(kCoopmatVecTilings), std::end(kCoopmatVecTilings), coopmat_vec_shape_ok));

// gemm_tile.glsl's shared arrays.
uint64_t shared_bytes(const Tiling& t) {
  // The staged weight chunk, at most (conv2d_pointwise.cc sizes the chunk to it).
  if (t.pointwise) return detail::kPointwiseStagedFloats * sizeof(float);
  // The stem kernel's window and weight depend on the problem: plan_conv2d_stem checks them.
  if (t.stem) return 0;
  // The partial sums: one per output per invocation.
  if (t.skinny) return uint64_t{t.bm} * t.bn * t.invocations() * sizeof(float);
  if (t.coopmat && t.vec) {
    // Two buffers of each fp16 slice, padded by 8 halves per row (gemm_coopmat_tile.glsl).
    return 2 * uint64_t{t.bk + 8} * (t.bm + t.bn) * 2;
  }
  if (t.vec) {
    // Two buffers of BK rows of vec4s, each row padded by one vec4.
    return 2 * uint64_t{t.bk} * ((t.bm / 4 + 1) + (t.bn / 4 + 1)) * 16;
  }
  if (t.coopmat) {
    // fp16 slices padded by 8 halves along whichever dim the loads walk (the larger of the two
    // layouts), then the fp32 accumulator tile.
    const uint64_t a = std::max(uint64_t{t.bk} * (t.bm + 8), uint64_t{t.bm} * (t.bk + 8));
    const uint64_t b = std::max(uint64_t{t.bk} * (t.bn + 8), uint64_t{t.bn} * (t.bk + 8));
    return (a + b) * 2 + uint64_t{t.bm} * t.bn * sizeof(float);
  }
  return uint64_t{t.bk} * ((t.bm + 1) + (t.bn + 1)) * sizeof(float);
}

bool fits(const Tiling& t, const DeviceTraits& device) {
  if (t.coopmat && !device.cooperative_matrix_f16) return false;
  return t.invocations() <= device.max_workgroup_invocations && shared_bytes(t) <= device.max_shared_bytes;
}

uint64_t workgroups(const Tiling& t, int64_t m, int64_t n, int64_t batch) {
  return uint64_t((m + t.bm - 1) / t.bm) * uint64_t((n + t.bn - 1) / t.bn) * uint64_t(batch);
}

// A CPU implementation runs each workgroup on one of its threads, its invocations in SIMD lanes,
// and a load there is a loop over the lanes whatever its width (Mesa 22.3's lavapipe). So a
// direct vectorised tiling costs in proportion to the loads of every invocation of every tile,
// padding included: per 4 k, tm + tn 16-byte loads for 4 * tm * tn multiply-adds. The grid runs
// in rounds of `cpu_threads` workgroups. Measured with univk-kernel-bench's cpu64_ workloads
// (docs/PERFORMANCE.md), this ordered the candidates as measured but for pairs within ~10%.
double cpu_direct_cost(const Tiling& t, int64_t m, int64_t n, int64_t k, int64_t batch, const DeviceTraits& device) {
  const uint64_t threads = std::max<uint32_t>(device.cpu_threads, 1);
  const uint64_t rounds = (workgroups(t, m, n, batch) + threads - 1) / threads;
  const double padded_k = double((std::max<int64_t>(k, 1) + t.bk - 1) / t.bk * t.bk);
  return double(rounds) * t.bm * t.bn * padded_k * double(t.tm + t.tn) / double(t.tm * t.tn);
}

std::optional<Tiling> cheapest_cpu_direct(int64_t m, int64_t n, int64_t k, int64_t batch, const DeviceTraits& device,
                                          uint32_t max_invocations) {
  std::optional<Tiling> best;
  double best_cost = 0;
  for (const Tiling& t : kCpuDirectTilings) {
    if (!fits(t, device) || t.invocations() > max_invocations) continue;
    const double cost = cpu_direct_cost(t, m, n, k, batch, device);
    if (!best || cost < best_cost) best = t, best_cost = cost;
  }
  return best;
}

// The cooperative-matrix tilings the planner takes, in order of preference: the first whose
// grid reaches kCoopmatWave workgroups wins, else the one with the most. Measured on the H200
// (docs/PERFORMANCE.md): 128x128x32/8x8cv ran GEMM 4096^3 in 1383 us (the older
// cooperative-matrix kernel 2117 us, the fp32 FMA kernel 4598 us); at batch 32,
// 128x64x32/8x4cv a 3x3 convolution with 64 output channels in 150 us (128x128: 192 us),
// 128x128 the 256-channel one at 14x14 in 106 us on 98 workgroups (64x64: 158 us on 392) and
// 128x64 the 512-channel one at 7x7 in 141 us on 104 (128x128: 197 us on 52). A 128-column
// tile only where N is wider than 64. The 128x128 tile as 16 subgroups of 2x2 fragments
// (128x128x32/8x4cv, 512 invocations) before the same tile as 8 subgroups of 2x4: on an H100
// at batch 32 (docs/PERFORMANCE.md, "Sixteen subgroups per cooperative-matrix tile") 4-18%
// faster on every such problem measured (1x1 1024->256 at 14x14 58.0 against 66.3 us, 1x1
// 320->1280 at 7x7 32.5 against 39.5, 3x3 256->256 at 14x14 99.5 against 104.4; split in two:
// 3x3 stride 2 256->512 66.8 against 74.6, 1x1 2048->512 at 7x7 62.4 against 71.2). Likewise
// the 128x64 tile as 16 subgroups of 1x2 fragments (128x64x32/4x4cv) before 8 of 2x2: 3x3
// 64->64 at 56x56 128.9 against 137.6 us, 1x1 stride 2 256->512 at 14x14 in 22.7 against 28.8.
// Devices with fewer than 512 invocations per workgroup take the 8-subgroup ones (the same
// grids).
constexpr const Tiling& kCoopmatWide16 = kCoopmatVecTilings[8];
constexpr const Tiling& kCoopmatHalf16 = kCoopmatVecTilings[11];
static_assert(kCoopmatWide16 == Tiling{128, 128, 32, 8, 4, false, true, true});
static_assert(kCoopmatHalf16 == Tiling{128, 64, 32, 4, 4, false, true, true});
constexpr Tiling kCoopmatPlanWide[] = {kCoopmatWide16, kCoopmatVecTilings[0], kCoopmatHalf16, kCoopmatVecTilings[2],
                                       kCoopmatVecTilings[4]};
// Long K (at least kCoopmatSplitLongK) on a grid of fewer than kCoopmatWave 128x128 tiles:
// the 128x128x32 tile (16 subgroups where the device allows) split in two (choose_splits). On
// an H100 at batch 32 (docs/PERFORMANCE.md; the H200 has the same GH100 SMs), against the
// unsplit 128x64 tile the wide rule gives: with 8 subgroups ("Split-K and Winograd on an
// H100") 3x3 512->512 at 7x7 135.2 against 182.4 us, 1x1 2048->512 at 7x7 83.4 against 96.0,
// 3x3 stride 2 256->512 at 14x14 87.6 against 104.2; with 16 ("Sixteen subgroups per
// cooperative-matrix tile") 105.5 against 143.3, 62.4 against 75.5, 66.8 against 80.5.
constexpr Tiling kCoopmatPlanSplit[] = {kCoopmatWide16, kCoopmatVecTilings[0]};
constexpr int64_t kCoopmatSplitLongK = 2048;
constexpr Tiling kCoopmatPlanNarrow[] = {kCoopmatHalf16, kCoopmatVecTilings[2], kCoopmatVecTilings[4]};
constexpr uint64_t kCoopmatWave = 96;
// Grids of at least kCoopmatManyTiles 128x128 tiles take 128x128x16/8x8cv instead: its 128
// registers per invocation (an H100's driver) let two workgroups share an SM, which pays once
// there are workgroups for both. On the H200: GEMM 4096^3 (1024 tiles) 1207 against 1383 us,
// the batch-32 3x3 convolution 128 -> 128 at 28x28 (196 tiles) 94 against 116 us; with 98 tiles
// (256 -> 256 at 14x14) the slices of 32 won, 107 against 131 us.
constexpr Tiling kCoopmatPlanMany[] = {kCoopmatVecTilings[7]};
static_assert(kCoopmatPlanMany[0] == Tiling{128, 128, 16, 8, 8, false, true, true});
constexpr uint64_t kCoopmatManyTiles = 192;

// The FMA tilings GPUs take for large problems: the vectorised core's 8x8 accumulators, 128x128
// where its grid keeps every SM busy with several workgroups (kVecWave) and N is wider than 64,
// else 128x64 (with split-K below 128 workgroups). On the H200 in fp32: GEMM 4096^3 4075 us
// against 4598 us for 128x128x8/8x4; at batch 32 the 3x3 convolutions with 64, 128, 256 and 512
// channels 245/227/310/423 us against 317/317/356/654 us, the 1x1 one with K = 960 58 against
// 66 us. Short K (1x1 expansions, K < 512) and small grids (batch 1) keep the scalar tilings,
// which the same runs measured faster there.
constexpr Tiling kVecPlanWide[] = {kVecTilings[0], kVecTilings[1]};
constexpr Tiling kVecPlanNarrow[] = {kVecTilings[1]};
constexpr uint64_t kVecWave = 512;
// Long-K problems on grids too small for the GPU: where 128x128 tiles give under 128
// workgroups (split-K's threshold) and K >= 1152, 128x128x16/8x4v split to ~512 workgroups.
// On the H200 at batch 32 (docs/PERFORMANCE.md), against 128x64x8/8x8v: 3x3 512->512 at 7x7
// (K 4608) 291 against 423 us, 3x3 stride 2 256->512 at 14x14 178 against 228, 1x1 2048->512
// at 7x7 181 against 217, 3x3 256->256 at 14x14 (98 tiles of 128x128, unsplit 128x64 grid 196)
// 287 against 310, 3x3 stride 2 128->256 at 28x28 (K 1152, cold caches) 147.5 against 167.5;
// a 1x1 1024->256 at 14x14 (K 1024) measured even, so it is left out. 93 registers per
// invocation against 135: more workgroups per SM, and more K ranges.
constexpr Tiling kVecPlanSmallGrid[] = {kVecTilings[7]};
// Small grids on GPUs, where no scalar tiling reaches the workgroups wanted (batch-1
// convolutions), with both operands loading as vectors along K and rows enough for its tiles:
// the vectorised core's 32x64x16/4x4v, split-K filling the GPU. On the H200 at batch 1
// (docs/PERFORMANCE.md) against 32x32x16/2x2: ResNet's 3x3 convolutions 31.4 against 42.4 us
// at 64 channels and 56x56, 32.8/37.5 at 256 and 14x14, 36.8/43.5 at 512 and 7x7; ResNet50's
// 1x1 ones 2% slower to 15% faster; within 5% of the fastest tiling on each.
constexpr const Tiling& kVecSmallGrid = kVecTilings[5];
// Grids under this many workgroups leave most of a large GPU idle: choose_splits splits K there.
constexpr uint64_t kFewWorkgroups = 128;
constexpr int64_t kSmallGridLongK = 1152;

// Tilings in order of preference and the workgroup count at which the first such wins.
struct Candidates {
  std::span<const Tiling> tilings;
  uint64_t wanted = 256;         // enough to fill the device
  uint32_t max_invocations = 0;  // the caller's cap, or above it for a measured exception
};

// The tilings a problem may take. For fp16, the cooperative-matrix ones where one runs and the
// problem is large enough for them: K >= 256 and a grid of at least 32 tiles of 128x64
// (unsplit, as the planner runs them, they lost on the H200's batch-1 problems, where split-K's
// grids win). On an H100 at batch 32 (docs/PERFORMANCE.md, "Cooperative-matrix loads converted
// at the store") they beat the FMA kernels from K = 256: 1x1 320 -> 1280 at 7x7 39.3 against
// 77.5 us, 1x1 stride 2 256 -> 512 at 14x14 28.8 against 47.0, 1x1 384 -> 64 at 14x14 36.0
// against 40.1; at K = 192 (192 -> 32 at 28x28) they were even. Then, on GPUs, the vectorised
// 8x8 tilings for problems with K >= 512 and such a grid; else the scalar ones.
Candidates candidates(int64_t m, int64_t n, int64_t k, int64_t batch, const DeviceTraits& device,
                      uint32_t max_invocations) {
  constexpr uint64_t kLargeGrid = 32;
  constexpr int64_t kLongK = 512;
  constexpr int64_t kCoopmatMinK = 256;
  const bool large_grid = workgroups(kCoopmatPlanNarrow[0], m, n, batch) >= kLargeGrid;
  const bool large = k >= kLongK && large_grid;
  auto runnable = [&](std::span<const Tiling> plan, uint32_t cap) {
    return std::any_of(plan.begin(), plan.end(),
                       [&](const Tiling& t) { return fits(t, device) && t.invocations() <= cap; });
  };
  if (device.precision == Precision::kFp16 && k >= kCoopmatMinK && large_grid) {
    // The 16-subgroup tiles pass a caller's cap of 256 (convolutions'): the cap was measured on
    // the FMA tilings, these on the problems they serve.
    const uint32_t wide_cap = std::max(max_invocations, kCoopmatWide16.invocations());
    if (n > 64 && workgroups(kCoopmatPlanMany[0], m, n, batch) >= kCoopmatManyTiles &&
        runnable(kCoopmatPlanMany, max_invocations))
      return {kCoopmatPlanMany, 1, max_invocations};
    if (n > 64 && k >= kCoopmatSplitLongK && workgroups(kCoopmatPlanSplit[0], m, n, batch) < kCoopmatWave &&
        runnable(kCoopmatPlanSplit, wide_cap)) {
      return {kCoopmatPlanSplit, 1, wide_cap};
    }
    const std::span<const Tiling> plan = n > 64 ? std::span<const Tiling>(kCoopmatPlanWide) : kCoopmatPlanNarrow;
    if (runnable(plan, wide_cap)) return {plan, kCoopmatWave, wide_cap};
  }
  // Its 512 invocations pass a caller's cap of 256 (convolutions'): the cap was measured on
  // large grids, this tiling on the small ones it serves.
  if (large && !device.cpu && k >= kSmallGridLongK && workgroups(kVecPlanSmallGrid[0], m, n, batch) < kFewWorkgroups &&
      fits(kVecPlanSmallGrid[0], device)) {
    return {kVecPlanSmallGrid, 1, kVecPlanSmallGrid[0].invocations()};
  }
  if (large && !device.cpu) {
    const std::span<const Tiling> plan = n > 64 ? std::span<const Tiling>(kVecPlanWide) : kVecPlanNarrow;
    if (runnable(plan, max_invocations)) return {plan, kVecWave, max_invocations};
  }
  return {kTilings, 256, max_invocations};
}

}  // namespace

std::string tiling_label(const Tiling& t) {
  return std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" + std::to_string(t.bk) + "/" + std::to_string(t.tm) +
         "x" + std::to_string(t.tn) + (t.direct ? "d" : "") + (t.coopmat ? "c" : "") + (t.vec ? "v" : "") +
         (t.lean ? "l" : "") + (t.pointwise ? "p" : "") + (t.stem ? "stem" : "") + (t.skinny ? "skinny" : "");
}

std::span<const Tiling> gemm_tilings() { return kTilings; }
std::span<const Tiling> coopmat_tilings() { return kCoopmatTilings; }
std::span<const Tiling> vec_tilings() { return kVecTilings; }
std::span<const Tiling> coopmat_vec_tilings() { return kCoopmatVecTilings; }
bool tiling_fits(const Tiling& tiling, const DeviceTraits& device) { return fits(tiling, device); }

namespace detail {

uint64_t tiling_shared_bytes(const Tiling& tiling) { return shared_bytes(tiling); }

Result<Tiling> choose_tiling(int64_t m, int64_t n, int64_t k, int64_t batch, const DeviceTraits& device,
                             std::optional<Tiling> forced, uint32_t max_invocations,
                             const std::function<bool(uint32_t bk)>& vector_loads_along_k) {
  const auto along_k = [&](const Tiling& t) { return vector_loads_along_k && vector_loads_along_k(t.bk); };
  if (forced) {
    auto listed = [&](std::span<const Tiling> list) {
      return std::find(list.begin(), list.end(), *forced) != list.end();
    };
    if (!listed(kTilings) && !listed(kCoopmatTilings) && !listed(kVecTilings) && !listed(kCoopmatVecTilings)) {
      return invalid_argument("tiling " + std::to_string(forced->bm) + "x" + std::to_string(forced->bn) +
                              " is not one of the library's");
    }
    if (!fits(*forced, device)) return unsupported("the tiling does not fit the device's workgroup limits");
    return *forced;
  }
  // A CPU implementation whose operands both load as vectors along K takes the direct
  // vectorised tiling cpu_direct_cost prefers. Otherwise it gets one of two staged tilings of
  // the vectorised core's 8x8 kernel, which ran 1.3-3.6x faster than the scalar direct tilings
  // on lavapipe (docs/PERFORMANCE.md: a load there
  // is a per-lane loop whatever its width, and 64 accumulators give each load more FMAs):
  // 128x64x8/8x8v from 128 rows, 64x64x16/8x8v below. With at most 8 rows (a 64-row tile
  // would idle most of its rows: batch-1 linear layers, ResNet's last stage at 64x64), the
  // vectorised core's direct 8x128x16/4x4dv, which loads 4 k at a time where both operands are
  // contiguous along K, else the scalar skinny direct one. Then the first direct tiling that
  // fits.
  if (device.cpu && along_k(kCpuDirectTilings[0])) {
    if (const std::optional<Tiling> t = cheapest_cpu_direct(m, n, k, batch, device, max_invocations)) return *t;
  }
  if (device.cpu) {
    if (m <= int64_t{kSkinnyDirect.bm}) {
      for (const Tiling& t : {kCpuVecSkinny, kSkinnyDirect}) {
        if (fits(t, device) && t.invocations() <= max_invocations) return t;
      }
    }
    const Tiling& vec = m >= 128 ? kCpuVecLarge : kCpuVecSmall;
    if (fits(vec, device) && vec.invocations() <= max_invocations) return vec;
    for (const Tiling& t : kTilings) {
      if (t.direct && fits(t, device)) return t;
    }
  }
  // The first candidate with the workgroups wanted; else the one with the most.
  const Candidates list = candidates(m, n, k, batch, device, max_invocations);
  std::optional<Tiling> best;
  for (const Tiling& t : list.tilings) {
    if (!fits(t, device) || t.direct || t.invocations() > list.max_invocations) continue;
    if (workgroups(t, m, n, batch) >= list.wanted) return t;
    if (!best || workgroups(t, m, n, batch) > workgroups(*best, m, n, batch)) best = t;
  }
  if (!best) return unsupported("no kernel tiling fits the device's workgroup limits");
  if (!device.cpu && list.tilings.data() == std::data(kTilings) && m >= kVecSmallGrid.bm && along_k(kVecSmallGrid) &&
      fits(kVecSmallGrid, device) && kVecSmallGrid.invocations() <= list.max_invocations) {
    return kVecSmallGrid;
  }
  return *best;
}

int64_t split_chunk(int64_t k, uint32_t splits, uint32_t bk) { return ((k + splits - 1) / splits + bk - 1) / bk * bk; }

uint32_t choose_splits(const Tiling& tiling, int64_t m, int64_t n, int64_t k, int64_t z, const DeviceTraits& device,
                       uint32_t forced) {
  // Split-K pays when the grid leaves most of a large GPU idle: 128 workgroups are under one per
  // SM on an H200 (132 SMs) at the tile sizes these small problems get. Then enough ranges for
  // ~512 workgroups (a few per SM, to hide latency), each keeping >= 256 of K so the partial
  // tiles' traffic (one tile per range) stays small beside the multiply, at most 16.
  constexpr uint64_t kWantedWorkgroups = 512;
  constexpr int64_t kMinRange = 256, kMaxSplits = 16;
  const uint64_t groups = workgroups(tiling, m, n, z);
  int64_t splits = 1;
  // The older cooperative-matrix core never splits. The one on vectorised loads splits in two
  // on grids under kCoopmatWave workgroups, each range keeping >= 256 of K: on an H100 at batch
  // 32 (docs/PERFORMANCE.md) more ranges gained less or lost (3x3 512->512 at 7x7 on
  // 128x128x32/8x8cv: 135.2 us in 2, 140.5 in 4, 137.9 in 8; 1x1 2048->512: 83.4, 88.8, 95.0;
  // 1x1 960->160 at 7x7 on 64x64x32/8x4cv, 75 workgroups, 53.1 unsplit, 43.8 in 2), and on
  // grids of 98 it lost (1x1 1024->256 at 14x14: 82.8 unsplit, 89.4 in 2).
  if (tiling.coopmat && !tiling.vec) return 1;
  if (tiling.coopmat && forced == 0) {
    if (device.cpu || groups >= kCoopmatWave || k < 2 * kMinRange) return 1;
    splits = 2;
  } else if (forced != 0) {
    splits = forced;
  } else if (!device.cpu && groups < kFewWorkgroups) {
    splits = std::min<int64_t>({kMaxSplits, k / kMinRange, int64_t((kWantedWorkgroups + groups - 1) / groups)});
  }
  // Every range at least one slice; the group count's z limit.
  splits = std::min<int64_t>(splits, (k + tiling.bk - 1) / tiling.bk);
  splits = std::min<int64_t>(splits, int64_t{device.max_group_count[2]} / std::max<int64_t>(z, 1));
  if (splits <= 1) return 1;
  // No empty range: ceil(K / chunk) ranges of `chunk` cover K (and give the same chunk back).
  return u32((k + split_chunk(k, u32(splits), tiling.bk) - 1) / split_chunk(k, u32(splits), tiling.bk));
}

Result<std::array<uint32_t, 2>> tile_grid(const Tiling& tiling, int64_t m, int64_t n, const DeviceTraits& device,
                                          const std::string& kernel) {
  const int64_t row_tiles = (m + tiling.bm - 1) / tiling.bm, column_tiles = (n + tiling.bn - 1) / tiling.bn;
  const int64_t max_x = device.max_group_count[0], max_y = std::max<uint32_t>(device.max_group_count[1], 1);
  const int64_t fold = (row_tiles + max_y - 1) / max_y;
  if (column_tiles * fold > max_x) {
    return unsupported(kernel + ": " + std::to_string(row_tiles) + " x " + std::to_string(column_tiles) +
                       " output tiles exceed the device's workgroup count limits of " + std::to_string(max_x) + " x " +
                       std::to_string(max_y));
  }
  return std::array<uint32_t, 2>{u32(column_tiles * fold), u32((row_tiles + fold - 1) / fold)};
}

Status fill_gemm_shape(KernelDispatch& dispatch, const Tiling& tiling, int64_t m, int64_t n, int64_t k, int64_t z,
                       const Epilogue& epilogue, uint32_t flags, uint32_t forced_splits, const DeviceTraits& device) {
  const uint32_t splits = choose_splits(tiling, m, n, k, z, device, forced_splits);
  const std::string name = kernel_name(dispatch.kernel);
  UNIVK_ASSIGN_OR_RETURN(const auto grid, tile_grid(tiling, m, n, device, name));
  if (z * splits > int64_t{device.max_group_count[2]}) {
    return unsupported(name + ": " + std::to_string(z) + " batches exceed the device's workgroup count limit of " +
                       std::to_string(device.max_group_count[2]));
  }
  dispatch.tiling = tiling;
  dispatch.groups = {grid[0], grid[1], u32(z * splits)};
  dispatch.splits = splits;
  dispatch.scratch_bytes = 0;
  if (splits > 1) {
    // gemm_tile.glsl's layout: per tile (of the grid, folded rows included) and range a BM x BN
    // partial tile.
    const uint64_t tiles = uint64_t(grid[0]) * uint64_t(grid[1]) * uint64_t(z);
    const uint64_t words = tiles * splits * tiling.bm * tiling.bn;
    if (words > UINT32_MAX) {
      return unsupported(name + ": split-K's scratch of " + std::to_string(words) +
                         " words exceeds the kernels' 32-bit indices");
    }
    dispatch.scratch_bytes = words * sizeof(uint32_t);
  }
  // Load-order bits only steer the staged path and the vectorised core's direct loop; clearing
  // them keeps the other direct variants shared.
  if (tiling.direct && !tiling.vec) flags = 0;
  if (!tiling.vec) flags &= ~(kFlagVecA | kFlagVecB);
  // 16-byte output stores: the vectorised FMA core's epilogue, but for its 8x8 variant (see
  // gemm_tile.glsl's store_tile); the cooperative-matrix one stores through shared memory.
  if (!tiling.vec || tiling.coopmat || (tiling.tm == 8 && tiling.tn == 8)) flags &= ~kFlagVecOut;
  if (tiling.coopmat && tiling.vec) {
    dispatch.kernel = dispatch.kernel == Kernel::kConv2dF32 ? Kernel::kConv2dCoopmatVecF16 : Kernel::kGemmCoopmatVecF16;
  } else if (tiling.coopmat) {
    dispatch.kernel = dispatch.kernel == Kernel::kConv2dF32 ? Kernel::kConv2dCoopmatF16 : Kernel::kGemmCoopmatF16;
  } else if (device.precision == Precision::kFp16 && !device.cooperative_matrix_f16) {
    // Without cooperative matrices the FMA kernels round their operands as the
    // cooperative-matrix core does, so the mode's rounding is exercised on any device (lavapipe
    // included). With them, the problems the core does not take run in fp32: the rounding made
    // the FMA kernels 1.4-1.6x slower on the H200, and fp16 permits, not requires, reduced
    // precision.
    flags |= kFlagF16Operands;
  }
  if (tiling.lean) flags |= kFlagLean;
  if (tiling.vec && !tiling.coopmat) {
    // 8 x 8 accumulators run the variant with the sizes compiled in (gemm_tile.glsl).
    const bool conv = dispatch.kernel == Kernel::kConv2dF32, eight = tiling.tm == 8 && tiling.tn == 8;
    dispatch.kernel = conv ? (eight ? Kernel::kConv2dVec8F32 : Kernel::kConv2dVecF32)
                           : (eight ? Kernel::kGemmVec8F32 : Kernel::kGemmVecF32);
  }
  dispatch.vector_access.clear();
  if ((flags & kFlagVecA) != 0) dispatch.vector_access.push_back({0b1u, 7, kFlagVecA});
  if ((flags & kFlagVecB) != 0) dispatch.vector_access.push_back({0b10u, 7, kFlagVecB});
  if ((flags & kFlagVecOut) != 0) dispatch.vector_access.push_back({0b1000u, 7, kFlagVecOut});
  if (epilogue.bias) flags |= kFlagBias;
  if (epilogue.residual) flags |= kFlagResidual;
  dispatch.specialization = {{0, tiling.invocations()},
                             {1, tiling.bm},
                             {2, tiling.bn},
                             {3, tiling.bk},
                             {4, tiling.tm},
                             {5, tiling.tn},
                             {6, static_cast<uint32_t>(epilogue.activation)},
                             {7, flags},
                             {8, tiling.direct ? 1u : 0u},
                             {9, splits}};
  if (dispatch.kernel == Kernel::kConv2dVec8F32 || dispatch.kernel == Kernel::kGemmVec8F32) {
    // Compiled in: these kernels declare no constants 4 and 5.
    std::erase_if(dispatch.specialization, [](const auto& c) { return c.first == 4 || c.first == 5; });
  }
  return ok_status();
}

Status check_range(int64_t value, int64_t max, const std::string& what) {
  if (value < 0 || value > max) {
    return unsupported(what + " " + std::to_string(value) + " is outside [0, " + std::to_string(max) + "]");
  }
  return ok_status();
}

Result<int64_t> checked_product(std::initializer_list<int64_t> factors, int64_t max, const std::string& what) {
  uint64_t product = 1;
  for (int64_t f : factors) {
    // Both below 2^32 before each step, so no step overflows 64 bits.
    if (f < 0 || f > UINT32_MAX || product > UINT32_MAX) return unsupported(what + " is outside 32 bits");
    product *= uint64_t(f);
    if (product > uint64_t(max)) {
      return unsupported(what + " " + std::to_string(product) + " exceeds " + std::to_string(max));
    }
  }
  return int64_t(product);
}

Status check_addressable(uint64_t offset, std::initializer_list<std::pair<int64_t, int64_t>> extent_strides,
                         const std::string& what) {
  // Every term is checked below 2^32 first, so the sum of a handful cannot overflow 64 bits.
  uint64_t last = offset;
  for (auto [extent, stride] : extent_strides) {
    if (extent < 1 || stride < 0 || extent > UINT32_MAX || stride > UINT32_MAX) {
      return unsupported(what + ": an extent or stride is outside 32 bits");
    }
    last += uint64_t(extent - 1) * uint64_t(stride);
  }
  if (last > UINT32_MAX) {
    return unsupported(what + " addresses element " + std::to_string(last) +
                       ", past the kernels' 32-bit element indices");
  }
  return ok_status();
}

Status check_conv_geometry(const ConvGeometry& g, uint64_t input_offset, uint64_t output_offset,
                           const std::string& what) {
  for (auto [v, name] : {std::pair{g.batch, "batch"},
                         {g.in_channels, "input channels"},
                         {g.in_h, "input height"},
                         {g.in_w, "input width"},
                         {g.out_channels, "output channels"},
                         {g.out_h, "output height"},
                         {g.out_w, "output width"},
                         {g.kernel_h, "kernel height"},
                         {g.kernel_w, "kernel width"},
                         {g.groups, "groups"}}) {
    if (v < 1) return invalid_argument(what + name + " must be positive");
    UNIVK_RETURN_IF_ERROR(check_range(v, UINT32_MAX, what + name));
  }
  if (g.in_channels % g.groups != 0 || g.out_channels % g.groups != 0) {
    return invalid_argument(what + "channels do not divide into " + std::to_string(g.groups) + " groups");
  }
  for (auto [v, name] : {std::pair{g.stride_h, "stride"},
                         {g.stride_w, "stride"},
                         {g.dilation_h, "dilation"},
                         {g.dilation_w, "dilation"}}) {
    if (v < 1) return invalid_argument(what + "strides and dilations must be positive");
    UNIVK_RETURN_IF_ERROR(check_range(v, 0xffff, what + name));
  }
  UNIVK_RETURN_IF_ERROR(check_addressable(
      input_offset, {{g.batch, g.input.n}, {g.in_channels, g.input.c}, {g.in_h, g.input.h}, {g.in_w, g.input.w}},
      what + "input"));
  return check_addressable(
      output_offset,
      {{g.batch, g.output.n}, {g.out_channels, g.output.c}, {g.out_h, g.output.h}, {g.out_w, g.output.w}},
      what + "output");
}

}  // namespace detail
}  // namespace univk::kernels
