// Planner of the depthwise 2-d convolution kernel (depthwise_f32.comp):
//   out[n, c*M + m] = act(sum over taps of in[n, c] * weight[c*M + m] + bias + residual)
// (groups == input channels, channel multiplier M), for any element strides of input and
// output (NHWC, NCHW), weight layout, stride, dilation and padding. Each invocation computes 4
// output channels at several output columns; channels are read and written as 4-element
// vectors where the layout allows it (NHWC with aligned strides and offsets). Pure data;
// thread-safe.
#pragma once

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/kernel.h"

namespace univk::kernels {

// Element strides of a depthwise weight by output channel (c * M + m) and tap (ky * KW + kx):
// PyTorch's [C*M, 1, KH, KW] and TOSA's [KH, KW, C, M], packed.
struct DepthwiseWeightStrides {
  int64_t oc = 0, tap = 0;
  static DepthwiseWeightStrides oihw(int64_t kh, int64_t kw);
  static DepthwiseWeightStrides hwcm(int64_t out_channels);
};

struct DepthwiseProblem {
  int64_t batch = 1, channels = 1, multiplier = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // bottom/right padding is implied by out_h/out_w
  ActivationStrides input, output;    // the output's channel dim has channels * multiplier entries
  DepthwiseWeightStrides weight;
  uint64_t input_offset = 0, weight_offset = 0, bias_offset = 0, output_offset = 0, residual_offset = 0;
  bool bias_broadcast = false;  // one bias value for every output channel
  Epilogue epilogue;            // the residual is read through the output's strides
};

// Push-constant words of depthwise_f32.comp, after the five binding offsets.
enum DepthwisePush : uint32_t {
  kDwTotal = 5,  // invocations
  kDwOC,
  kDwMultiplier,
  kDwChannelBlocks,  // ceil(OC / 4)
  kDwColumnBlocks,   // ceil(OW / columns per invocation)
  kDwOH,
  kDwOW,
  kDwIH,
  kDwIW,
  kDwInStrides,
  kDwOutStrides = kDwInStrides + 4,
  kDwWeightStrides = kDwOutStrides + 4,
  kDwKH = kDwWeightStrides + 2,
  kDwKW,
  kDwStride,    // y | x << 16
  kDwDilation,  // y | x << 16
  kDwPad,       // top | left << 16
  kDwBiasStride,
  kDwLo,
  kDwHi,
  kDwPushWords,
};

// Specialization constants of depthwise_f32.comp (constant 0 is the workgroup size).
enum DepthwiseConstant : uint32_t {
  kDwColumnsConstant = 1,  // output columns per invocation
  kDwUnrolledKwConstant,   // kernel width when the window's columns are unrolled, else 0
  kDwUnrolledSxConstant,   // stride along W when unrolled
  kDwUnrolledDxConstant,   // dilation along W when unrolled
  kDwActivationConstant,   // kernels::Activation
  kDwFlagsConstant,        // kDwFlag*
};
inline constexpr uint32_t kDwFlagBias = 1, kDwFlagResidual = 2, kDwFlagVecIn = 4, kDwFlagVecOut = 8,
                          kDwFlagVecWeight = 16, kDwFlagVecBias = 32,
                          kDwFlagColumnsFast = 64;  // neighbouring invocations take neighbouring columns

// The dispatch for `problem`: InvalidArgument for non-positive sizes or a channel count that
// does not match; Unsupported (naming the limit) when strides, dilations or padding exceed 16
// bits, an addressed element or the invocation count exceeds 32 bits or the grid exceeds the
// device's group counts.
Result<KernelDispatch> plan_depthwise(const DepthwiseProblem& problem, const DeviceTraits& device);

}  // namespace univk::kernels
