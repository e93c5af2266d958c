// The kernel library (src/kernels): tensor kernels that both backends lower to, compiled to
// SPIR-V at build time, with pure-data planners that pick a kernel's tiling and fill its
// push constants for one problem (gemm.h, conv2d.h, depthwise.h, conv_transpose2d.h). A backend turns a KernelDispatch
// into a vulkan::DispatchDesc and records it through the one DispatchRecorder.
//
// Interface of every library kernel: set 0 binds kernel_binding_count() storage buffers at
// bindings 0..n-1; the first n-1 push-constant words are the element offsets of the operand
// bindings (a backend whose descriptors start below an operand adds the difference, see
// add_binding_offsets); the kernel's own words follow. A binding the problem does not use
// (no bias, no residual) must still be bound to some buffer. The last binding is the kernel's
// scratch (KernelDispatch::scratch_bytes, device memory the backend provides from its arena,
// contents undefined between dispatches; bound to the output's range when zero: the shader
// writes the binding in its split-K path, so validation counts it as written). It has no offset
// word: its descriptor starts where the kernel's scratch starts.
//
// Pure data apart from pipeline_desc() and record_kernel(); thread-safe except record_kernel,
// which follows the recorder's rules.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "univk/base/status.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/device_requirements.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline.h"

namespace univk::kernels {

// The *CoopmatF16 variants are the same kernels with the multiply on NV cooperative matrices
// (operands rounded to fp16, fp32 accumulation; Precision below); the *VecF32 variants the same
// kernels on the vectorised FMA core (Tiling::vec).
enum class Kernel : uint8_t {
  kGemmF32,              // gemm.h
  kConv2dF32,            // conv2d.h
  kDepthwiseF32,         // depthwise.h
  kGemmCoopmatF16,       // gemm.h, Precision::kFp16 on a device with cooperative matrices
  kConv2dCoopmatF16,     // conv2d.h, likewise
  kConvTranspose2dF32,   // conv_transpose2d.h
  kGemmVecF32,           // gemm.h, a Tiling::vec tiling
  kConv2dVecF32,         // conv2d.h, likewise
  kGemmVec8F32,          // gemm.h, a Tiling::vec tiling with 8 x 8 accumulators (compiled in)
  kConv2dVec8F32,        // conv2d.h, likewise
  kGemmCoopmatVecF16,    // gemm.h, a coopmat_vec_tilings() tiling (cooperative matrices on vectorised loads)
  kConv2dCoopmatVecF16,  // conv2d.h, likewise
  kConv2dI8,             // conv2d_i8.h: int8 operands, int32 accumulation, fused requantization
  kConv2dI8Dot,          // conv2d_i8.h, likewise with integer dot products (shaderIntegerDotProduct)
  kConv2dI8Coopmat,      // conv2d_i8.h, likewise on NV int8 cooperative matrices (DeviceTraits::cooperative_matrix_i8)
  kDepthwiseI8,          // conv2d_i8.h, depthwise with multiplier 1, 4 channels per invocation
  kConv2dPointwiseF32,   // conv2d.h, a pointwise_tilings() tiling (1x1 convolutions with short K)
  kConv2dStemF32,        // conv2d.h, a stem_tilings() tiling (direct convolution of few input channels)
  kWinogradInputF32,     // winograd.h: F(m x m, 3x3)'s input transform
  kWinogradOutputF32,    // winograd.h: F(m x m, 3x3)'s output transform with the convolution's epilogue
  kGemmSkinnyF32,        // gemm.h, a skinny_tilings() tiling (few rows, invocations splitting K)
};
const char* kernel_name(Kernel kernel);
uint32_t kernel_binding_count(Kernel kernel);
uint32_t kernel_push_bytes(Kernel kernel);
std::span<const uint32_t> kernel_spirv(Kernel kernel);

// Activation applied by an epilogue (after bias and residual). Values are the shaders' codes
// (kernels/shaders/activation.glsl).
enum class Activation : uint32_t {
  kNone = 0,
  kRelu,
  kClamp,  // clamp(v, lo, hi); relu6 is clamp(0, 6)
  kHardswish,
  kHardsigmoid,
  kSigmoid,
  kSilu,
  kTanh,
  kGeluErf,
  kGeluTanh,
};

// What a GEMM-shaped kernel does to each accumulator before storing it:
// act(acc + bias + residual).
struct Epilogue {
  bool bias = false;
  bool residual = false;  // read from its own binding through the output's strides
  Activation activation = Activation::kNone;
  float lo = 0.0f, hi = 0.0f;  // kClamp's bounds
};

// The multiply's precision, the `precision` load option of both backends. Tensors stay fp32 in
// memory; kFp16 lets the large problems round operands to fp16 for NV cooperative matrices
// (DeviceTraits::cooperative_matrix_f16; fp32 accumulation), the rest run in fp32 there. Other
// devices round every operand on the FMA kernels (same numerics as the cooperative-matrix core,
// no speed-up: it lets them run and test the mode).
enum class Precision : uint8_t { kFp32, kFp16 };

// Whether the backends lower 3x3 stride-1 convolutions to Winograd F(m x m, 3x3) (winograd.h), the
// `winograd` load option: kAuto where measured to win (winograd_tile), kOff never, kF2 /
// kF4 wherever Winograd computes the problem, with 2x2 / 4x4 output tiles (winograd_tile).
enum class Winograd : uint8_t { kAuto, kOff, kF2, kF4 };

// An int8 x int8 -> int32 cooperative-matrix fragment, m x n x 32 (Kernel::kConv2dI8Coopmat).
struct I8Fragment {
  uint32_t m = 16, n = 16;
  friend bool operator==(const I8Fragment&, const I8Fragment&) = default;
};
// The fragments kConv2dI8Coopmat is built for, in the planner's order of preference.
inline constexpr std::array<I8Fragment, 3> kI8Fragments = {{{16, 16}, {16, 8}, {8, 8}}};

// What the planners need to know about the device, and the precision asked for.
struct DeviceTraits {
  uint32_t max_shared_bytes = 16384;         // maxComputeSharedMemorySize
  uint32_t max_workgroup_invocations = 128;  // maxComputeWorkGroupInvocations
  std::array<uint32_t, 3> max_group_count = {65535, 65535, 65535};
  bool cpu = false;  // a CPU implementation (lavapipe): fewer, larger workgroups win
  // A CPU implementation's worker threads, each running one workgroup at a time: as lavapipe
  // counts them, LP_NUM_THREADS where set, else the host's hardware threads, at most 32. 1 for
  // GPUs.
  uint32_t cpu_threads = 1;
  // VK_NV_cooperative_matrix, shaderFloat16 and vulkanMemoryModel (with device scope) enabled,
  // the 16x16x16 fp16 -> fp32 subgroup shape listed, subgroups of 32 (the *CoopmatF16 kernels'
  // requirements).
  bool cooperative_matrix_f16 = false;
  Precision precision = Precision::kFp32;
  Winograd winograd = Winograd::kAuto;
  // What one descriptor may cover (split.h): maxStorageBufferRange (or less, a backend's
  // `max_binding_bytes` option) and the offset alignment the backend binds with. The defaults
  // are the spec's minimum range and maximum minStorageBufferOffsetAlignment.
  uint64_t max_binding_bytes = uint64_t{1} << 27;
  uint64_t binding_alignment = 256;
  // shaderIntegerDotProduct enabled (Vulkan 1.3): the int8 kernels multiply with OpSDot.
  bool integer_dot_product = false;
  // Bit i: the device lists kI8Fragments[i] as a subgroup-scope int8 x int8 -> int32 shape under
  // VK_NV_cooperative_matrix, with its feature, shaderInt8, storageBuffer8BitAccess and
  // vulkanMemoryModel (with device scope) enabled and subgroups of 32 (kConv2dI8Coopmat's
  // requirements); 0: no int8 cooperative matrices.
  uint32_t cooperative_matrix_i8 = 0;
};
// The traits of a Vulkan device from its properties (no cooperative matrices).
DeviceTraits device_traits(const VkPhysicalDeviceProperties& properties);
// The traits of a created device, cooperative matrices and integer dot products included, with
// `precision`.
DeviceTraits device_traits(const vulkan::Device& device, Precision precision);
// "fp32" / "fp16" (the load option's values); InvalidArgument naming `value` otherwise.
Result<Precision> parse_precision(std::string_view value);
// "auto" / "off" / "f2" / "f4" (the load option's values); InvalidArgument naming `value`
// otherwise.
Result<Winograd> parse_winograd(std::string_view value);
// What the library's kernels can use when present: VK_NV_cooperative_matrix with its feature,
// shaderFloat16 and vulkanMemoryModel with device scope, shaderIntegerDotProduct, and the 8-bit
// storage and arithmetic of the int8 kernels (shaderInt8, storageBuffer8BitAccess). Both backends merge these into
// their payloads' requirements, all optional.
vulkan::DeviceRequirements optional_requirements();

// Output tile of a workgroup (bm x bn), K slice (bk), accumulators per invocation (tm x tn).
// Staged tilings go through shared memory; direct ones read the operands straight from the
// buffers (CPU implementations, where barriers cost more than the reuse saves).
struct Tiling {
  uint32_t bm = 64, bn = 64, bk = 16, tm = 4, tn = 4;
  bool direct = false;
  bool coopmat = false;  // the *CoopmatF16 kernels' core (gemm_tile.glsl)
  // The *VecF32 kernels' core (gemm_tile.glsl's UNIVK_VEC): vec4 shared-memory reads, double-
  // buffered shared tiles, and 16-byte global loads where the operands' alignment allows them
  // (KernelDispatch::vector_access).
  bool vec = false;
  // With vec: the lean loop (gemm_tile.glsl's kFlagLean): each slice straight from global to
  // shared memory (no registers staging the next one across the multiply) and the multiply in
  // 4x4 quarters, for 8x8 accumulators without spills.
  bool lean = false;
  // The pointwise kernel (Kernel::kConv2dPointwiseF32, 1x1 convolutions): bm output positions
  // by bn output channels, tm positions by tn = 4 channels per invocation; bk = 4, the input
  // channels each step reads. pointwise_tilings() lists them.
  bool pointwise = false;
  // The stem kernel (Kernel::kConv2dStemF32, few input channels): a block of bm / bk rows by
  // bk columns of output positions and bn output channels, tm consecutive positions by tn
  // channels (a multiple of 4) per invocation. stem_tilings() lists them.
  bool stem = false;
  // The skinny GEMM kernel (Kernel::kGemmSkinnyF32, few rows): at most bm rows by bn columns
  // per workgroup (tm = bm, tn = bn), its bk / 4 invocations splitting K in groups of 4 (bk:
  // the K one pass of the workgroup covers). skinny_tilings() lists them.
  bool skinny = false;
  constexpr uint32_t invocations() const { return skinny ? bk / 4 : (bm / tm) * (bn / tn); }
  friend bool operator==(const Tiling&, const Tiling&) = default;
};
// The tilings the GEMM-shaped planners choose from, largest first (tests run every one).
std::span<const Tiling> gemm_tilings();
// The cooperative-matrix tilings, chosen instead for Precision::kFp16 on devices with
// DeviceTraits::cooperative_matrix_f16.
std::span<const Tiling> coopmat_tilings();
// The vectorised-core tilings (Tiling::vec): staged ones, then direct ones (Tiling::direct: no
// shared memory, 4 k per load where both operands are contiguous along K). The planners take
// some of them (GPUs: large problems and batch-1 ones; CPU implementations: the direct ones by
// a cost model where both operands load along K, else 128x64x8/8x8v, 64x64x16/8x8v or
// 8x128x16/4x4dv; docs/ARCHITECTURE.md "Tilings"); the others run when forced (planners'
// `tiling` argument, univk-kernel-bench --tilings). Tests run every one.
std::span<const Tiling> vec_tilings();
// The cooperative-matrix core on the vectorised loads (Tiling::coopmat and Tiling::vec, the
// *CoopmatVecF16 kernels; devices with DeviceTraits::cooperative_matrix_f16): fp16 shared tiles
// filled from 16-byte loads, double-buffered, K slices of 16 or 32; each subgroup of 32 owns a
// (4*tm) x (8*tn) block of the tile, (tm/4) x (tn/2) fragments of 16x16; split in two on small
// grids (split-K below). The planners take them for fp16 problems with K of at least 256 and a
// grid of at least 32 tiles of 128x64: 128x128x16/8x8cv on grids of many 128x128 tiles, else
// the 128x128x32 and 128x64x32 tiles as 16 subgroups (128x128x32/8x4cv, 128x64x32/4x4cv) where
// the device allows 512 invocations per workgroup, else as 8 (128x128x32/8x8cv,
// 128x64x32/8x4cv), then 64x64x32/8x4cv (tiling.cc has the rules); the others run when forced.
std::span<const Tiling> coopmat_vec_tilings();
// The pointwise kernel's tilings (Tiling::pointwise), 256 invocations each: 2 to 32 groups of 4
// output channels, 4 or 8 positions per invocation. plan_conv2d takes one for a 1x1
// convolution without padding or groups whose channels are contiguous and whose K is short
// (conv2d.h); the others run when forced.
std::span<const Tiling> pointwise_tilings();
// The stem kernel's tilings (Tiling::stem), 128 to 512 invocations: blocks of 64 to 256 output
// positions by 32 or 64 channels. plan_conv2d takes the first or the second on GPUs for a
// convolution of at most 4 input channels without groups (conv2d.h); the others run when forced.
std::span<const Tiling> stem_tilings();
// The skinny GEMM kernel's tilings (Tiling::skinny): up to 4 rows by 8 to 32 columns, 32 to 128
// invocations. plan_gemm takes the first on CPU implementations for at most 4 rows whose A
// rows and B columns are contiguous along K, K a multiple of 4 and at least 1024 (gemm.h); the
// others run when forced.
std::span<const Tiling> skinny_tilings();
// "BMxBNxBK/TMxTN" and the variant letters: d(irect), c(ooperative matrix), v(ectorised),
// l(ean), p(ointwise), stem, skinny; e.g. "128x128x16/8x8cv" (univk-kernel-bench's tiling
// column).
std::string tiling_label(const Tiling& tiling);
// Whether `tiling` fits `device`: invocations and shared memory within its limits, cooperative
// matrices where the tiling needs them (the planners refuse a forced tiling that does not fit,
// Unsupported).
bool tiling_fits(const Tiling& tiling, const DeviceTraits& device);

// Split-K (GEMM-shaped kernels): when the output has too few tiles to fill a GPU and K is long,
// the planner cuts K into `splits` ranges (workgroup z = batch-or-group * splits + split), and
// record_kernel records the kernel twice over the same descriptor set
// (DispatchRecorder::dispatch_again), the two passes told apart by the kernel's last push word
// (kGemmSplitPass, kConvSplitPass): in the first each workgroup stores its range's partial tile
// to the scratch binding; in the second, after a barrier, the workgroups of split 0 sum their
// tile's partials in split order (deterministic) and run the epilogue (alpha, bias, residual,
// activation, strided store), the others end at once. No atomics, no zeroed counters: the
// scratch needs no initial contents. The planner chooses splits > 1 only on GPUs (not
// DeviceTraits::cpu) when the natural grid has fewer than 128 workgroups and each range keeps
// >= 256 of K, at most 16; GemmProblem::split_k / Conv2dProblem::split_k force it. The
// cooperative-matrix core on vectorised loads splits in two where its grid has fewer than 96
// workgroups and K is at least 512 (measured on an H100, tiling.cc); the older
// cooperative-matrix tilings never split, forced or not.

// One dispatch of a library kernel.
struct KernelDispatch {
  Kernel kernel = Kernel::kGemmF32;
  Tiling tiling;
  std::vector<std::pair<uint32_t, uint32_t>> specialization;  // {constant_id, raw 32 bits}
  std::vector<uint32_t> push;                                 // kernel_push_bytes / 4 words
  std::array<uint32_t, 3> groups = {1, 1, 1};
  uint64_t scratch_bytes = 0;   // the scratch binding's size; 0: none
  uint32_t splits = 1;          // K ranges (split-K, above); 1: none
  uint32_t used_bindings = 0;   // bit i: binding i is read or written
  uint32_t output_binding = 0;  // the binding the kernel writes
  uint64_t flops = 0;           // 2 * multiply-adds, for benchmarks
  // 4-element vector accesses the planner chose (their bindings' offsets were multiples of 4):
  // bit `flag` of specialization constant `constant_id` turns on vector access to the
  // bindings in `bindings` (bit i: binding i). add_binding_offsets turns it off again when an
  // added offset leaves one of them unaligned.
  struct VectorAccess {
    uint32_t bindings = 0, constant_id = 0, flag = 0;
  };
  std::vector<VectorAccess> vector_access;
  // When the last binding holds an operand the kernel reads instead of scratch (the int8
  // convolution's residual): the 8 bits at `shift` of push word `word` take its descriptor's
  // element offset (below 256, the largest descriptor alignment Vulkan allows), added by
  // add_binding_offsets. The binding is then read, not written.
  struct PackedOffset {
    uint32_t word = 0, shift = 0;
  };
  std::optional<PackedOffset> last_binding_offset;
};

// The plan's name as logs and univk-kernel-bench print it: tiling_label, then " sN" for N K
// ranges (split-K); the depthwise kernel's "4xC" (output channels x columns per invocation).
std::string plan_label(const KernelDispatch& dispatch);
// kernel_name and plan_label, then the operand bindings whose vector accesses
// add_binding_offsets turned off, if any: e.g. "conv2d_vec8_f32 128x64x8/8x8v, scalar loads
// of bindings 0".
std::string describe(const KernelDispatch& dispatch);

// Adds `extra[i]` to the element offset of operand binding i (push word i), turning off the
// vector accesses (KernelDispatch::vector_access) whose bindings are then not 4-aligned;
// `extra` has one entry per operand binding (kernel_binding_count - 1), and one more for the
// last binding when the dispatch has a last_binding_offset (an entry there of 0 may be left
// out). InvalidArgument for another count or a last-binding offset of 256 or more.
Status add_binding_offsets(KernelDispatch& dispatch, std::span<const uint32_t> extra);

// The pipeline of `dispatch`: SPIR-V, layout and specialization constants.
vulkan::ComputePipelineDesc pipeline_desc(const KernelDispatch& dispatch);

// The push-constant bytes of `dispatch`.
std::span<const uint8_t> push_bytes(const KernelDispatch& dispatch);

// Records `dispatch` with `bindings[i]` at binding i (kernel_binding_count of them), through
// the one recorder: the used bindings are its accesses, so barriers follow the hazards. With
// split-K, its two passes (above): two dispatches, one descriptor set from `pool`.
// `pipeline` is the one of pipeline_desc(dispatch); `label` names it in errors.
Status record_kernel(vulkan::DispatchRecorder& recorder, vulkan::DescriptorPool& pool,
                     const vulkan::ComputePipeline& pipeline, const KernelDispatch& dispatch,
                     std::span<const vulkan::BufferRange> bindings, std::string_view label);

}  // namespace univk::kernels
