#include "univk/kernels/winograd.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "tiling.h"

namespace univk::kernels {

using detail::u32;

namespace {

// Invocations per workgroup of the transforms: a multiple of every GPU's subgroup size, within
// every device's limits.
constexpr uint32_t kTransformWorkgroup = 64;
// What kAuto asks of a problem on CPU implementations (lavapipe, docs/PERFORMANCE.md "Winograd
// on lavapipe"). The channel floor is a guard, not a measurement (the models' convolutions with
// fewer channels are 3-channel stems of stride 2): below it the GEMM's K is too short to pay for
// the transforms. With fewer tiles the GEMM reads U (16/9 the weight's bytes) for too little
// work: ResNet18 at 64x64, 2x2 tiles against the implicit GEMM, 64 tiles 1.06-1.13x faster, 16
// tiles 1.39-1.45x, 4 tiles 0.85-0.93x, 1 tile 0.86x; 4x4 tiles, 16 tiles 1.37-1.59x, 4 tiles
// 1.24-1.32x (where 2x2 tiles, 16 of them, gave more).
constexpr int64_t kAutoMinChannels = 8, kAutoMinTiles = 16;
// GPUs: 2x2 tiles where the output has kGpuMinPositions to kGpuMaxPositions positions (batch x
// rows x columns) and at least kGpuMinChannels channels in and out: ResNet's last stage at
// batch 32. On an H100 (docs/PERFORMANCE.md, "Split-K and Winograd on an H100"), the three
// dispatches against the direct kernel, 512 channels at 7x7, batch 32 (1568 positions): 73.3
// against 181.3 us under fp16, 253.3 against 287.8 us under fp32. Elsewhere they lost or won
// too little to show in a model: batch 32, 256 channels at 14x14 (6272 positions) 205.6
// against 133.1 us under fp16; batch 1, 512 at 7x7 82.2 against 44.5 us under fp32 (its GEMM
// too small for the GPU), 64 at 56x56 and 256 at 14x14 28.8 and 30.3 against 35.5 and 36.5 us,
// but ResNet18 at batch 1 with them ran 678 against 668-678 us.
constexpr int64_t kGpuMinPositions = 1024, kGpuMaxPositions = 3136, kGpuMinChannels = 512;

// The grid of `total` invocations in workgroups of `workgroup`, folded into y past the x limit.
Result<std::array<uint32_t, 3>> linear_grid(int64_t total, uint32_t workgroup, const DeviceTraits& device,
                                            const std::string& what) {
  const int64_t groups = (total + workgroup - 1) / workgroup;
  const int64_t gx = std::min<int64_t>(groups, device.max_group_count[0]);
  const int64_t gy = (groups + gx - 1) / gx;
  if (gy > int64_t{device.max_group_count[1]}) {
    return unsupported(what + ": " + std::to_string(groups) + " workgroups exceed the device's workgroup count limits");
  }
  return std::array<uint32_t, 3>{u32(gx), u32(gy), 1};
}

int64_t tiles_along(int64_t out, int64_t tile) { return (out + tile - 1) / tile; }

// The rows of G (F(m x m, 3x3)'s weight transform, (m+2) x 3).
constexpr float kG2[4][3] = {{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.0f, 0.0f, 1.0f}};
constexpr float kG4[6][3] = {
    {1.0f / 4, 0.0f, 0.0f},           {-1.0f / 6, -1.0f / 6, -1.0f / 6}, {-1.0f / 6, 1.0f / 6, -1.0f / 6},
    {1.0f / 24, 1.0f / 12, 1.0f / 6}, {1.0f / 24, -1.0f / 12, 1.0f / 6}, {0.0f, 0.0f, 1.0f}};

Status check_tile(int64_t tile) {
  if (tile != 2 && tile != 4)
    return invalid_argument("Winograd output tiles are 2x2 or 4x4, not " + std::to_string(tile));
  return ok_status();
}

}  // namespace

bool winograd_computes(const Conv2dProblem& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 &&
         p.dilation_w == 1 && p.groups == 1;
}

std::optional<int64_t> winograd_tile(const Conv2dProblem& p, const DeviceTraits& device) {
  if (device.winograd == Winograd::kOff || !winograd_computes(p)) return std::nullopt;
  // The tile if Winograd with it fits the device (and, under kAuto, has the tiles to pay off).
  auto fits = [&](int64_t tile) -> bool {
    const auto plan = plan_winograd(p, device, tile);
    if (!plan.ok()) return false;
    if (device.winograd == Winograd::kAuto && plan->tiles < kAutoMinTiles) return false;
    for (uint64_t elements : {plan->v_elements, plan->m_elements, plan->u_elements}) {
      if (elements * sizeof(float) > device.max_binding_bytes) return false;
    }
    return true;
  };
  if (device.winograd != Winograd::kAuto) {
    const int64_t tile = device.winograd == Winograd::kF4 ? 4 : 2;
    return fits(tile) ? std::optional<int64_t>(tile) : std::nullopt;
  }
  if (!device.cpu) {
    const int64_t positions = p.batch * p.out_h * p.out_w;
    const bool small_output = positions >= kGpuMinPositions && positions <= kGpuMaxPositions;
    const bool wide = p.in_channels >= kGpuMinChannels && p.out_channels >= kGpuMinChannels;
    return small_output && wide && fits(2) ? std::optional<int64_t>(2) : std::nullopt;
  }
  if (p.in_channels < kAutoMinChannels || p.out_channels < kAutoMinChannels) return std::nullopt;
  // Under fp32, kAuto keeps 2x2 tiles: 4x4 ones round more (winograd.h) than the default
  // contract of 1e-4 against PyTorch allows for every model. Under fp16, whose operands round
  // far more than F(4x4) does, 4x4 tiles come first wherever they are as many as the floor.
  if (device.precision == Precision::kFp16 && fits(4)) return 4;
  return fits(2) ? std::optional<int64_t>(2) : std::nullopt;
}

Result<WinogradPlan> plan_winograd(const Conv2dProblem& p, const DeviceTraits& device, int64_t tile) {
  if (!winograd_computes(p)) {
    return invalid_argument("Winograd F(m x m, 3x3) computes 3x3 convolutions of stride 1 without dilation or groups");
  }
  UNIVK_RETURN_IF_ERROR(check_tile(tile));
  UNIVK_RETURN_IF_ERROR(check_conv2d(p));
  WinogradPlan plan;
  plan.tile = tile;
  plan.points = winograd_points(tile);
  plan.tiles_h = tiles_along(p.out_h, tile);
  plan.tiles_w = tiles_along(p.out_w, tile);
  UNIVK_ASSIGN_OR_RETURN(plan.tiles,
                         detail::checked_product({p.batch, plan.tiles_h, plan.tiles_w}, UINT32_MAX, "Winograd tiles"));
  const int64_t c = p.in_channels, oc = p.out_channels;
  UNIVK_ASSIGN_OR_RETURN(const int64_t v_elements, detail::checked_product({plan.points, plan.tiles, c}, UINT32_MAX,
                                                                           "Winograd transformed input"));
  UNIVK_ASSIGN_OR_RETURN(const int64_t m_elements,
                         detail::checked_product({plan.points, plan.tiles, oc}, UINT32_MAX, "Winograd products"));
  UNIVK_ASSIGN_OR_RETURN(const int64_t u_elements,
                         detail::checked_product({plan.points, c, oc}, UINT32_MAX, "Winograd transformed weight"));
  plan.v_elements = uint64_t(v_elements);
  plan.m_elements = uint64_t(m_elements);
  plan.u_elements = uint64_t(u_elements);
  const uint32_t workgroup = std::min(kTransformWorkgroup, device.max_workgroup_invocations);
  // The words both transforms share: invocations, channels, tiles, sizes and strides of `s`.
  auto fill = [&](KernelDispatch& d, int64_t channels, int64_t h, int64_t w, const ActivationStrides& s) {
    d.push.assign(kWgPushWords, 0);
    d.push[kWgTotal] = u32(plan.tiles * channels);
    d.push[kWgChannels] = u32(channels);
    d.push[kWgTilesH] = u32(plan.tiles_h);
    d.push[kWgTilesW] = u32(plan.tiles_w);
    d.push[kWgTiles] = u32(plan.tiles);
    d.push[kWgH] = u32(h);
    d.push[kWgW] = u32(w);
    d.push[kWgStrides] = u32(s.n);
    d.push[kWgStrides + 1] = u32(s.c);
    d.push[kWgStrides + 2] = u32(s.h);
    d.push[kWgStrides + 3] = u32(s.w);
    d.output_binding = 3;
  };

  KernelDispatch& in = plan.input_transform;
  in.kernel = Kernel::kWinogradInputF32;
  UNIVK_ASSIGN_OR_RETURN(in.groups, linear_grid(plan.tiles * c, workgroup, device, "Winograd input transform"));
  in.specialization = {{0, workgroup}, {kWgTileConstant, u32(tile)}};
  fill(in, c, p.in_h, p.in_w, p.input);
  detail::set_binding_offsets(in.push, {p.input_offset, 0, 0, 0, 0});
  in.push[kWgPad] = detail::pack_yx(p.pad_top, p.pad_left);
  in.used_bindings = 0b1001u;

  GemmProblem& g = plan.gemm_problem;
  g.batch = plan.points;
  g.m = plan.tiles;
  g.n = oc;
  g.k = c;
  g.a = {0, plan.tiles * c, c, 1};
  g.b = {0, c * oc, 1, c};  // U[xi] stored [OC][C]: both operands contiguous along K
  g.out = {0, plan.tiles * oc, oc, 1};
  UNIVK_ASSIGN_OR_RETURN(plan.gemm, plan_gemm(g, device));

  KernelDispatch& out = plan.output_transform;
  out.kernel = Kernel::kWinogradOutputF32;
  UNIVK_ASSIGN_OR_RETURN(out.groups, linear_grid(plan.tiles * oc, workgroup, device, "Winograd output transform"));
  const uint32_t flags = (p.epilogue.bias ? 1u : 0u) | (p.epilogue.residual ? 2u : 0u);
  out.specialization = {{0, workgroup},
                        {kWgActivationConstant, static_cast<uint32_t>(p.epilogue.activation)},
                        {kWgFlagsConstant, flags},
                        {kWgTileConstant, u32(tile)}};
  fill(out, oc, p.out_h, p.out_w, p.output);
  detail::set_binding_offsets(out.push, {0, 0, p.bias_offset, p.output_offset, p.residual_offset});
  out.push[kWgBiasStride] = p.bias_broadcast ? 0 : 1;
  out.push[kWgLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  out.push[kWgHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  out.used_bindings = 0b1001u | (p.epilogue.bias ? 0b100u : 0u) | (p.epilogue.residual ? 0b10000u : 0u);
  return plan;
}

Result<std::vector<float>> winograd_weights(const Conv2dProblem& p, std::span<const float> weight, int64_t tile) {
  if (!winograd_computes(p)) return invalid_argument("Winograd weights of a convolution Winograd does not compute");
  UNIVK_RETURN_IF_ERROR(check_tile(tile));
  const int64_t c = p.in_channels, oc = p.out_channels, size = tile + 2;
  const int64_t last = int64_t(p.weight_offset) + (oc - 1) * p.weight.oc + (c - 1) * p.weight.ic + 8 * p.weight.tap;
  if (last >= int64_t(weight.size())) {
    return invalid_argument("Winograd weights: the weight holds " + std::to_string(weight.size()) +
                            " elements, its strides reach element " + std::to_string(last));
  }
  // U = G g G^T, accumulated in double so that U is the transform of g rounded once.
  auto g_at = [&](int64_t i, int64_t j) -> double { return tile == 2 ? kG2[i][j] : kG4[i][j]; };
  std::vector<float> u(size_t(winograd_points(tile) * c * oc));
  for (int64_t k = 0; k < oc; ++k) {
    for (int64_t ch = 0; ch < c; ++ch) {
      double g[3][3];
      for (int tap = 0; tap < 9; ++tap) {
        g[tap / 3][tap % 3] =
            weight[size_t(int64_t(p.weight_offset) + k * p.weight.oc + ch * p.weight.ic + tap * p.weight.tap)];
      }
      double gg[6][3];  // G g
      for (int64_t i = 0; i < size; ++i) {
        for (int j = 0; j < 3; ++j) gg[i][j] = g_at(i, 0) * g[0][j] + g_at(i, 1) * g[1][j] + g_at(i, 2) * g[2][j];
      }
      for (int64_t i = 0; i < size; ++i) {
        for (int64_t j = 0; j < size; ++j) {
          const double value = gg[i][0] * g_at(j, 0) + gg[i][1] * g_at(j, 1) + gg[i][2] * g_at(j, 2);
          u[size_t(((i * size + j) * oc + k) * c + ch)] = float(value);
        }
      }
    }
  }
  return u;
}

}  // namespace univk::kernels
