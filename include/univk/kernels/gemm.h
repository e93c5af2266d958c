// Planner of the batched strided GEMM kernels (gemm_f32.comp and its variants, and for few rows
// on CPU implementations gemm_skinny_f32.comp):
//   out[b] = act(alpha * (A[b] @ B[b]) + beta * bias[b] + residual[b])
// Pure data; thread-safe.
#pragma once

#include <optional>

#include "univk/base/status.h"
#include "univk/kernels/kernel.h"

namespace univk::kernels {

// A matrix operand: element (b, r, c) is at offset + b*batch + r*row + c*col (elements).
// Stride 0 broadcasts.
struct MatrixOperand {
  uint64_t offset = 0;
  int64_t batch = 0, row = 0, col = 1;
};

struct GemmProblem {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  MatrixOperand a, b, bias, out;
  uint64_t residual_offset = 0;  // the residual uses out's strides
  float alpha = 1.0f, beta = 1.0f;
  Epilogue epilogue;
  // Split-K ranges (kernel.h): 0 lets the planner choose; else forced (for tests and
  // benchmarks), then reduced to the K slices there are and the device's group count.
  uint32_t split_k = 0;
};

// Push-constant words of gemm_f32.comp, after the five binding offsets.
enum GemmPush : uint32_t {
  kGemmM = 5,
  kGemmN,
  kGemmK,
  kGemmAStrides,
  kGemmBStrides = kGemmAStrides + 3,
  kGemmBiasStrides = kGemmBStrides + 3,
  kGemmOutStrides = kGemmBiasStrides + 3,
  kGemmAlpha = kGemmOutStrides + 3,
  kGemmBeta,
  kGemmLo,
  kGemmHi,
  kGemmSplitPass,  // split-K's pass (kernel.h), set by record_kernel; the last word
  kGemmPushWords,
};

// The dispatch for `problem`; `tiling` forces one of the library's GEMM-shaped tilings (kernel.h)
// or of skinny_tilings(). Unsupported (naming the limit) when a dim or an addressed element
// exceeds 32 bits, the grid exceeds the device's group counts, or a forced skinny tiling's
// kernel does not compute the problem.
Result<KernelDispatch> plan_gemm(const GemmProblem& problem, const DeviceTraits& device,
                                 std::optional<Tiling> tiling = std::nullopt);

}  // namespace univk::kernels
