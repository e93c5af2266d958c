// The pointwise kernel (conv2d_pointwise_f32.comp) of plan_conv2d: its tilings, the rule that
// takes it, and its dispatch.
#include <algorithm>

#include "tiling.h"
#include "univk/kernels/conv2d.h"

namespace univk::kernels {
namespace {

constexpr uint32_t kInvocations = 256;
// The longest K the planner gives the kernel. On the H200 at batch 32 it beat the GEMM-shaped
// kernels by 11-50% up to K = 144 (MobileNetV2's 56x56 and 112x112 stages), and lost from
// K = 192 (192 -> 32 at 28x28: 29.8 against 25.3 us; 384 -> 64 at 14x14: 34.7 against 30.8).
constexpr int64_t kPointwiseMaxK = 144;

// 256 invocations as (256 / (bn / 4)) row groups by bn / 4 column groups, tm positions each.
constexpr Tiling pointwise(uint32_t bn, uint32_t tm) {
  return {kInvocations / (bn / 4) * tm, bn, 4, tm, 4, false, false, false, false, true};
}
// The planner's first. On the H200 (docs/PERFORMANCE.md) 256x16 ran every batch-32 problem
// with K <= 144 of MobileNetV2 fastest or within 2% of the fastest; wider tiles leave fewer
// positions to a warp's loads.
constexpr Tiling kPointwiseTilings[] = {
    pointwise(16, 4),  pointwise(32, 4), pointwise(8, 4),  pointwise(64, 4),
    pointwise(128, 4), pointwise(16, 8), pointwise(32, 8),
};

// FLAGS bit of conv2d_pointwise_f32.comp beside conv_store_f32.glsl's.
constexpr uint32_t kPointwiseFlagVecIn = 64;

// Whether the kernel computes `p`: a 1x1 window without padding or groups, every output
// position's input inside the input (the kernel reads no padding).
bool computable(const Conv2dProblem& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.pad_top == 0 && p.pad_left == 0 && p.groups == 1 &&
         (p.out_h - 1) * p.stride_h < p.in_h && (p.out_w - 1) * p.stride_w < p.in_w;
}

}  // namespace

std::span<const Tiling> pointwise_tilings() { return kPointwiseTilings; }

namespace detail {

std::optional<Tiling> pointwise_choice(const Conv2dProblem& p, const DeviceTraits& device) {
  // GPUs only (CPU implementations keep the GEMM-shaped tilings), channels contiguous on both
  // sides (the VgfBackend's NHWC), fp32 arithmetic (where fp16 means rounding the operands on
  // the FMA kernels, without cooperative matrices, this kernel does not round), and no forced
  // split-K (this kernel has none).
  if (device.cpu || !computable(p) || p.input.c != 1 || p.output.c != 1 || p.split_k > 1 ||
      device.max_workgroup_invocations < kInvocations ||
      (device.precision == Precision::kFp16 && !device.cooperative_matrix_f16)) {
    return std::nullopt;
  }
  if (p.in_channels > kPointwiseMaxK) return std::nullopt;
  return kPointwiseTilings[0];
}

Result<KernelDispatch> plan_conv2d_pointwise(const Conv2dProblem& p, const Tiling& tiling, const DeviceTraits& device) {
  UNIVK_RETURN_IF_ERROR(check_conv2d(p));
  if (std::find(std::begin(kPointwiseTilings), std::end(kPointwiseTilings), tiling) == std::end(kPointwiseTilings)) {
    return invalid_argument("tiling " + std::to_string(tiling.bm) + "x" + std::to_string(tiling.bn) +
                            " is not one of the pointwise kernel's");
  }
  if (!computable(p)) {
    return unsupported("conv2d: the pointwise kernel computes 1x1 convolutions without padding or groups");
  }
  if (device.precision == Precision::kFp16 && !device.cooperative_matrix_f16) {
    return unsupported("conv2d: the pointwise kernel does not round operands to fp16");
  }
  if (!tiling_fits(tiling, device)) return unsupported("the tiling does not fit the device's workgroup limits");
  const int64_t m = p.batch * p.out_h * p.out_w, n = p.out_channels, k = p.in_channels;
  KernelDispatch d;
  d.kernel = Kernel::kConv2dPointwiseF32;
  d.tiling = tiling;
  UNIVK_ASSIGN_OR_RETURN(const auto grid, tile_grid(tiling, m, n, device, kernel_name(d.kernel)));
  d.groups = {grid[0], grid[1], 1};

  uint32_t flags = fill_direct_conv_output(d, p, k, k);
  // 16-byte loads: 4 contiguous channels at offsets and strides that are multiples of 4.
  const int64_t in_batch = p.batch == 1 ? 0 : p.input.n;
  if (p.input.c == 1 && aligned4({k, int64_t(p.input_offset), in_batch, p.input.h, p.input.w})) {
    flags |= kPointwiseFlagVecIn;
    d.vector_access.push_back({0b1u, 7, kPointwiseFlagVecIn});
  }
  // The weight chunk: all of K when it fits the staged floats, else the most that does.
  const uint32_t chunk = std::min<uint32_t>(kPointwiseStagedFloats / tiling.bn, u32((k + 3) / 4 * 4));
  d.specialization = {{0, tiling.invocations()},
                      {1, tiling.bn / 4},
                      {2, tiling.tm},
                      {3, chunk},
                      {6, static_cast<uint32_t>(p.epilogue.activation)},
                      {7, flags}};
  return d;
}

}  // namespace detail
}  // namespace univk::kernels
