// Planner of the transposed 2-d convolution kernel (conv_transpose2d_f32.comp):
//   out = act(conv_transpose2d(in, weight) + bias)
// for any element strides of input and output (NCHW, NHWC), weight layout (PyTorch's
// [C, OC/groups, KH, KW], TOSA's [OC, KH, KW, C]), stride, dilation, groups and signed padding
// (TOSA's positive out_pad is a negative padding here). One invocation per output element.
// Pure data; thread-safe.
#pragma once

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/kernel.h"

namespace univk::kernels {

// Element strides of the weight by input channel, output channel within its group and tap
// (ky * KW + kx).
struct ConvTransposeWeightStrides {
  int64_t ic = 0, oc = 0, tap = 0;
  // PyTorch's [C, OC/groups, KH, KW] and TOSA's [OC, KH, KW, C] (groups 1), packed.
  static ConvTransposeWeightStrides iohw(int64_t oc_per_group, int64_t kh, int64_t kw);
  static ConvTransposeWeightStrides ohwi(int64_t in_channels, int64_t kh, int64_t kw);
};

// Padding: output row oy reads input row iy through tap ky where oy + pad_top = iy * stride + ky *
// dilation (PyTorch's padding; minus TOSA's out_pad_top, so it may be negative), likewise along x.
struct ConvTranspose2dProblem : ConvGeometry {
  ConvTransposeWeightStrides weight;
  uint64_t input_offset = 0, weight_offset = 0, bias_offset = 0, output_offset = 0;
  bool bias_broadcast = false;  // one bias value for every output channel
  Epilogue epilogue;            // bias and activation; no residual
};

// Push-constant words of conv_transpose2d_f32.comp, after the five binding offsets.
enum ConvTransposePush : uint32_t {
  kCtTotal = 5,  // invocations (output elements)
  kCtOC,
  kCtOH,
  kCtOW,
  kCtIH,
  kCtIW,
  kCtICG,
  kCtOCG,
  kCtInStrides,
  kCtOutStrides = kCtInStrides + 4,
  kCtWeightStrides = kCtOutStrides + 4,  // ic, oc, tap
  kCtKH = kCtWeightStrides + 3,
  kCtKW,
  kCtStride,    // y | x << 16
  kCtDilation,  // y | x << 16
  kCtPadY,      // int32
  kCtPadX,      // int32
  kCtLo,
  kCtHi,
  kCtPushWords,
};

// Specialization constants of conv_transpose2d_f32.comp (constant 0 is the workgroup size).
enum ConvTransposeConstant : uint32_t {
  kCtActivationConstant = 1,  // kernels::Activation
  kCtFlagsConstant,           // kCtFlag*
};
inline constexpr uint32_t kCtFlagBias = 1, kCtFlagBiasBroadcast = 2;

// The dispatch for `problem`: InvalidArgument for non-positive sizes, channel counts the groups
// do not divide or a residual epilogue; Unsupported (naming the limit) when strides or
// dilations exceed 16 bits, positions exceed the shader's int32 arithmetic, an addressed
// element or the invocation count exceeds 32 bits or the grid exceeds the device's group counts.
Result<KernelDispatch> plan_conv_transpose2d(const ConvTranspose2dProblem& problem, const DeviceTraits& device);

}  // namespace univk::kernels
