#include "univk/kernels/conv_transpose2d.h"

#include <algorithm>
#include <bit>
#include <string>

#include "tiling.h"

namespace univk::kernels {

using detail::u32;

ConvTransposeWeightStrides ConvTransposeWeightStrides::iohw(int64_t oc_per_group, int64_t kh, int64_t kw) {
  return {oc_per_group * kh * kw, kh * kw, 1};
}

ConvTransposeWeightStrides ConvTransposeWeightStrides::ohwi(int64_t in_channels, int64_t kh, int64_t kw) {
  return {1, kh * kw * in_channels, in_channels};
}

Result<KernelDispatch> plan_conv_transpose2d(const ConvTranspose2dProblem& p, const DeviceTraits& device) {
  const std::string what = "transposed convolution ";
  if (p.epilogue.residual) return invalid_argument(what + "has no residual epilogue");
  UNIVK_RETURN_IF_ERROR(detail::check_conv_geometry(p, p.input_offset, p.output_offset, what));
  // The shader's source positions (out + pad - k * dilation) are int32.
  constexpr int64_t kIntMax = (int64_t{1} << 31) - 1;
  for (auto [out, pad, reach] : {std::tuple{p.out_h, p.pad_top, p.dilation_h * (p.kernel_h - 1)},
                                 {p.out_w, p.pad_left, p.dilation_w * (p.kernel_w - 1)}}) {
    if (pad > kIntMax || -pad > kIntMax || out + std::max<int64_t>(pad, 0) > kIntMax ||
        reach - std::min<int64_t>(pad, 0) > kIntMax)
      return unsupported(what + "positions do not fit the shader's int32 arithmetic");
  }
  const int64_t icg = p.in_channels / p.groups, ocg = p.out_channels / p.groups;
  UNIVK_RETURN_IF_ERROR(detail::check_addressable(
      p.weight_offset, {{p.in_channels, p.weight.ic}, {ocg, p.weight.oc}, {p.kernel_h * p.kernel_w, p.weight.tap}},
      what + "weight"));
  if (p.epilogue.bias) {
    UNIVK_RETURN_IF_ERROR(
        detail::check_addressable(p.bias_offset, {{p.bias_broadcast ? 1 : p.out_channels, 1}}, what + "bias"));
  }
  const int64_t total = p.batch * p.out_channels * p.out_h * p.out_w;
  UNIVK_RETURN_IF_ERROR(detail::check_range(total, UINT32_MAX, what + "invocations"));
  // 64 invocations: a multiple of every GPU's subgroup size and within every device's limits.
  const uint32_t workgroup = std::min<uint32_t>(64, device.max_workgroup_invocations);
  const int64_t groups = (total + workgroup - 1) / workgroup;
  const int64_t gx = std::min<int64_t>(groups, device.max_group_count[0]);
  const int64_t gy = (groups + gx - 1) / gx;
  if (gy > int64_t{device.max_group_count[1]})
    return unsupported(what + std::to_string(groups) + " workgroups exceed the device's workgroup count limits");

  KernelDispatch d;
  d.kernel = Kernel::kConvTranspose2dF32;
  d.groups = {u32(gx), u32(gy), 1};
  const uint32_t flags = (p.epilogue.bias ? kCtFlagBias : 0) | (p.bias_broadcast ? kCtFlagBiasBroadcast : 0);
  d.specialization = {
      {0, workgroup}, {kCtActivationConstant, static_cast<uint32_t>(p.epilogue.activation)}, {kCtFlagsConstant, flags}};
  d.push.assign(kCtPushWords, 0);
  detail::set_binding_offsets(d.push, {p.input_offset, p.weight_offset, p.bias_offset, p.output_offset, 0});
  d.push[kCtTotal] = u32(total);
  d.push[kCtOC] = u32(p.out_channels);
  d.push[kCtOH] = u32(p.out_h);
  d.push[kCtOW] = u32(p.out_w);
  d.push[kCtIH] = u32(p.in_h);
  d.push[kCtIW] = u32(p.in_w);
  d.push[kCtICG] = u32(icg);
  d.push[kCtOCG] = u32(ocg);
  detail::set_activation_strides(d.push, kCtInStrides, p.input, p.output);
  d.push[kCtWeightStrides] = u32(p.weight.ic);
  d.push[kCtWeightStrides + 1] = u32(p.weight.oc);
  d.push[kCtWeightStrides + 2] = u32(p.weight.tap);
  d.push[kCtKH] = u32(p.kernel_h);
  d.push[kCtKW] = u32(p.kernel_w);
  d.push[kCtStride] = detail::pack_yx(p.stride_h, p.stride_w);
  d.push[kCtDilation] = detail::pack_yx(p.dilation_h, p.dilation_w);
  d.push[kCtPadY] = u32(p.pad_top);  // two's complement: the shader reads an int
  d.push[kCtPadX] = u32(p.pad_left);
  d.push[kCtLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  d.push[kCtHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  d.used_bindings = 0b1011u | (p.epilogue.bias ? 0b100u : 0u);
  d.output_binding = 3;
  d.flops = 2 * uint64_t(total) * uint64_t(icg) * uint64_t(p.kernel_h) * uint64_t(p.kernel_w);
  return d;
}

}  // namespace univk::kernels
