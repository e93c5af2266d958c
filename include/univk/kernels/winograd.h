// Winograd convolution F(2x2, 3x3) for 3x3 convolutions of stride 1 (kernels::Conv2dProblem
// without dilation or groups): the output in tiles of 2x2, each computed from a 4x4 input patch
// with 16 multiplies per input and output channel pair instead of 36 (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2015):
//   V[xi][t][c] = (B^T d_{t,c} B)[xi]      input transform (kWinogradInputF32)
//   M[xi]       = V[xi] @ U[xi]^T          16 GEMMs of tiles x C by C x OC (plan_gemm, batch 16)
//   out         = act(A^T M_{t,k} A + bias + residual)   output transform (kWinogradOutputF32)
// with U[xi][k][c] = (G g_{k,c} G^T)[xi], the weight transformed once on the host
// (winograd_weights) when the backend loads the model. xi = 4 * row + column of the 4x4
// transformed tile; t = (n * tiles_h + ty) * tiles_w + tx.
//
// Bindings of both transform kernels follow kernel.h's interface (input/A, weight/B, bias,
// output, residual, scratch; push words 0..4 the operand offsets): the input transform reads
// binding 0 (the convolution's input) and writes binding 3 (V); the output transform reads
// binding 0 (M), the bias (2) and the residual (4) and writes binding 3 (the output). Neither
// uses the weight or scratch binding.
//
// Numerics: fp32 throughout (the transforms' coefficients are 0, +-1 and +-1/2, exact in binary);
// the sums run in another order than the implicit GEMM's, within the default 1e-4 tolerances
// against PyTorch. With Precision::kFp16 the GEMM rounds V and U to fp16 as any GEMM does.
//
// Pure data; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/gemm.h"

namespace univk::kernels {

// The 4x4 transformed tile's elements (xi).
inline constexpr int64_t kWinogradPoints = 16;

// Whether F(2x2, 3x3) computes `problem`: a 3x3 kernel, stride 1, dilation 1, one group.
bool winograd_computes(const Conv2dProblem& problem);

// Whether the backends lower `problem` to Winograd on `device`: it computes it, every operand of
// the three steps fits one binding (DeviceTraits::max_binding_bytes) and 32-bit element
// indices, and DeviceTraits::winograd allows it: kOn always, kOff never, kAuto on CPU
// implementations for at least 8 input and output channels and 16 tiles (measured in
// docs/PERFORMANCE.md, "Winograd on lavapipe"; GPUs keep the implicit GEMM until measured there).
bool winograd_chosen(const Conv2dProblem& problem, const DeviceTraits& device);

struct WinogradPlan {
  int64_t tiles_h = 0, tiles_w = 0, tiles = 0;  // 2x2 output tiles per image row, column, in all
  KernelDispatch input_transform;               // binding 0: input, 3: V
  GemmProblem gemm_problem;                     // over V (binding 0), U (1), writing M (3); offsets 0
  KernelDispatch gemm;                          // plan_gemm(gemm_problem, device)
  KernelDispatch output_transform;              // binding 0: M, 2: bias, 3: output, 4: residual
  // Elements of V (16 x tiles x C), M (16 x tiles x OC) and U (16 x OC x C), each packed
  // row-major in that order of dims, starting at element 0 of its binding.
  uint64_t v_elements = 0, m_elements = 0, u_elements = 0;
};

// The three dispatches of `problem` (its offsets apply to the input transform's input and the
// output transform's bias, output and residual). InvalidArgument unless winograd_computes;
// Unsupported when an operand exceeds 32-bit indices or the grid the device's group counts.
Result<WinogradPlan> plan_winograd(const Conv2dProblem& problem, const DeviceTraits& device);

// U (u_elements floats, [16][OC][C]: the GEMM's B with K contiguous) from the convolution's weight: `weight` holds it
// at problem.weight_offset through problem.weight's strides. InvalidArgument unless winograd_computes or when `weight`
// is too short for the strides.
Result<std::vector<float>> winograd_weights(const Conv2dProblem& problem, std::span<const float> weight);

// Push-constant words of the transform kernels, after the five binding offsets.
enum WinogradPush : uint32_t {
  kWgTotal = 5,  // invocations: tiles x channels (input: C, output: OC)
  kWgChannels,
  kWgTilesH,
  kWgTilesW,
  kWgTiles,
  kWgH,  // input transform: the input's height and width; output transform: the output's
  kWgW,
  kWgStrides,               // (n, c, h, w) element strides of the input or output
  kWgPad = kWgStrides + 4,  // input transform: top | left << 16
  kWgBiasStride = kWgPad,   // output transform: 0 for one bias value for every channel
  kWgLo,                    // output transform: clamp bounds
  kWgHi,
  kWgPushWords,
};

// Specialization constants of the transform kernels: 0 workgroup size, 1 activation
// (kernels::Activation, output transform), 2 flags (output transform: 1 bias, 2 residual).
inline constexpr uint32_t kWgActivationConstant = 1, kWgFlagsConstant = 2;

}  // namespace univk::kernels
