#include "univk/kernels/depthwise.h"

#include <algorithm>
#include <bit>
#include <string>

#include "tiling.h"

namespace univk::kernels {

using detail::u32;

DepthwiseWeightStrides DepthwiseWeightStrides::oihw(int64_t kh, int64_t kw) { return {kh * kw, 1}; }

DepthwiseWeightStrides DepthwiseWeightStrides::hwcm(int64_t out_channels) { return {1, out_channels}; }

namespace {

// Channels per invocation (the shader's vec4 accumulators).
constexpr int64_t kChannelsPerInvocation = 4;
// Columns of a window row the shader unrolls at most (KW taps of several outputs, with their
// stride and dilation gaps): beyond it, the window is walked at runtime, one column per tap.
constexpr int64_t kMaxUnrolledSpan = 32, kMaxUnrolledKernelWidth = 8;

// Whether every stride is a multiple of 4 elements (vector access keeps 4-element alignment).
bool vector_strides(std::initializer_list<int64_t> strides) {
  for (int64_t s : strides)
    if (s % 4 != 0) return false;
  return true;
}

}  // namespace

Result<KernelDispatch> plan_depthwise(const DepthwiseProblem& p, const DeviceTraits& device) {
  using detail::check_range;
  for (auto [v, what] : {std::pair{p.batch, "batch"},
                         {p.channels, "channels"},
                         {p.multiplier, "channel multiplier"},
                         {p.in_h, "input height"},
                         {p.in_w, "input width"},
                         {p.out_h, "output height"},
                         {p.out_w, "output width"},
                         {p.kernel_h, "kernel height"},
                         {p.kernel_w, "kernel width"}}) {
    if (v < 1) return invalid_argument(std::string("depthwise convolution ") + what + " must be positive");
    UNIVK_RETURN_IF_ERROR(check_range(v, UINT32_MAX, std::string("depthwise convolution ") + what));
  }
  for (auto [v, what] : {std::pair{p.stride_h, "stride"},
                         {p.stride_w, "stride"},
                         {p.dilation_h, "dilation"},
                         {p.dilation_w, "dilation"},
                         {p.pad_top, "padding"},
                         {p.pad_left, "padding"}}) {
    UNIVK_RETURN_IF_ERROR(check_range(v, 0xffff, std::string("depthwise convolution ") + what));
  }
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1) {
    return invalid_argument("depthwise convolution strides and dilations must be positive");
  }
  const int64_t oc = p.channels * p.multiplier;
  UNIVK_RETURN_IF_ERROR(check_range(oc, UINT32_MAX, "depthwise convolution output channels"));
  UNIVK_RETURN_IF_ERROR(detail::check_addressable(
      p.input_offset, {{p.batch, p.input.n}, {p.channels, p.input.c}, {p.in_h, p.input.h}, {p.in_w, p.input.w}},
      "depthwise convolution input"));
  const std::initializer_list<std::pair<int64_t, int64_t>> out_extent = {
      {p.batch, p.output.n}, {oc, p.output.c}, {p.out_h, p.output.h}, {p.out_w, p.output.w}};
  UNIVK_RETURN_IF_ERROR(detail::check_addressable(p.output_offset, out_extent, "depthwise convolution output"));
  if (p.epilogue.residual) {
    UNIVK_RETURN_IF_ERROR(detail::check_addressable(p.residual_offset, out_extent, "depthwise convolution residual"));
  }
  UNIVK_RETURN_IF_ERROR(detail::check_addressable(
      p.weight_offset, {{oc, p.weight.oc}, {p.kernel_h * p.kernel_w, p.weight.tap}}, "depthwise convolution weight"));
  if (p.epilogue.bias) {
    UNIVK_RETURN_IF_ERROR(
        detail::check_addressable(p.bias_offset, {{p.bias_broadcast ? 1 : oc, 1}}, "depthwise convolution bias"));
  }

  // Four columns per invocation: with a 3x3 stride-1 window each loaded input vector feeds up
  // to three outputs (6 loads per window row instead of 12). Fewer where the output is narrower.
  const int64_t columns = p.out_w >= 4 ? 4 : (p.out_w >= 2 ? 2 : 1);
  const int64_t span = (columns - 1) * p.stride_w + (p.kernel_w - 1) * p.dilation_w + 1;
  const bool unrolled = p.kernel_w <= kMaxUnrolledKernelWidth && span <= kMaxUnrolledSpan;
  const int64_t channel_blocks = (oc + kChannelsPerInvocation - 1) / kChannelsPerInvocation;
  const int64_t column_blocks = (p.out_w + columns - 1) / columns;
  const int64_t total = p.batch * p.out_h * column_blocks * channel_blocks;
  UNIVK_RETURN_IF_ERROR(check_range(total, UINT32_MAX, "depthwise convolution invocations"));
  // 64 invocations: a multiple of every GPU's subgroup size and within every device's limits.
  const uint32_t workgroup = std::min<uint32_t>(64, device.max_workgroup_invocations);
  const int64_t groups = (total + workgroup - 1) / workgroup;
  const int64_t gx = std::min<int64_t>(groups, device.max_group_count[0]);
  const int64_t gy = (groups + gx - 1) / gx;
  if (gy > int64_t{device.max_group_count[1]}) {
    return unsupported("depthwise convolution: " + std::to_string(groups) +
                       " workgroups exceed the device's workgroup count limits");
  }

  KernelDispatch d;
  d.kernel = Kernel::kDepthwiseF32;
  d.groups = {u32(gx), u32(gy), 1};
  // Vector access per binding: channels contiguous, every other stride and the offset
  // 4-aligned, whole channel blocks; the input only without a channel multiplier (lanes then
  // read distinct, consecutive input channels).
  const bool whole_blocks = oc % kChannelsPerInvocation == 0;
  const bool vec_in = whole_blocks && p.multiplier == 1 && p.input.c == 1 &&
                      vector_strides({p.input.n, p.input.h, p.input.w, int64_t(p.input_offset)});
  const bool vec_out = whole_blocks && p.output.c == 1 &&
                       vector_strides({p.output.n, p.output.h, p.output.w, int64_t(p.output_offset)}) &&
                       (!p.epilogue.residual || p.residual_offset % 4 == 0);
  const bool vec_weight = whole_blocks && p.weight.oc == 1 && vector_strides({p.weight.tap, int64_t(p.weight_offset)});
  const bool vec_bias = whole_blocks && p.epilogue.bias && !p.bias_broadcast && p.bias_offset % 4 == 0;
  uint32_t flags = (p.epilogue.bias ? kDwFlagBias : 0) | (p.epilogue.residual ? kDwFlagResidual : 0) |
                   (vec_in ? kDwFlagVecIn : 0) | (vec_out ? kDwFlagVecOut : 0) | (vec_weight ? kDwFlagVecWeight : 0) |
                   (vec_bias ? kDwFlagVecBias : 0);
  // Neighbouring invocations take neighbouring channels where the channels are closer together
  // in memory than the columns (NHWC), else neighbouring columns (NCHW): loads coalesce.
  if (p.output.c > p.output.w) flags |= kDwFlagColumnsFast;
  d.specialization = {{0, workgroup},
                      {kDwColumnsConstant, u32(columns)},
                      {kDwUnrolledKwConstant, unrolled ? u32(p.kernel_w) : 0u},
                      {kDwUnrolledSxConstant, unrolled ? u32(p.stride_w) : 1u},
                      {kDwUnrolledDxConstant, unrolled ? u32(p.dilation_w) : 1u},
                      {kDwActivationConstant, static_cast<uint32_t>(p.epilogue.activation)},
                      {kDwFlagsConstant, flags}};
  if (vec_in) d.vector_access.push_back({0b1u, kDwFlagsConstant, kDwFlagVecIn});
  if (vec_weight) d.vector_access.push_back({0b10u, kDwFlagsConstant, kDwFlagVecWeight});
  if (vec_bias) d.vector_access.push_back({0b100u, kDwFlagsConstant, kDwFlagVecBias});
  if (vec_out) d.vector_access.push_back({0b11000u, kDwFlagsConstant, kDwFlagVecOut});

  d.push.assign(kDwPushWords, 0);
  detail::set_binding_offsets(d.push,
                              {p.input_offset, p.weight_offset, p.bias_offset, p.output_offset, p.residual_offset});
  d.push[kDwTotal] = u32(total);
  d.push[kDwOC] = u32(oc);
  d.push[kDwMultiplier] = u32(p.multiplier);
  d.push[kDwChannelBlocks] = u32(channel_blocks);
  d.push[kDwColumnBlocks] = u32(column_blocks);
  d.push[kDwOH] = u32(p.out_h);
  d.push[kDwOW] = u32(p.out_w);
  d.push[kDwIH] = u32(p.in_h);
  d.push[kDwIW] = u32(p.in_w);
  detail::set_activation_strides(d.push, kDwInStrides, p.input, p.output);
  d.push[kDwWeightStrides] = u32(p.weight.oc);
  d.push[kDwWeightStrides + 1] = u32(p.weight.tap);
  d.push[kDwKH] = u32(p.kernel_h);
  d.push[kDwKW] = u32(p.kernel_w);
  d.push[kDwStride] = detail::pack_yx(p.stride_h, p.stride_w);
  d.push[kDwDilation] = detail::pack_yx(p.dilation_h, p.dilation_w);
  d.push[kDwPad] = detail::pack_yx(p.pad_top, p.pad_left);
  d.push[kDwBiasStride] = p.bias_broadcast ? 0 : 1;
  d.push[kDwLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  d.push[kDwHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  d.used_bindings = 0b1011u | (p.epilogue.bias ? 0b100u : 0u) | (p.epilogue.residual ? 0b10000u : 0u);
  d.output_binding = 3;
  d.flops = 2 * uint64_t(p.batch) * uint64_t(oc) * uint64_t(p.out_h) * uint64_t(p.out_w) * uint64_t(p.kernel_h) *
            uint64_t(p.kernel_w);
  return d;
}

}  // namespace univk::kernels
