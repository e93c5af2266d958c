// The stem kernel (conv2d_stem_f32.comp) of plan_conv2d: its tilings, the rule that takes it,
// and its dispatch.
#include <algorithm>

#include "tiling.h"
#include "univk/kernels/conv2d.h"

namespace univk::kernels {
namespace {

// The widest input the kernel computes: its window holds every input channel of a block, and
// its registers one kernel row's window values per channel.
constexpr int64_t kStemMaxChannels = 4;
// The longest span of window values one invocation keeps in registers (SPAN in the shader).
constexpr int64_t kStemMaxSpan = 32;

// A block of bm / bk rows by bk = columns output positions and bn output channels; tm
// consecutive positions and tn channels (a multiple of 4) per invocation.
constexpr Tiling stem(uint32_t rows, uint32_t columns, uint32_t bn, uint32_t tm, uint32_t tn) {
  Tiling t{rows * columns, bn, columns, tm, tn};
  t.stem = true;
  return t;
}
// GPUs take the first for more than 32 output channels, the second otherwise: on the H200
// (docs/PERFORMANCE.md) they ran ResNet's and MobileNetV2's batch-32 stems within 4% of the
// fastest tiling. CPU implementations take the fourth for more than 32 output channels, the
// second otherwise: on lavapipe (batch 1) ResNet's stem ran 2.9 ms at 64x64 and 30.5 ms at
// 224x224 with the fourth against 3.3-4.0 and 40.8 ms with the first, MobileNetV2's 0.58 and
// 6.1 ms with the second, within 5% of the fastest; the GEMM-shaped kernel they replace there
// took 4.4, 54, 1.3-2.5 and 37 ms.
constexpr Tiling kStemTilings[] = {
    stem(8, 16, 64, 4, 8), stem(16, 16, 32, 4, 8), stem(4, 32, 64, 4, 8), stem(16, 16, 64, 8, 8),
    stem(8, 16, 32, 4, 8), stem(4, 16, 64, 2, 8),  stem(8, 16, 64, 4, 4), stem(8, 16, 64, 8, 4),
};

// Blocks per workgroup: about this many workgroups, each staging the weight once for the blocks
// that leaves it. On the H200 ResNet's batch-32 stem (3136 blocks of 8 x 16) ran 375 us with
// one block per workgroup, 291 us with 3 (this rule) and 297-311 us with 2, 4, 7 or 14.
constexpr int64_t kStemWorkgroups = 1024;

// The shader's sizes of `p` under `t`.
struct StemShape {
  int64_t block_rows = 0, window_rows = 0, window_columns = 0, span = 0;
  uint64_t window_bytes = 0, weight_row_bytes = 0;
};
StemShape stem_shape(const Conv2dProblem& p, const Tiling& t) {
  StemShape s;
  s.block_rows = t.bm / t.bk;
  s.window_rows = (s.block_rows - 1) * p.stride_h + (p.kernel_h - 1) * p.dilation_h + 1;
  s.window_columns = (int64_t{t.bk} - 1) * p.stride_w + (p.kernel_w - 1) * p.dilation_w + 1;
  s.span = (int64_t{t.tm} - 1) * p.stride_w + (p.kernel_w - 1) * p.dilation_w + 1;
  s.window_bytes = uint64_t(p.in_channels * s.window_rows * s.window_columns) * sizeof(float);
  s.weight_row_bytes = uint64_t(p.kernel_w * p.in_channels) * t.bn * sizeof(float);
  return s;
}

// Why the kernel cannot compute `p` with `t` on `device`, or an empty string.
std::string refusal(const Conv2dProblem& p, const Tiling& t, const DeviceTraits& device) {
  if (p.groups != 1) return "the stem kernel computes convolutions without groups";
  if (p.in_channels > kStemMaxChannels) {
    return "the stem kernel computes at most " + std::to_string(kStemMaxChannels) + " input channels";
  }
  if (device.precision == Precision::kFp16 && !device.cooperative_matrix_f16) {
    return "the stem kernel does not round operands to fp16";
  }
  if (!tiling_fits(t, device)) return "the tiling does not fit the device's workgroup limits";
  const StemShape s = stem_shape(p, t);
  if (s.span > kStemMaxSpan) {
    return "the stem kernel's window span of " + std::to_string(s.span) + " columns exceeds " +
           std::to_string(kStemMaxSpan);
  }
  if (s.window_bytes + s.weight_row_bytes > device.max_shared_bytes) {
    return "the stem kernel's input window and one kernel row of its weight need " +
           std::to_string(s.window_bytes + s.weight_row_bytes) + " bytes of shared memory, more than the device's " +
           std::to_string(device.max_shared_bytes);
  }
  return {};
}

}  // namespace

std::span<const Tiling> stem_tilings() { return kStemTilings; }

namespace detail {

std::optional<Tiling> stem_choice(const Conv2dProblem& p, const DeviceTraits& device) {
  // No forced split-K (this kernel has none).
  if (p.split_k > 1) return std::nullopt;
  const Tiling& wide = device.cpu ? kStemTilings[3] : kStemTilings[0];
  const Tiling& t = p.out_channels > 32 ? wide : kStemTilings[1];
  if (!refusal(p, t, device).empty()) return std::nullopt;
  return t;
}

Result<KernelDispatch> plan_conv2d_stem(const Conv2dProblem& p, const Tiling& tiling, const DeviceTraits& device) {
  UNIVK_RETURN_IF_ERROR(check_conv2d(p));
  if (std::find(std::begin(kStemTilings), std::end(kStemTilings), tiling) == std::end(kStemTilings)) {
    return invalid_argument("tiling " + tiling_label(tiling) + " is not one of the stem kernel's");
  }
  if (const std::string why = refusal(p, tiling, device); !why.empty()) return unsupported("conv2d: " + why);
  const StemShape s = stem_shape(p, tiling);
  KernelDispatch d;
  d.kernel = Kernel::kConv2dStemF32;
  d.tiling = tiling;
  const int64_t blocks = ((p.out_h + s.block_rows - 1) / s.block_rows) * ((p.out_w + tiling.bk - 1) / tiling.bk);
  const int64_t channel_blocks = (p.out_channels + tiling.bn - 1) / tiling.bn;
  int64_t per_workgroup = std::clamp<int64_t>(blocks * channel_blocks * p.batch / kStemWorkgroups, 1, blocks);
  const int64_t workgroups = (blocks + per_workgroup - 1) / per_workgroup;
  if (workgroups > device.max_group_count[0] || channel_blocks > device.max_group_count[1] ||
      p.batch > device.max_group_count[2]) {
    return unsupported("conv2d_stem_f32: " + std::to_string(blocks) + " x " + std::to_string(channel_blocks) + " x " +
                       std::to_string(p.batch) + " workgroups exceed the device's workgroup count limits");
  }
  d.groups = {u32(workgroups), u32(channel_blocks), u32(p.batch)};

  const uint32_t flags = fill_direct_conv_output(d, p, p.in_channels * p.kernel_h * p.kernel_w, p.in_channels);
  // Every kernel row of the weight at once where it fits beside the window (one barrier), else
  // as many as do.
  const uint64_t rows =
      std::min<uint64_t>(uint64_t(p.kernel_h), (device.max_shared_bytes - s.window_bytes) / s.weight_row_bytes);
  d.specialization = {{0, tiling.invocations()},
                      {1, tiling.bn / tiling.tn},
                      {2, tiling.tm},
                      {3, tiling.bk},
                      {4, tiling.tn / 4},
                      {5, u32(p.in_channels)},
                      {6, static_cast<uint32_t>(p.epilogue.activation)},
                      {7, flags},
                      {8, u32(p.kernel_h)},
                      {9, u32(p.kernel_w)},
                      {10, u32(p.stride_h)},
                      {11, u32(p.stride_w)},
                      {12, u32(p.dilation_h)},
                      {13, u32(p.dilation_w)},
                      {14, u32(rows)},
                      {15, u32(per_workgroup)}};
  return d;
}

}  // namespace detail
}  // namespace univk::kernels
