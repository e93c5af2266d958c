// The skinny GEMM kernel (gemm_skinny_f32.comp) of plan_gemm: its tilings, the rule that takes
// it, and its dispatch.
#include <algorithm>

#include "tiling.h"
#include "univk/kernels/gemm.h"

namespace univk::kernels {
namespace {

// At most `rows` rows by `columns` columns per workgroup, `invocations` of them splitting K.
constexpr Tiling skinny(uint32_t rows, uint32_t columns, uint32_t invocations) {
  Tiling t{rows, columns, 4 * invocations, rows, columns};
  t.skinny = true;
  return t;
}
// The planner takes the first, for K of at least kSkinnyMinK. On lavapipe (docs/PERFORMANCE.md,
// "Skinny GEMM kernel on lavapipe") it ran the batch-1 classifiers with K = 1280 and 2048 faster
// than the other skinny tilings but for pairs within noise, and 1.3-1.5x faster than the
// direct vectorised 1x256x8/1x8dv the planner took before; with K = 512 both ran alike.
constexpr int64_t kSkinnyMinK = 1024;
constexpr Tiling kSkinnyTilings[] = {
    skinny(4, 16, 32), skinny(4, 16, 64), skinny(4, 8, 64), skinny(4, 32, 64), skinny(4, 8, 32), skinny(4, 16, 128),
};

// Why the kernel cannot compute `p` with `t` on `device`, or an empty string.
std::string refusal(const GemmProblem& p, const Tiling& t, const DeviceTraits& device) {
  if (p.a.col != 1 || p.b.row != 1) {
    return "the skinny GEMM kernel reads A's rows and B's columns contiguous along K";
  }
  if (p.k % 4 != 0) return "the skinny GEMM kernel computes K that are multiples of 4";
  if (p.split_k > 1) return "the skinny GEMM kernel has no split-K";
  if (device.precision == Precision::kFp16 && !device.cooperative_matrix_f16) {
    return "the skinny GEMM kernel does not round operands to fp16";
  }
  if (!tiling_fits(t, device)) return "the tiling does not fit the device's workgroup limits";
  return {};
}

}  // namespace

std::span<const Tiling> skinny_tilings() { return kSkinnyTilings; }

namespace detail {

std::optional<Tiling> skinny_choice(const GemmProblem& p, const DeviceTraits& device) {
  // CPU implementations (measured there; GPUs keep split-K's tiles until measured), at most the
  // tiling's rows (more would read B once per row block), K of at least kSkinnyMinK.
  const Tiling& t = kSkinnyTilings[0];
  if (!device.cpu || p.m > int64_t{t.bm} || p.k < kSkinnyMinK) return std::nullopt;
  if (!refusal(p, t, device).empty()) return std::nullopt;
  return t;
}

Status fill_gemm_skinny(KernelDispatch& d, const GemmProblem& p, const Tiling& tiling, const DeviceTraits& device) {
  if (std::find(std::begin(kSkinnyTilings), std::end(kSkinnyTilings), tiling) == std::end(kSkinnyTilings)) {
    return invalid_argument("tiling " + tiling_label(tiling) + " is not one of the skinny GEMM kernel's");
  }
  if (const std::string why = refusal(p, tiling, device); !why.empty()) return unsupported("gemm: " + why);
  const uint32_t rows = u32(std::min<int64_t>(p.m, tiling.bm));
  const int64_t x = (p.n + tiling.bn - 1) / tiling.bn, y = (p.m + rows - 1) / rows;
  if (x > device.max_group_count[0] || y > device.max_group_count[1] || p.batch > device.max_group_count[2]) {
    return unsupported("gemm_skinny_f32: " + std::to_string(x) + " x " + std::to_string(y) + " x " +
                       std::to_string(p.batch) + " workgroups exceed the device's workgroup count limits");
  }
  d.kernel = Kernel::kGemmSkinnyF32;
  d.tiling = tiling;
  d.groups = {u32(x), u32(y), u32(p.batch)};
  // FLAGS (gemm_skinny_f32.comp, gemm_tile.glsl's values): the epilogue's operands, and 16-byte
  // loads along K where the offsets and the strides that walk the groups are multiples of 4
  // (one batch has no batch stride; K is).
  uint32_t flags = (p.epilogue.bias ? kFlagBias : 0) | (p.epilogue.residual ? kFlagResidual : 0);
  const int64_t a_batch = p.batch == 1 ? 0 : p.a.batch, b_batch = p.batch == 1 ? 0 : p.b.batch;
  d.vector_access.clear();
  if (aligned4({int64_t(p.a.offset), a_batch, p.a.row})) {
    flags |= kFlagVecA;
    d.vector_access.push_back({0b1u, 7, kFlagVecA});
  }
  if (aligned4({int64_t(p.b.offset), b_batch, p.b.col})) {
    flags |= kFlagVecB;
    d.vector_access.push_back({0b10u, 7, kFlagVecB});
  }
  d.specialization = {{0, tiling.invocations()},
                      {1, rows},
                      {2, tiling.bn},
                      {6, static_cast<uint32_t>(p.epilogue.activation)},
                      {7, flags}};
  return ok_status();
}

}  // namespace detail
}  // namespace univk::kernels
