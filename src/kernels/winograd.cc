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
// on lavapipe"): with fewer channels the transforms cost more than the GEMM saves; with fewer
// tiles the GEMM reads U (16/9 the weight's bytes) for too little work and runs slower than the
// implicit GEMM (ResNet18 at 64x64: 4 tiles 26% slower, 1 tile 25%; 16 tiles 3% faster).
constexpr int64_t kAutoMinChannels = 8, kAutoMinTiles = 16;

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

int64_t tiles_along(int64_t out) { return (out + 1) / 2; }

}  // namespace

bool winograd_computes(const Conv2dProblem& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 &&
         p.dilation_w == 1 && p.groups == 1;
}

bool winograd_chosen(const Conv2dProblem& p, const DeviceTraits& device) {
  if (device.winograd == Winograd::kOff || !winograd_computes(p)) return false;
  if (device.winograd == Winograd::kAuto &&
      (!device.cpu || p.in_channels < kAutoMinChannels || p.out_channels < kAutoMinChannels)) {
    return false;
  }
  const auto plan = plan_winograd(p, device);
  if (!plan.ok()) return false;
  if (device.winograd == Winograd::kAuto && plan->tiles < kAutoMinTiles) return false;
  for (uint64_t elements : {plan->v_elements, plan->m_elements, plan->u_elements}) {
    if (elements * sizeof(float) > device.max_binding_bytes) return false;
  }
  return true;
}

Result<WinogradPlan> plan_winograd(const Conv2dProblem& p, const DeviceTraits& device) {
  if (!winograd_computes(p)) {
    return invalid_argument("Winograd F(2x2, 3x3) computes 3x3 convolutions of stride 1 without dilation or groups");
  }
  UNIVK_RETURN_IF_ERROR(check_conv2d(p));
  WinogradPlan plan;
  plan.tiles_h = tiles_along(p.out_h);
  plan.tiles_w = tiles_along(p.out_w);
  UNIVK_ASSIGN_OR_RETURN(plan.tiles,
                         detail::checked_product({p.batch, plan.tiles_h, plan.tiles_w}, UINT32_MAX, "Winograd tiles"));
  const int64_t c = p.in_channels, oc = p.out_channels;
  UNIVK_ASSIGN_OR_RETURN(const int64_t v_elements, detail::checked_product({kWinogradPoints, plan.tiles, c}, UINT32_MAX,
                                                                           "Winograd transformed input"));
  UNIVK_ASSIGN_OR_RETURN(const int64_t m_elements,
                         detail::checked_product({kWinogradPoints, plan.tiles, oc}, UINT32_MAX, "Winograd products"));
  UNIVK_ASSIGN_OR_RETURN(const int64_t u_elements,
                         detail::checked_product({kWinogradPoints, c, oc}, UINT32_MAX, "Winograd transformed weight"));
  plan.v_elements = uint64_t(v_elements);
  plan.m_elements = uint64_t(m_elements);
  plan.u_elements = uint64_t(u_elements);
  const uint32_t workgroup = std::min(kTransformWorkgroup, device.max_workgroup_invocations);

  KernelDispatch& in = plan.input_transform;
  in.kernel = Kernel::kWinogradInputF32;
  const int64_t in_total = plan.tiles * c;
  UNIVK_ASSIGN_OR_RETURN(in.groups, linear_grid(in_total, workgroup, device, "Winograd input transform"));
  in.specialization = {{0, workgroup}};
  in.push.assign(kWgPushWords, 0);
  detail::set_binding_offsets(in.push, {p.input_offset, 0, 0, 0, 0});
  in.push[kWgTotal] = u32(in_total);
  in.push[kWgChannels] = u32(c);
  in.push[kWgTilesH] = u32(plan.tiles_h);
  in.push[kWgTilesW] = u32(plan.tiles_w);
  in.push[kWgTiles] = u32(plan.tiles);
  in.push[kWgH] = u32(p.in_h);
  in.push[kWgW] = u32(p.in_w);
  in.push[kWgStrides] = u32(p.input.n);
  in.push[kWgStrides + 1] = u32(p.input.c);
  in.push[kWgStrides + 2] = u32(p.input.h);
  in.push[kWgStrides + 3] = u32(p.input.w);
  in.push[kWgPad] = detail::pack_yx(p.pad_top, p.pad_left);
  in.used_bindings = 0b1001u;
  in.output_binding = 3;

  GemmProblem& g = plan.gemm_problem;
  g.batch = kWinogradPoints;
  g.m = plan.tiles;
  g.n = oc;
  g.k = c;
  g.a = {0, plan.tiles * c, c, 1};
  g.b = {0, c * oc, 1, c};  // U[xi] stored [OC][C]: both operands contiguous along K
  g.out = {0, plan.tiles * oc, oc, 1};
  UNIVK_ASSIGN_OR_RETURN(plan.gemm, plan_gemm(g, device));

  KernelDispatch& out = plan.output_transform;
  out.kernel = Kernel::kWinogradOutputF32;
  const int64_t out_total = plan.tiles * oc;
  UNIVK_ASSIGN_OR_RETURN(out.groups, linear_grid(out_total, workgroup, device, "Winograd output transform"));
  const uint32_t flags = (p.epilogue.bias ? 1u : 0u) | (p.epilogue.residual ? 2u : 0u);
  out.specialization = {
      {0, workgroup}, {kWgActivationConstant, static_cast<uint32_t>(p.epilogue.activation)}, {kWgFlagsConstant, flags}};
  out.push.assign(kWgPushWords, 0);
  detail::set_binding_offsets(out.push, {0, 0, p.bias_offset, p.output_offset, p.residual_offset});
  out.push[kWgTotal] = u32(out_total);
  out.push[kWgChannels] = u32(oc);
  out.push[kWgTilesH] = u32(plan.tiles_h);
  out.push[kWgTilesW] = u32(plan.tiles_w);
  out.push[kWgTiles] = u32(plan.tiles);
  out.push[kWgH] = u32(p.out_h);
  out.push[kWgW] = u32(p.out_w);
  out.push[kWgStrides] = u32(p.output.n);
  out.push[kWgStrides + 1] = u32(p.output.c);
  out.push[kWgStrides + 2] = u32(p.output.h);
  out.push[kWgStrides + 3] = u32(p.output.w);
  out.push[kWgBiasStride] = p.bias_broadcast ? 0 : 1;
  out.push[kWgLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  out.push[kWgHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  out.used_bindings = 0b1001u | (p.epilogue.bias ? 0b100u : 0u) | (p.epilogue.residual ? 0b10000u : 0u);
  out.output_binding = 3;
  return plan;
}

Result<std::vector<float>> winograd_weights(const Conv2dProblem& p, std::span<const float> weight) {
  if (!winograd_computes(p)) return invalid_argument("Winograd weights of a convolution Winograd does not compute");
  const int64_t c = p.in_channels, oc = p.out_channels;
  const int64_t last = int64_t(p.weight_offset) + (oc - 1) * p.weight.oc + (c - 1) * p.weight.ic + 8 * p.weight.tap;
  if (last >= int64_t(weight.size())) {
    return invalid_argument("Winograd weights: the weight holds " + std::to_string(weight.size()) +
                            " elements, its strides reach element " + std::to_string(last));
  }
  // U = G g G^T with G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
  constexpr float kG[4][3] = {{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.0f, 0.0f, 1.0f}};
  std::vector<float> u(size_t(kWinogradPoints * c * oc));
  for (int64_t k = 0; k < oc; ++k) {
    for (int64_t ch = 0; ch < c; ++ch) {
      float g[3][3];
      for (int tap = 0; tap < 9; ++tap) {
        g[tap / 3][tap % 3] =
            weight[size_t(int64_t(p.weight_offset) + k * p.weight.oc + ch * p.weight.ic + tap * p.weight.tap)];
      }
      float gg[4][3];  // G g
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) gg[i][j] = kG[i][0] * g[0][j] + kG[i][1] * g[1][j] + kG[i][2] * g[2][j];
      }
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          const float value = gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2];
          u[size_t(((i * 4 + j) * oc + k) * c + ch)] = value;
        }
      }
    }
  }
  return u;
}

}  // namespace univk::kernels
