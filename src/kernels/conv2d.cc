#include "univk/kernels/conv2d.h"

#include <bit>

#include "tiling.h"

namespace univk::kernels {

using detail::u32;

ActivationStrides ActivationStrides::nchw(const std::array<int64_t, 4>& s) {
  return {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
}

ActivationStrides ActivationStrides::nhwc(const std::array<int64_t, 4>& s) {
  return {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};
}

WeightStrides WeightStrides::oihw(int64_t ic_per_group, int64_t kh, int64_t kw) {
  return {ic_per_group * kh * kw, kh * kw, 1};
}

WeightStrides WeightStrides::ohwi(int64_t ic_per_group, int64_t kh, int64_t kw) {
  return {ic_per_group * kh * kw, 1, ic_per_group};
}

Status check_conv2d(const Conv2dProblem& p) {
  UNIVK_RETURN_IF_ERROR(detail::check_conv_geometry(p, p.input_offset, p.output_offset, "conv2d "));
  for (int64_t pad : {p.pad_top, p.pad_left}) UNIVK_RETURN_IF_ERROR(detail::check_range(pad, 0xffff, "conv2d padding"));
  const int64_t icg = p.in_channels / p.groups;
  UNIVK_RETURN_IF_ERROR(
      detail::checked_product({p.batch, p.out_h, p.out_w}, UINT32_MAX, "conv2d output positions").status());
  UNIVK_RETURN_IF_ERROR(
      detail::checked_product({icg, p.kernel_h, p.kernel_w}, UINT32_MAX, "conv2d reduction size").status());
  const int64_t taps = p.kernel_h * p.kernel_w;
  if (p.epilogue.residual) {
    UNIVK_RETURN_IF_ERROR(detail::check_addressable(
        p.residual_offset,
        {{p.batch, p.output.n}, {p.out_channels, p.output.c}, {p.out_h, p.output.h}, {p.out_w, p.output.w}},
        "conv2d residual"));
  }
  UNIVK_RETURN_IF_ERROR(detail::check_addressable(
      p.weight_offset, {{p.out_channels, p.weight.oc}, {icg, p.weight.ic}, {taps, p.weight.tap}}, "conv2d weight"));
  if (p.epilogue.bias) {
    UNIVK_RETURN_IF_ERROR(
        detail::check_addressable(p.bias_offset, {{p.bias_broadcast ? 1 : p.out_channels, 1}}, "conv2d bias"));
  }
  return ok_status();
}

Result<KernelDispatch> plan_conv2d(const Conv2dProblem& p, const DeviceTraits& device, std::optional<Tiling> tiling) {
  UNIVK_RETURN_IF_ERROR(check_conv2d(p));
  const int64_t icg = p.in_channels / p.groups, ocg = p.out_channels / p.groups;
  const int64_t m = p.batch * p.out_h * p.out_w, k = icg * p.kernel_h * p.kernel_w;

  std::optional<Tiling> special = tiling;
  if (!special) special = detail::pointwise_choice(p, device);
  if (!special) special = detail::stem_choice(p, device);
  if (special && special->pointwise) return detail::plan_conv2d_pointwise(p, *special, device);
  if (special && special->stem) return detail::plan_conv2d_stem(p, *special, device);
  constexpr uint32_t kFlagAlignedK = 16;  // conv2d.glsl
  // An input with contiguous channels (NHWC) loads along K, one with contiguous columns (NCHW)
  // along M. The weight loads along K: contiguous for TOSA's layout, taps for PyTorch's.
  const auto load_flags = [&](uint32_t bk) {
    uint32_t flags = p.input.c == 1 ? detail::kFlagAKFast : 0;
    if (p.weight.oc == 1) flags |= detail::kFlagBNFast;
    if (icg % bk != 0) return flags;
    flags |= kFlagAlignedK;
    // 16-byte loads (vectorised tilings, conv2d.glsl): 4 contiguous input channels of the
    // input and of the weight, or 4 contiguous output channels of the weight; offset and
    // strides multiples of 4 (icg is, as a multiple of BK).
    using detail::aligned4;
    const int64_t in_batch = p.batch == 1 ? 0 : p.input.n;
    if (p.input.c == 1 && aligned4({int64_t(p.input_offset), in_batch, p.input.h, p.input.w})) {
      flags |= detail::kFlagVecA;
    }
    const int64_t w_off = int64_t(p.weight_offset);
    if (p.weight.oc == 1 ? aligned4({w_off, p.weight.ic, p.weight.tap, ocg})
                         : p.weight.ic == 1 && aligned4({w_off, p.weight.oc, p.weight.tap})) {
      flags |= detail::kFlagVecB;
    }
    return flags;
  };
  const auto along_k = [&](uint32_t bk) { return detail::loads_vectors_along_k(load_flags(bk)); };
  // At most 256 invocations: measured on the H200, a batch-32 3x3 64->64 convolution at 56x56
  // ran in 440 us with 128x64 and in 611 us with the 512-invocation 128x128 FMA tiling (the
  // planner's small-grid rule and its 16-subgroup cooperative-matrix tilings, measured on their
  // own shapes, pass this cap: tiling.cc).
  UNIVK_ASSIGN_OR_RETURN(const Tiling chosen, detail::choose_tiling(m, ocg, k, p.groups, device, tiling, 256, along_k));
  KernelDispatch d;
  d.kernel = Kernel::kConv2dF32;
  uint32_t flags = load_flags(chosen.bk);
  // 16-byte output stores (the vectorised core): 4 contiguous output channels (NHWC), the
  // offset, the other strides and the channels per group multiples of 4.
  const int64_t out_batch = p.batch == 1 ? 0 : p.output.n;
  if (p.output.c == 1 && detail::aligned4({int64_t(p.output_offset), out_batch, p.output.h, p.output.w, ocg})) {
    flags |= detail::kFlagVecOut;
  }
  UNIVK_RETURN_IF_ERROR(detail::fill_gemm_shape(d, chosen, m, ocg, k, p.groups, p.epilogue, flags, p.split_k, device));
  // Channels no slice divides (3-channel stems) on the scalar FMA kernel: conv2d.glsl's K table
  // of decoded K indices (specialization constant 10), where it fits beside the tiling's shared
  // memory. On the H200 the batch-32 stem ran 373 against 481 us (NHWC) and 404 against 461 us
  // (NCHW) with it.
  constexpr uint32_t kKTableEntries = 256, kKTableBytes = kKTableEntries * 3 * sizeof(uint32_t);
  if (d.kernel == Kernel::kConv2dF32 && (flags & kFlagAlignedK) == 0 &&
      detail::tiling_shared_bytes(chosen) + kKTableBytes <= device.max_shared_bytes) {
    d.specialization.push_back({10, kKTableEntries});
  }
  d.push.assign(kConvPushWords, 0);
  detail::set_binding_offsets(d.push,
                              {p.input_offset, p.weight_offset, p.bias_offset, p.output_offset, p.residual_offset});
  detail::set_conv_geometry(d.push, p, m, ocg, k, icg);
  d.push[kConvBiasStride] = p.bias_broadcast ? 0 : 1;
  d.push[kConvLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  d.push[kConvHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  // Bindings 0, 1 and 3 always; the bias and residual when the epilogue reads them; the
  // scratch with split-K.
  d.used_bindings = 0b1011u | (p.epilogue.bias ? 0b100u : 0u) | (p.epilogue.residual ? 0b10000u : 0u) |
                    (d.splits > 1 ? 0b100000u : 0u);
  d.output_binding = 3;
  d.flops = 2 * uint64_t(m) * uint64_t(p.out_channels) * uint64_t(k);
  return d;
}

}  // namespace univk::kernels
