// Tiling choice, limit checks, load-width tests and push-constant packing shared by the
// planners (gemm.cc, conv2d.cc, depthwise.cc and the int8 ones). Internal to univk_kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <array>
#include <vector>

#include "univk/base/status.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/gemm.h"

namespace univk::kernels::detail {

// The tiling for an M x N x K problem repeated `batch` times (workgroup z), or the forced one
// after checking it is one of gemm_tilings() and fits the device.
// `max_invocations` caps the staged tilings a kernel considers (measured per kernel); the
// small-grid rule and the 16-subgroup cooperative-matrix tilings, measured on their own
// problems, pass it (tiling.cc).
// `vector_loads_along_k(bk)`: whether, with slices of bk, both operands load as 16-byte vectors
// along K (A walks K, B does not walk N, kFlagVecA and kFlagVecB); where they do, CPU
// implementations take a direct vectorised tiling by the cost model in tiling.cc and GPUs a
// vectorised one for small grids. Empty: they do not.
Result<Tiling> choose_tiling(int64_t m, int64_t n, int64_t k, int64_t batch, const DeviceTraits& device,
                             std::optional<Tiling> forced, uint32_t max_invocations = UINT32_MAX,
                             const std::function<bool(uint32_t bk)>& vector_loads_along_k = {});

// Split-K (kernel.h): the number of K ranges for an M x N x K problem repeated `z` times with
// `tiling`, or `forced` (when not 0) reduced to the K slices there are and the device's group
// count; then to the ranges that are not empty with split_chunk's range size.
uint32_t choose_splits(const Tiling& tiling, int64_t m, int64_t n, int64_t k, int64_t z, const DeviceTraits& device,
                       uint32_t forced);
// K elements per range: ceil(K / splits) rounded up to bk (gemm_tile.glsl's split_chunk).
int64_t split_chunk(int64_t k, uint32_t splits, uint32_t bk);

// The (x, y) workgroup counts covering an M x N output with `tiling`'s tiles. Row tiles past the
// device's y limit fold into x (gemm_tile.glsl's locate_tile: x then covers several rows of
// column tiles, and the workgroups past the last tile end at once); Unsupported, naming
// `kernel`, when x exceeds its limit too.
Result<std::array<uint32_t, 2>> tile_grid(const Tiling& tiling, int64_t m, int64_t n, const DeviceTraits& device,
                                          const std::string& kernel);

// Fills the dispatch fields every GEMM-shaped kernel shares: tiling, kernel variant,
// specialization constants 0..9, the grid ((n, m) tiles, z * splits), split-K's splits and
// scratch (with `forced_splits` as choose_splits's `forced`), and the vector accesses of
// kFlagVecA/B (kept only for a vectorised tiling); unsupported when the grid exceeds the
// device.
Status fill_gemm_shape(KernelDispatch& dispatch, const Tiling& tiling, int64_t m, int64_t n, int64_t k, int64_t z,
                       const Epilogue& epilogue, uint32_t flags, uint32_t forced_splits, const DeviceTraits& device);

// Unsupported unless 0 <= value <= max, naming `what`.
Status check_range(int64_t value, int64_t max, const std::string& what);
// The product of `factors` (each in [0, 2^32)), Unsupported naming `what` when it exceeds
// `max`; never overflows.
Result<int64_t> checked_product(std::initializer_list<int64_t> factors, int64_t max, const std::string& what);
// Unsupported unless the last element an operand addresses (offset + sum of (extent-1)*stride)
// is below 2^32, naming `what`.
Status check_addressable(uint64_t offset, std::initializer_list<std::pair<int64_t, int64_t>> extent_strides,
                         const std::string& what);

// The checks every convolution planner makes, errors starting with `what`: sizes positive and
// below 2^32, channels divisible by the groups, strides and dilations in [1, 0xffff], input and
// output addressable through their strides and offsets.
Status check_conv_geometry(const ConvGeometry& g, uint64_t input_offset, uint64_t output_offset,
                           const std::string& what);

inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// The shared memory gemm_tile.glsl (or the pointwise kernel) declares for `tiling`.
uint64_t tiling_shared_bytes(const Tiling& tiling);

// The pointwise kernel's staged weight chunk holds at most this many floats (16 KiB: Vulkan's
// guaranteed shared memory).
inline constexpr uint32_t kPointwiseStagedFloats = 4096;

// Whether plan_conv2d takes the pointwise kernel for `problem` on `device` (the rule in
// conv2d_pointwise.cc), and its dispatch with `tiling` (one of pointwise_tilings());
// Unsupported when the problem is not one the kernel computes.
std::optional<Tiling> pointwise_choice(const Conv2dProblem& problem, const DeviceTraits& device);
Result<KernelDispatch> plan_conv2d_pointwise(const Conv2dProblem& problem, const Tiling& tiling,
                                             const DeviceTraits& device);

// Likewise for the stem kernel (the rule in conv2d_stem.cc; `tiling` one of stem_tilings()).
std::optional<Tiling> stem_choice(const Conv2dProblem& problem, const DeviceTraits& device);
Result<KernelDispatch> plan_conv2d_stem(const Conv2dProblem& problem, const Tiling& tiling, const DeviceTraits& device);

// Whether plan_gemm takes the skinny kernel for `problem` on `device` (the rule in
// gemm_skinny.cc), and its dispatch fields with `tiling` (one of skinny_tilings()): kernel,
// tiling, grid, specialization and vector accesses; Unsupported when the kernel does not
// compute the problem.
std::optional<Tiling> skinny_choice(const GemmProblem& problem, const DeviceTraits& device);
Status fill_gemm_skinny(KernelDispatch& dispatch, const GemmProblem& problem, const Tiling& tiling,
                        const DeviceTraits& device);

// FLAGS bit of conv_store_f32.glsl, the direct fp32 kernels' epilogue: 16-byte output stores.
inline constexpr uint32_t kDirectConvFlagVecOut = 128;

// The output side of the direct fp32 convolution kernels (pointwise and stem): the push words
// (kernels::Conv2dPush: binding offsets, `p`'s geometry with the implicit GEMM's K `k` and
// `icg` input channels, bias stride, clamp bounds), used bindings, output binding, flops, and
// the vector access of kDirectConvFlagVecOut where 4 contiguous channels store as one 16-byte
// value. Returns the FLAGS bits it sets (kFlagBias, kFlagResidual, kDirectConvFlagVecOut) for
// the caller's specialization.
uint32_t fill_direct_conv_output(KernelDispatch& dispatch, const Conv2dProblem& p, int64_t k, int64_t icg);

// Push words 0..4: the element offsets of the operand bindings (kernel.h's interface), in
// binding order: A/input, B/weight, bias, output, residual.
inline void set_binding_offsets(std::vector<uint32_t>& push, const std::array<uint64_t, 5>& offsets) {
  for (size_t i = 0; i < offsets.size(); ++i) push[i] = static_cast<uint32_t>(offsets[i]);
}

// Push words at..at+7: the (n, c, h, w) element strides of the input, then of the output.
inline void set_activation_strides(std::vector<uint32_t>& push, size_t at, const ActivationStrides& input,
                                   const ActivationStrides& output) {
  for (const ActivationStrides* s : {&input, &output}) {
    push[at++] = u32(s->n);
    push[at++] = u32(s->c);
    push[at++] = u32(s->h);
    push[at++] = u32(s->w);
  }
}

// A (y, x) pair of 16-bit values in one push word, y in the low half (the shaders unpack it).
inline uint32_t pack_yx(int64_t y, int64_t x) { return u32(y | (x << 16)); }

// Push words kConvM..kConvPad (conv2d.h's Conv2dPush), which the fp32 and int8 convolution
// kernels share: the implicit GEMM's M, OCg, K and ICg, the sizes, strides and window of `p`.
inline void set_conv_geometry(std::vector<uint32_t>& push, const Conv2dProblem& p, int64_t m, int64_t ocg, int64_t k,
                              int64_t icg) {
  push[kConvM] = u32(m);
  push[kConvOCg] = u32(ocg);
  push[kConvK] = u32(k);
  push[kConvICg] = u32(icg);
  push[kConvOH] = u32(p.out_h);
  push[kConvOW] = u32(p.out_w);
  push[kConvIH] = u32(p.in_h);
  push[kConvIW] = u32(p.in_w);
  set_activation_strides(push, kConvInStrides, p.input, p.output);
  push[kConvWeightStrides] = u32(p.weight.oc);
  push[kConvWeightStrides + 1] = u32(p.weight.ic);
  push[kConvWeightStrides + 2] = u32(p.weight.tap);
  push[kConvKW] = u32(p.kernel_w);
  push[kConvStride] = pack_yx(p.stride_h, p.stride_w);
  push[kConvDilation] = pack_yx(p.dilation_h, p.dilation_w);
  push[kConvPad] = pack_yx(p.pad_top, p.pad_left);
}

// FLAGS bits of gemm_tile.glsl.
inline constexpr uint32_t kFlagBias = 1, kFlagResidual = 2, kFlagAKFast = 4, kFlagBNFast = 8, kFlagF16Operands = 32,
                          kFlagVecA = 64, kFlagVecB = 128, kFlagLean = 256, kFlagVecOut = 512;

// Whether load flags (kFlag* of gemm_tile.glsl) read both operands as 16-byte vectors along K:
// A walks K, B does not walk N, kFlagVecA and kFlagVecB (choose_tiling's vector_loads_along_k).
constexpr bool loads_vectors_along_k(uint32_t flags) {
  constexpr uint32_t kAlongK = kFlagAKFast | kFlagVecA | kFlagVecB;
  return (flags & (kAlongK | kFlagBNFast)) == kAlongK;
}

// Whether every value is a multiple of 4 (vector access: offsets, strides, walked extents).
inline bool aligned4(std::initializer_list<int64_t> values) {
  for (int64_t v : values) {
    if (v % 4 != 0) return false;
  }
  return true;
}

// Whether the int8 kernels may read `p`'s input as 32-bit words of 4 channels (kI8FlagWordsIn):
// channels contiguous, and the offset and every walked stride a multiple of 4.
inline bool int8_input_words(const Conv2dProblem& p) {
  const int64_t in_batch = p.batch == 1 ? 0 : p.input.n;
  return p.input.c == 1 && aligned4({int64_t(p.input_offset), in_batch, p.input.h, p.input.w});
}

// The value `dispatch` gives specialization constant `id`; 0 when it gives none.
inline uint32_t specialization_value(const KernelDispatch& dispatch, uint32_t id) {
  for (auto [constant, value] : dispatch.specialization) {
    if (constant == id) return value;
  }
  return 0;
}

}  // namespace univk::kernels::detail
