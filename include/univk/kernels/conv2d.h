// Planner of the 2-d convolution kernels: the implicit GEMM (conv2d_f32.comp and its variants),
// and, where they compute the problem, the pointwise kernel (1x1, short K) and the stem kernel
// (at most 4 input channels):
//   out = act(conv2d(in, weight) + bias + residual)
// for any element strides of input and output (NCHW, NHWC), weight layout, stride, dilation,
// padding and groups. Pure data; thread-safe.
#pragma once

#include <array>
#include <optional>

#include "univk/base/status.h"
#include "univk/kernels/kernel.h"

namespace univk::kernels {

// Element strides of a 4-d activation, by logical dim (batch, channel, row, column).
struct ActivationStrides {
  int64_t n = 0, c = 0, h = 0, w = 0;
  // Packed NCHW / NHWC strides for `shape` = {N, C, H, W}.
  static ActivationStrides nchw(const std::array<int64_t, 4>& shape);
  static ActivationStrides nhwc(const std::array<int64_t, 4>& shape);
};

// Element strides of the weight by output channel, input channel (within the group) and tap
// (ky * KW + kx).
struct WeightStrides {
  int64_t oc = 0, ic = 0, tap = 0;
  // PyTorch's [OC, C/groups, KH, KW] and TOSA's [OC, KH, KW, C/groups], packed.
  static WeightStrides oihw(int64_t ic_per_group, int64_t kh, int64_t kw);
  static WeightStrides ohwi(int64_t ic_per_group, int64_t kh, int64_t kw);
};

// The sizes every 2-d convolution problem has (Conv2dProblem, ConvTranspose2dProblem); each
// problem says how its padding is read.
struct ConvGeometry {
  int64_t batch = 1, in_channels = 1, in_h = 1, in_w = 1;
  int64_t out_channels = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t groups = 1;
  ActivationStrides input, output;
};

// Padding: bottom/right padding is implied by out_h/out_w.
struct Conv2dProblem : ConvGeometry {
  WeightStrides weight;
  uint64_t input_offset = 0, weight_offset = 0, bias_offset = 0, output_offset = 0, residual_offset = 0;
  bool bias_broadcast = false;  // one bias value for every output channel
  Epilogue epilogue;
  // Split-K ranges (kernel.h): 0 lets the planner choose; else forced (for tests and
  // benchmarks), then reduced to the K slices there are and the device's group count.
  uint32_t split_k = 0;
};

// Push-constant words of conv2d_f32.comp, after the five binding offsets.
enum Conv2dPush : uint32_t {
  kConvM = 5,
  kConvOCg,
  kConvK,
  kConvICg,
  kConvOH,
  kConvOW,
  kConvIH,
  kConvIW,
  kConvInStrides,
  kConvOutStrides = kConvInStrides + 4,
  kConvWeightStrides = kConvOutStrides + 4,
  kConvKW = kConvWeightStrides + 3,
  kConvStride,
  kConvDilation,
  kConvPad,
  kConvBiasStride,
  kConvLo,
  kConvHi,
  // Split-K's pass (kernel.h): 0 the partial tiles, 1 their sum and the epilogue; set by
  // record_kernel. The last word (128 bytes in all, Vulkan's guaranteed push-constant size).
  kConvSplitPass,
  kConvPushWords,
};

// The checks plan_conv2d makes of the sizes, strides and addressable ranges of `problem`.
Status check_conv2d(const Conv2dProblem& problem);

// The dispatch for `problem`; `tiling` forces one of the library's tilings (kernel.h: the
// GEMM-shaped, pointwise or stem lists). Unsupported (naming the limit) when strides, dilations
// or padding exceed 16 bits, an addressed element exceeds 32 bits, the grid exceeds the
// device's group counts, or a forced pointwise or stem tiling's kernel does not compute the
// problem.
Result<KernelDispatch> plan_conv2d(const Conv2dProblem& problem, const DeviceTraits& device,
                                   std::optional<Tiling> tiling = std::nullopt);

}  // namespace univk::kernels
