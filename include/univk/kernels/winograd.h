// Winograd convolution F(m x m, 3x3), m = 2 or 4, for 3x3 convolutions of stride 1
// (kernels::Conv2dProblem without dilation or groups): the output in tiles of m x m, each
// computed from an (m+2)^2 input patch with (m+2)^2 multiplies per input and output channel pair
// where the direct form does 9 m^2 (F(2x2): 16 against 36; F(4x4): 36 against 144; Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks", 2015):
//   V[xi][t][c] = (B^T d_{t,c} B)[xi]      input transform (kWinogradInputF32)
//   M[xi]       = V[xi] @ U[xi]^T          (m+2)^2 GEMMs of tiles x C by C x OC (plan_gemm, batched)
//   out         = act(A^T M_{t,k} A + bias + residual)   output transform (kWinogradOutputF32)
// with U[xi][k][c] = (G g_{k,c} G^T)[xi], the weight transformed once on the host
// (winograd_weights) when the backend loads the model. xi = (m+2) * row + column of the
// transformed tile; t = (n * tiles_h + ty) * tiles_w + tx.
//
// Bindings of both transform kernels follow kernel.h's interface (input/A, weight/B, bias,
// output, residual, scratch; push words 0..4 the operand offsets): the input transform reads
// binding 0 (the convolution's input) and writes binding 3 (V); the output transform reads
// binding 0 (M), the bias (2) and the residual (4) and writes binding 3 (the output). Neither
// uses the weight or scratch binding.
//
// Numerics: fp32 throughout. F(2x2)'s coefficients are 0, +-1 and +-1/2; F(4x4)'s reach 8 (A)
// and 5 (B) and G has sixths, so its error is larger: 5.1e-6 of the largest output on a
// 64-channel convolution against 9.5e-7 for F(2x2) (tests/kernels/winograd_test.cc; ResNet18
// and ResNet50 at 64x64 stay within 1e-4 of PyTorch with either). With Precision::kFp16 the GEMM rounds V
// and U to fp16 as any GEMM does.
//
// Pure data; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/gemm.h"

namespace univk::kernels {

// The transformed tile's elements (xi) for output tiles of `tile` x `tile`.
constexpr int64_t winograd_points(int64_t tile) { return (tile + 2) * (tile + 2); }

// Whether F(m x m, 3x3) computes `problem`: a 3x3 kernel, stride 1, dilation 1, one group.
bool winograd_computes(const Conv2dProblem& problem);

// The output tile (2 or 4) the backends lower `problem` to Winograd with on `device`, or
// nullopt for the implicit GEMM. DeviceTraits::winograd decides: kOff never; kF2 and kF4 that
// tile wherever Winograd computes the problem; kAuto, on CPU implementations for at least 8
// input and output channels, 2x2 tiles where they are 16 or more (the tile floor measured in
// docs/PERFORMANCE.md, "Winograd on lavapipe"), under Precision::kFp16 4x4 tiles first where
// those are 16 or more; on GPUs 2x2 tiles for at least 512 input and output channels and 1024 to
// 3136 output positions (ResNet's last stage at batch 32, measured on an H100), else the
// implicit GEMM. Every operand of the
// three steps must fit one binding (DeviceTraits::max_binding_bytes) and 32-bit element indices.
std::optional<int64_t> winograd_tile(const Conv2dProblem& problem, const DeviceTraits& device);

struct WinogradPlan {
  int64_t tile = 2;                             // output tiles of tile x tile (2 or 4)
  int64_t points = 16;                          // winograd_points(tile): the GEMM's batch
  int64_t tiles_h = 0, tiles_w = 0, tiles = 0;  // output tiles per image row, column, in all
  KernelDispatch input_transform;               // binding 0: input, 3: V
  GemmProblem gemm_problem;                     // over V (binding 0), U (1), writing M (3); offsets 0
  KernelDispatch gemm;                          // plan_gemm(gemm_problem, device)
  KernelDispatch output_transform;              // binding 0: M, 2: bias, 3: output, 4: residual
  // Elements of V (points x tiles x C), M (points x tiles x OC) and U (points x OC x C), each
  // packed row-major in that order of dims, starting at element 0 of its binding.
  uint64_t v_elements = 0, m_elements = 0, u_elements = 0;
};

// The three dispatches of `problem` with output tiles of `tile` x `tile` (its offsets apply to the
// input transform's input and the output transform's bias, output and residual).
// InvalidArgument unless winograd_computes and `tile` is 2 or 4; Unsupported when an operand
// exceeds 32-bit indices or the grid the device's group counts.
Result<WinogradPlan> plan_winograd(const Conv2dProblem& problem, const DeviceTraits& device, int64_t tile);

// U (points x OC x C floats: the GEMM's B with K contiguous) for output tiles of `tile` from the
// convolution's weight: `weight` holds it at problem.weight_offset through problem.weight's
// strides. InvalidArgument unless winograd_computes and `tile` is 2 or 4, or when `weight` is
// too short for the strides.
Result<std::vector<float>> winograd_weights(const Conv2dProblem& problem, std::span<const float> weight, int64_t tile);

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
// (kernels::Activation, output transform), 2 flags (output transform: 1 bias, 2 residual), 3 the
// output tile (2 or 4).
inline constexpr uint32_t kWgActivationConstant = 1, kWgFlagsConstant = 2, kWgTileConstant = 3;

}  // namespace univk::kernels
