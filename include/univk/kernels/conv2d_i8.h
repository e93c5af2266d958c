// Planner of the int8 convolution kernel (conv2d_i8.glsl; TOSA 1.0 CONV2D and DEPTHWISE_CONV2D
// on int8 with int32 accumulation, a fully connected layer as a 1x1 CONV2D):
//   acc = clamp(sum (in - input_zp) * (weight - weight_zp) + bias, acc_lo, acc_hi)
//   out = requantize ? clamp(apply_scale(acc, multiplier[c], shift[c]) + output_zp, lo, hi) (int8)
//                    : acc (int32)
// i.e. a CONV2D, the CLAMP of its accumulator, the RESCALE to int8 and the CLAMP of the int8
// result (an int8 TABLE of that, and a residual add of another int8 tensor: Residual) in one
// dispatch. Any element strides, weight strides and groups (a depthwise convolution is groups =
// channels, one input channel per group). The multiply is an integer dot product of 4 packed
// int8 values (Kernel::kConv2dI8Dot, on devices with shaderIntegerDotProduct:
// DeviceTraits::integer_dot_product) or four multiplies (Kernel::kConv2dI8), or, for large
// enough problems on devices listing int8 cooperative matrices, a cooperative-matrix multiply
// (Kernel::kConv2dI8Coopmat, below). Pure data;
// thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/kernel.h"

namespace univk::kernels {

// One per-tensor TOSA RESCALE's scaling: apply_scale(v, multiplier, shift), DOUBLE_ROUND or not
// (scale16 is the same with a multiplier below 2^15).
struct RescaleScale {
  int32_t multiplier = 1 << 30;  // >= 0
  int32_t shift = 30;            // 2..62
  bool double_round = false;
};

// A residual add after the requantization (and table): with y the requantized int8 result and
// skip an int8 tensor of the output's shape (binding 5),
//   sum = clamp(apply_scale(y - y_zp, y_scale) + apply_scale(skip - skip_zp, skip_scale), sum_lo, sum_hi)
//   out = clamp(apply_scale(sum, sum_scale) + output_zp, lo, hi)
// i.e. TOSA's RESCALE of each operand to int32, their int32 ADD (wrapping), a CLAMP of the sum
// (a ReLU), the RESCALE of the sum to int8 and a CLAMP of that, each as the reference computes
// it. `skip` and `skip_offset` are the skip tensor's element strides (by output dim) and first
// element. Its 15 int32 words follow the requantization's multipliers, shifts and table in
// binding 4: y, skip and sum multiplier and shift (6 words), zero points and rounding (y_zp |
// skip_zp << 8 | output_zp << 16, int8 each, and bit 24 + i: DOUBLE_ROUND of scale i), lo |
// hi << 8 (int8 each), sum_lo, sum_hi, skip_offset, the skip strides n, c, h, w.
struct Residual {
  RescaleScale y_scale, skip_scale, sum_scale;
  int32_t y_zp = 0, skip_zp = 0, output_zp = 0;  // int8 range
  int32_t lo = -128, hi = 127;
  int32_t sum_lo = INT32_MIN, sum_hi = INT32_MAX;
  ActivationStrides skip;
  uint64_t skip_offset = 0;
};
inline constexpr int64_t kResidualWords = 15;
// The binding-4 words of `residual`, in the order above.
std::array<int32_t, kResidualWords> residual_words(const Residual& residual);

// TOSA RESCALE of the int32 accumulator to int8 (input_zp 0, scale32 or scale16, SINGLE_ROUND
// or DOUBLE_ROUND), then a CLAMP of the int8 result to [lo, hi]. Multipliers (>= 0) and shifts
// (2..62) are int32 values in binding 4: `channels` multipliers from element `offset`, then
// `channels` shifts, where channels is 1, or the output channel count when per_channel. With
// `table`, a TABLE (int8, out = table[v + 128]) of the clamped result follows, its 256 int8
// values packed little-endian into the 64 int32 elements after the shifts. With `residual`, the
// residual add (Residual) takes the result; its words follow.
struct Requantize {
  bool per_channel = false;
  bool double_round = false;
  bool table = false;
  int32_t output_zp = 0;
  int32_t lo = -128, hi = 127;
  uint64_t offset = 0;
  std::optional<Residual> residual;
};

struct Conv2dI8Problem {
  // Shapes, strides, groups, operand offsets and bias_broadcast; elements are int8 (input,
  // weight, an int8 output), int32 (bias, an int32 output). conv.epilogue.bias says whether
  // there is a bias; residual, activation and split_k must stay unset.
  Conv2dProblem conv;
  int32_t input_zp = 0, weight_zp = 0;  // int8 range
  int32_t acc_lo = INT32_MIN, acc_hi = INT32_MAX;
  std::optional<Requantize> requantize;  // none: the int32 accumulator is the output
};

// Push-constant words of conv2d_i8_io.glsl: the five binding offsets (the fifth is the
// requantization binding's), the convolution's geometry as conv2d.h's Conv2dPush (kConvM to
// kConvPad), then these.
enum Conv2dI8Push : uint32_t {
  kI8ZeroPoints = kConvPad + 1,  // input_zp | weight_zp << 16
  kI8AccLo,
  kI8AccHi,
  kI8OutQuant,  // output_zp | lo << 8 | hi << 16 (int8 each) | skip base << kI8SkipBaseShift
  kI8PushWords,
};

// Specialization constants of conv2d_i8.glsl: FLAGS (kI8Flag*), output positions (TM) and
// output channels (TN) per invocation.
enum Conv2dI8Constant : uint32_t { kI8FlagsConstant = 0, kI8TmConstant, kI8TnConstant };
inline constexpr uint32_t kI8FlagBias = 1, kI8FlagBiasBroadcast = 2, kI8FlagRequant = 4, kI8FlagPerChannel = 8,
                          kI8FlagDoubleRound = 16, kI8FlagAlignedK = 32,
                          kI8FlagWordsIn = 64,  // input chunks as 32-bit loads
    kI8FlagWordsWeight = 128,                   // weight chunks as 32-bit loads
    kI8FlagTable = 256, kI8FlagResidual = 512;
// Bits 24..31 of the kI8OutQuant word: the skip binding's (5) element offset that the backend
// adds when its descriptor starts below the skip's first element (KernelDispatch::
// last_binding_offset; the rest of the offset is Residual::skip_offset).
inline constexpr uint32_t kI8SkipBaseShift = 24;

// The dispatch for `problem`: the cooperative-matrix kernel where prefers_conv2d_i8_coopmat
// says so, the depthwise kernel where takes_depthwise_i8 does, else the device's variant
// (DeviceTraits::integer_dot_product). `dot_product` forces the variant (never the
// cooperative-matrix or depthwise one). InvalidArgument for a bad problem (as
// plan_conv2d, and zero points, clamp bounds, a residual's scales or its skip tensor's range out
// of range); Unsupported (naming the limit) as plan_conv2d.
Result<KernelDispatch> plan_conv2d_i8(const Conv2dI8Problem& problem, const DeviceTraits& device,
                                      std::optional<bool> dot_product = std::nullopt);

// Kernel::kConv2dI8Coopmat (conv2d_i8_coopmat.comp): the same convolution and epilogue as an
// implicit GEMM on NV int8 cooperative matrices, tiles of 128 output positions x 64 or 128
// output channels of one group per workgroup of 8 subgroups. Same push constants and FLAGS as
// conv2d_i8.glsl; its own specialization constants below.
enum Conv2dI8CoopmatConstant : uint32_t {
  kI8CoopmatFragMConstant = kI8TnConstant + 1,  // fragment rows (I8Fragment::m)
  kI8CoopmatFragNConstant,                      // fragment columns (I8Fragment::n)
  kI8CoopmatBnConstant,                         // tile columns: 64 or 128
};
inline constexpr uint32_t kI8CoopmatInvocations = 256, kI8CoopmatSharedBytes = (128 + 128) * 80 + 2 * 128 * 4;

// Whether plan_conv2d_i8 takes the cooperative-matrix kernel: the device lists an int8 fragment
// (DeviceTraits::cooperative_matrix_i8), is no CPU, fits the workgroup (invocations, shared
// memory), and the problem is large enough to fill tiles: M >= 256 output positions, >= 16
// output channels per group and K >= 64 (depthwise convolutions are not).
bool prefers_conv2d_i8_coopmat(const Conv2dI8Problem& problem, const DeviceTraits& device);

// The kConv2dI8Coopmat dispatch for `problem` with `fragment` (default: the first of
// kI8Fragments the device lists). Errors as plan_conv2d_i8, and Unsupported when the device
// lacks the fragment (or every one), the workgroup's invocations or shared memory.
Result<KernelDispatch> plan_conv2d_i8_coopmat(const Conv2dI8Problem& problem, const DeviceTraits& device,
                                              std::optional<I8Fragment> fragment = std::nullopt);

// Kernel::kDepthwiseI8 (depthwise_i8.comp): a depthwise convolution with multiplier 1 (groups =
// input channels = output channels, a multiple of 4) and the same epilogue, 4 channels of 4
// output positions per invocation, with 32-bit loads of 4 channels where they are contiguous and
// word-aligned (the input's c stride and the weight's oc stride 1; FLAGS kI8FlagWordsIn and
// kI8FlagWordsWeight). Same push constants as conv2d_i8.glsl; specialization constants FLAGS,
// kI8TmConstant and this one:
inline constexpr uint32_t kDwI8QuadsConstant = 3;  // channels / 4

// Whether `problem` is a depthwise convolution kDepthwiseI8 takes (plan_conv2d_i8 then does).
bool takes_depthwise_i8(const Conv2dI8Problem& problem);

// The kDepthwiseI8 dispatch for `problem`. Errors as plan_conv2d_i8; Unsupported when the
// problem is no such depthwise convolution or its grid exceeds the device's.
Result<KernelDispatch> plan_depthwise_i8(const Conv2dI8Problem& problem, const DeviceTraits& device);

}  // namespace univk::kernels
