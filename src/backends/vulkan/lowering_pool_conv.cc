// Lowering of avg_pool2d, max_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d (pool2d.comp), upsample_nearest2d and
// upsample_bilinear2d (upsample.comp), conv2d (the kernel library's conv2d_f32 and
// depthwise_f32) and conv_transpose2d (the kernel library's conv_transpose2d_f32), NCHW or unbatched CHW.
#include "lowering_common.h"

namespace univk::backends::vulkan {
namespace {

enum PoolMode : uint32_t { kAvgPool = 0, kMaxPool = 1, kAdaptiveAvgPool = 2, kAdaptiveMaxPool = 3 };

Result<LoweredOp> lower_pool(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Pool2d p, ops::pool2d(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, p.output));
  const int64_t n = lowered.output.shape.numel();
  Dispatch d;
  d.shader = Shader::kPool2d;
  d.variant = p.is_max ? kMaxPool : kAvgPool;
  // Params { n, H, W, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, include_pad, divisor_override }
  // (include_pad is 1 for max_pool2d, as the resolver's default: the shader ignores it there).
  d.push = {u32(n),
            u32(p.in.h),
            u32(p.in.w),
            u32(p.out_h),
            u32(p.out_w),
            u32(p.kernel[0]),
            u32(p.kernel[1]),
            u32(p.stride[0]),
            u32(p.stride[1]),
            u32(p.padding[0]),
            u32(p.padding[1]),
            u32(p.dilation[0]),
            u32(p.dilation[1]),
            p.count_include_pad,
            u32(p.divisor_override)};
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_adaptive_pool(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::AdaptiveAvgPool2d p, ops::adaptive_avg_pool2d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, p.output));
  const int64_t n = lowered.output.shape.numel();
  Dispatch d;
  d.shader = Shader::kPool2d;
  d.variant = op == "adaptive_max_pool2d" ? kAdaptiveMaxPool : kAdaptiveAvgPool;
  d.push = {u32(n), u32(p.in.h), u32(p.in.w), u32(p.out_h), u32(p.out_w), 0, 0, 0, 0, 0, 0, 1, 1, 0, 0};
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_upsample(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Upsample2d u, ops::upsample2d(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, u.output));
  const int64_t n = lowered.output.shape.numel();
  Dispatch d;
  d.shader = Shader::kUpsample;
  d.variant = u.bilinear ? 1 : 0;
  // Params { n, in_h, in_w, out_h, out_w, scale_h, scale_w, align_corners }
  d.push = {u32(n),       u32(u.in.h),           u32(u.in.w),           u32(u.out_h),
            u32(u.out_w), float_bits(u.scale_h), float_bits(u.scale_w), u.align_corners ? 1u : 0u};
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_conv2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Conv2d cv, ops::conv2d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_extent(inputs[i].shape, "input " + std::to_string(i)));
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, cv.output));
  const int64_t n = cv.n, oh = cv.out_h, ow = cv.out_w, groups = cv.groups;
  const bool has_bias = cv.has_bias;
  const std::vector<Operand> bindings = {Operand::input(0), Operand::input(1), Operand::input(has_bias ? 2 : 0),
                                         Operand::output(), Operand::input(0), Operand::scratch()};
  if (cv.icg == 1 && groups > 1) {
    // Depthwise (one input channel per group, any channel multiplier): the kernel library's
    // depthwise kernel over NCHW activations and PyTorch's weight layout.
    kernels::DepthwiseProblem p;
    p.batch = n, p.channels = cv.c, p.multiplier = cv.oc / groups, p.in_h = cv.h, p.in_w = cv.w;
    p.out_h = oh, p.out_w = ow;
    p.kernel_h = cv.kh, p.kernel_w = cv.kw;
    p.stride_h = cv.stride[0], p.stride_w = cv.stride[1];
    p.dilation_h = cv.dilation[0], p.dilation_w = cv.dilation[1];
    p.pad_top = cv.pad_top, p.pad_left = cv.pad_left;
    p.input = kernels::ActivationStrides::nchw({n, cv.c, cv.h, cv.w});
    p.output = kernels::ActivationStrides::nchw({n, cv.oc, oh, ow});
    p.weight = kernels::DepthwiseWeightStrides::oihw(cv.kh, cv.kw);
    p.epilogue.bias = has_bias;
    UNIVK_ASSIGN_OR_RETURN(Dispatch d, kernel_dispatch(p, bindings));
    lowered.dispatches.push_back(std::move(d));
    return lowered;
  }
  // The kernel library's implicit GEMM, over NCHW activations and PyTorch's weight layout.
  kernels::Conv2dProblem p;
  p.batch = n, p.in_channels = cv.c, p.in_h = cv.h, p.in_w = cv.w;
  p.out_channels = cv.oc, p.out_h = oh, p.out_w = ow;
  p.kernel_h = cv.kh, p.kernel_w = cv.kw;
  p.stride_h = cv.stride[0], p.stride_w = cv.stride[1];
  p.dilation_h = cv.dilation[0], p.dilation_w = cv.dilation[1];
  p.pad_top = cv.pad_top, p.pad_left = cv.pad_left;
  p.groups = groups;
  p.input = kernels::ActivationStrides::nchw({n, cv.c, cv.h, cv.w});
  p.output = kernels::ActivationStrides::nchw({n, cv.oc, oh, ow});
  p.weight = kernels::WeightStrides::oihw(cv.icg, cv.kh, cv.kw);
  p.epilogue.bias = has_bias;
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, kernel_dispatch(p, bindings));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

}  // namespace

Result<LoweredOp> lower_conv_transpose2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::ConvTranspose2d cv, ops::conv_transpose2d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_extent(inputs[i].shape, "input " + std::to_string(i)));
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, cv.output));
  // The kernel library's transposed convolution, over NCHW activations and PyTorch's weight
  // layout; an unbatched input is a batch of one.
  kernels::ConvTranspose2dProblem p;
  p.batch = cv.n, p.in_channels = cv.c, p.in_h = cv.h, p.in_w = cv.w;
  p.out_channels = cv.oc, p.out_h = cv.out_h, p.out_w = cv.out_w;
  p.kernel_h = cv.kh, p.kernel_w = cv.kw;
  p.stride_h = cv.stride[0], p.stride_w = cv.stride[1];
  p.dilation_h = cv.dilation[0], p.dilation_w = cv.dilation[1];
  p.pad_top = cv.padding[0], p.pad_left = cv.padding[1];
  p.groups = cv.groups;
  p.input = kernels::ActivationStrides::nchw({cv.n, cv.c, cv.h, cv.w});
  p.output = kernels::ActivationStrides::nchw({cv.n, cv.oc, cv.out_h, cv.out_w});
  p.weight = kernels::ConvTransposeWeightStrides::iohw(cv.ocg, cv.kh, cv.kw);
  p.epilogue.bias = cv.has_bias;
  const std::vector<Operand> bindings = {Operand::input(0), Operand::input(1), Operand::input(cv.has_bias ? 2 : 0),
                                         Operand::output(), Operand::input(0), Operand::scratch()};
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, kernel_dispatch(p, bindings));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

LowerTable pool_conv_lowerings() {
  return {{"avg_pool2d", lower_pool},
          {"max_pool2d", lower_pool},
          {"adaptive_avg_pool2d", lower_adaptive_pool},
          {"adaptive_max_pool2d", lower_adaptive_pool},
          {"upsample_nearest2d", lower_upsample},
          {"upsample_bilinear2d", lower_upsample},
          {"conv2d", lower_conv2d},
          {"conv_transpose2d", lower_conv_transpose2d}};
}

}  // namespace univk::backends::vulkan
