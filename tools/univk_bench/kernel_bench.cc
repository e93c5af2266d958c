// univk-kernel-bench: the kernel library's GEMM, convolution and depthwise kernels beside the
// device's floors, measured in one run on one device.
//
//   univk-kernel-bench [--iterations N] [--tilings [--pointwise-only]] [--split-k S[,S...]] [--only NAME]
//                      [--precision fp32|fp16] [--winograd f2[,f4]] [--evict-mib N] [--pipeline-statistics]
//                      [--device INDEX|NAME] [--json FILE]
//
// Floors: fp32 FMA peak (fma_peak.comp), the fp16 cooperative-matrix peak where the device has
// it (coopmat_peak.comp), and copy bandwidth (floors.h). --precision plans every workload with
// that precision (kernels/kernel.h: fp16 takes the cooperative-matrix kernels where present).
// Then each workload
// (GEMM 4096^3, a batch-1 linear layer, ResNet-shaped convolutions at batch 1 and 32, NHWC with
// TOSA weights as the VgfBackend lowers them and NCHW with PyTorch weights as the
// VulkanBackend does; MobileNetV2's depthwise convolutions the same two ways) with the
// planner's tiling, or with every tiling under --tilings: GPU time (p50 of N timestamped runs),
// achieved FLOP/s and its fraction of the FMA floor (of the cooperative-matrix floor for a
// cooperative-matrix kernel), and the bytes it must move at least (depthwise: input and output;
// GEMM and convolution: every operand and the output) per second as a fraction of the copy
// floor, which bounds the short-K convolutions. --tilings includes the vectorised-core
// tilings (kernels::vec_tilings, not yet the planner's) and, with --precision fp16, the
// cooperative-matrix ones (kernels::coopmat_tilings, then kernels::coopmat_vec_tilings: not yet
// the planner's) and, for convolutions, the pointwise kernel's (kernels::pointwise_tilings: 1x1
// convolutions only) and the stem kernel's (kernels::stem_tilings: at most 4 input channels).
// The tiling column ends in "c" for a cooperative-matrix tiling, "v" for a vectorised one
// ("cv": cooperative matrices on the vectorised loads), "p" for a pointwise one, "stem" for a
// stem one, and " sS" when the dispatch splits K into S ranges (kernel.h) (--pointwise-only: the
// planner's choice and the pointwise tilings only);
// --split-k forces S (1: no split) for every workload, each S of a list in turn (a sweep in one
// run; the cooperative-matrix tilings on vectorised loads split only when forced: kernel.h);
// a plan an earlier S already gave (its ranges reduced to the same count) is not measured again.
// --winograd f2,f4 adds, for each convolution Winograd computes (3x3, stride 1), a row per output
// tile (kernels/winograd.h): its three dispatches timed together (winograd_timing.h), the kernel
// column "winograd_f2" or "winograd_f4", the tiling column its GEMM's kernel and plan, and FLOP/s
// counted as the direct convolution's FLOPs per second (so that rows compare by time), against
// the cooperative-matrix floor when its GEMM runs on cooperative matrices.
// Operands hold seeded random values (operand_fill.h). A workload's operands stay in the GPU's
// caches from one timed run to the next; --evict-mib N overwrites N MiB before each run
// (outside the timed span), so the kernel starts cold, as a layer of a model does.
// --pipeline-statistics prints, under each row, the driver's compile statistics of the kernel's
// pipeline (VK_KHR_pipeline_executable_properties: on NVIDIA, registers and local memory per
// invocation, which bound how many workgroups share an SM); a device without the extension
// gets a note instead.
// --json FILE writes the results as one JSON object into FILE; `--json -` prints it on stdout
// instead of the table.
// Exit status: 0 ok, 2 bad command line (cli.h; an unknown --device included), 3 a measurement
// failed or an output could not be written.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "device_option.h"
#include "floors.h"
#include "gpu_timing.h"
#include "json_output.h"
#include "operand_fill.h"
#include "stdout_check.h"
#include "univk/kernels/conv2d.h"
#include "univk/kernels/depthwise.h"
#include "univk/kernels/gemm.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline_cache.h"
#include "winograd_timing.h"

namespace {

using univk::Result;
using univk::Status;
namespace bench = univk::bench;
namespace kernels = univk::kernels;
namespace vulkan = univk::vulkan;

struct Workload {
  std::string name;
  std::optional<kernels::GemmProblem> gemm;
  std::optional<kernels::Conv2dProblem> conv;
  std::optional<kernels::DepthwiseProblem> depthwise = {};
};

kernels::GemmProblem gemm(int64_t m, int64_t n, int64_t k, bool transposed_b) {
  kernels::GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a = {0, 0, k, 1};
  p.b = transposed_b ? kernels::MatrixOperand{0, 0, 1, k} : kernels::MatrixOperand{0, 0, n, 1};
  p.out = {0, 0, n, 1};
  p.bias = {0, 0, 0, 1};
  p.epilogue.bias = true;
  return p;
}

kernels::Conv2dProblem conv(int64_t batch, int64_t c, int64_t hw, int64_t oc, int64_t k, int64_t stride, bool nhwc) {
  kernels::Conv2dProblem p;
  p.batch = batch, p.in_channels = c, p.in_h = p.in_w = hw, p.out_channels = oc;
  p.kernel_h = p.kernel_w = k, p.stride_h = p.stride_w = stride, p.pad_top = p.pad_left = k / 2;
  p.out_h = p.out_w = (hw + 2 * (k / 2) - k) / stride + 1;
  const std::array<int64_t, 4> in = {batch, c, hw, hw}, out = {batch, oc, p.out_h, p.out_w};
  p.input = nhwc ? kernels::ActivationStrides::nhwc(in) : kernels::ActivationStrides::nchw(in);
  p.output = nhwc ? kernels::ActivationStrides::nhwc(out) : kernels::ActivationStrides::nchw(out);
  p.weight = nhwc ? kernels::WeightStrides::ohwi(c, k, k) : kernels::WeightStrides::oihw(c, k, k);
  p.epilogue = {true, false, kernels::Activation::kRelu};
  return p;
}

// A 3x3 depthwise convolution with relu6, as MobileNetV2's: NHWC with TOSA weights (the
// VgfBackend's lowering) or NCHW with PyTorch's (the VulkanBackend's).
kernels::DepthwiseProblem depthwise(int64_t batch, int64_t c, int64_t hw, int64_t stride, bool nhwc) {
  kernels::DepthwiseProblem p;
  p.batch = batch, p.channels = c, p.in_h = p.in_w = hw;
  p.kernel_h = p.kernel_w = 3, p.stride_h = p.stride_w = stride, p.pad_top = p.pad_left = 1;
  p.out_h = p.out_w = (hw - 1) / stride + 1;
  const std::array<int64_t, 4> in = {batch, c, hw, hw}, out = {batch, c, p.out_h, p.out_w};
  p.input = nhwc ? kernels::ActivationStrides::nhwc(in) : kernels::ActivationStrides::nchw(in);
  p.output = nhwc ? kernels::ActivationStrides::nhwc(out) : kernels::ActivationStrides::nchw(out);
  p.weight = nhwc ? kernels::DepthwiseWeightStrides::hwcm(c) : kernels::DepthwiseWeightStrides::oihw(3, 3);
  p.epilogue = {true, false, kernels::Activation::kClamp, 0.0f, 6.0f};
  return p;
}

std::vector<Workload> workloads() {
  std::vector<Workload> w;
  w.push_back({"gemm_4096", gemm(4096, 4096, 4096, false), {}});
  w.push_back({"linear_b1_1280x1000", gemm(1, 1000, 1280, true), {}});
  w.push_back({"linear_b1_512x1000", gemm(1, 1000, 512, true), {}});
  w.push_back({"linear_b32_2048x1000", gemm(32, 1000, 2048, true), {}});
  // ResNet18's and MobileNetV2's classifiers at batch 32 (weights [N][K], as VgfBackend reads
  // them: the exported TRANSPOSE folds into the view).
  w.push_back({"linear_b32_512x1000", gemm(32, 1000, 512, true), {}});
  w.push_back({"linear_b32_1280x1000", gemm(32, 1000, 1280, true), {}});
  for (bool nhwc : {true, false}) {
    const std::string layout = nhwc ? "_nhwc" : "_nchw";
    w.push_back({"conv7x7s2_3_64_224_b1" + layout, {}, conv(1, 3, 224, 64, 7, 2, nhwc)});
    w.push_back({"conv7x7s2_3_64_224_b32" + layout, {}, conv(32, 3, 224, 64, 7, 2, nhwc)});
    w.push_back({"conv3x3s2_3_32_224_b1" + layout, {}, conv(1, 3, 224, 32, 3, 2, nhwc)});
    w.push_back({"conv3x3s2_3_32_224_b32" + layout, {}, conv(32, 3, 224, 32, 3, 2, nhwc)});
    w.push_back({"conv3x3_64_56_b1" + layout, {}, conv(1, 64, 56, 64, 3, 1, nhwc)});
    w.push_back({"conv3x3_256_14_b1" + layout, {}, conv(1, 256, 14, 256, 3, 1, nhwc)});
    w.push_back({"conv3x3_512_7_b1" + layout, {}, conv(1, 512, 7, 512, 3, 1, nhwc)});
    w.push_back({"conv1x1_64_256_56_b1" + layout, {}, conv(1, 64, 56, 256, 1, 1, nhwc)});
    w.push_back({"conv3x3_64_56_b32" + layout, {}, conv(32, 64, 56, 64, 3, 1, nhwc)});
    // ResNet18's later stages and MobileNetV2's expansion/projection 1x1 convolutions at batch 32.
    w.push_back({"conv3x3_128_28_b32" + layout, {}, conv(32, 128, 28, 128, 3, 1, nhwc)});
    w.push_back({"conv3x3_256_14_b32" + layout, {}, conv(32, 256, 14, 256, 3, 1, nhwc)});
    w.push_back({"conv3x3_512_7_b32" + layout, {}, conv(32, 512, 7, 512, 3, 1, nhwc)});
    w.push_back({"conv1x1_24_144_56_b32" + layout, {}, conv(32, 24, 56, 144, 1, 1, nhwc)});
    w.push_back({"conv1x1_144_24_56_b32" + layout, {}, conv(32, 144, 56, 24, 1, 1, nhwc)});
    // MobileNetV2's other short-K expansions and projections at batch 32, memory-bound: their
    // output (expansions) or input (projections) is 4-6 times the other operand.
    w.push_back({"conv1x1_32_16_112_b32" + layout, {}, conv(32, 32, 112, 16, 1, 1, nhwc)});
    w.push_back({"conv1x1_16_96_112_b32" + layout, {}, conv(32, 16, 112, 96, 1, 1, nhwc)});
    w.push_back({"conv1x1_96_24_56_b32" + layout, {}, conv(32, 96, 56, 24, 1, 1, nhwc)});
    w.push_back({"conv1x1_32_192_28_b32" + layout, {}, conv(32, 32, 28, 192, 1, 1, nhwc)});
    w.push_back({"conv1x1_192_32_28_b32" + layout, {}, conv(32, 192, 28, 32, 1, 1, nhwc)});
    w.push_back({"conv1x1_64_384_14_b32" + layout, {}, conv(32, 64, 14, 384, 1, 1, nhwc)});
    w.push_back({"conv1x1_384_64_14_b32" + layout, {}, conv(32, 384, 14, 64, 1, 1, nhwc)});
    w.push_back({"conv1x1_320_1280_7_b32" + layout, {}, conv(32, 320, 7, 1280, 1, 1, nhwc)});
    w.push_back({"conv1x1_960_160_7_b32" + layout, {}, conv(32, 960, 7, 160, 1, 1, nhwc)});
    // ResNet18's strided entry into its last stage and ResNet50's long-K 1x1 convolutions at
    // batch 32 (grids of 104-196 workgroups of 128x64: the planner's small-grid rule).
    w.push_back({"conv3x3s2_256_512_14_b32" + layout, {}, conv(32, 256, 14, 512, 3, 2, nhwc)});
    w.push_back({"conv1x1_1024_256_14_b32" + layout, {}, conv(32, 1024, 14, 256, 1, 1, nhwc)});
    w.push_back({"conv1x1_2048_512_7_b32" + layout, {}, conv(32, 2048, 7, 512, 1, 1, nhwc)});
    // ResNet18's other strided entries (3x3 stride 2) and its downsample shortcuts (1x1 stride
    // 2), batch 32.
    w.push_back({"conv3x3s2_64_128_56_b32" + layout, {}, conv(32, 64, 56, 128, 3, 2, nhwc)});
    w.push_back({"conv3x3s2_128_256_28_b32" + layout, {}, conv(32, 128, 28, 256, 3, 2, nhwc)});
    w.push_back({"conv1x1s2_64_128_56_b32" + layout, {}, conv(32, 64, 56, 128, 1, 2, nhwc)});
    w.push_back({"conv1x1s2_128_256_28_b32" + layout, {}, conv(32, 128, 28, 256, 1, 2, nhwc)});
    w.push_back({"conv1x1s2_256_512_14_b32" + layout, {}, conv(32, 256, 14, 512, 1, 2, nhwc)});
  }
  // The lavapipe comparison's models at 64x64, batch 1, NHWC (`--only cpu64_`): MobileNetV2's
  // and ResNet's stems, MobileNetV2's 1x1 convolutions from 32x32 down to 2x2, ResNet50's from 16x16 down to 2x2,
  // and ResNet50's classifier (MobileNetV2's is linear_b1_1280x1000 above).
  for (auto [c, hw, oc, k, stride] : std::initializer_list<std::array<int64_t, 5>>{
           {3, 64, 32, 3, 2},    {3, 64, 64, 7, 2},    {32, 32, 16, 1, 1},  {16, 32, 96, 1, 1},   {96, 16, 24, 1, 1},
           {24, 16, 144, 1, 1},  {144, 16, 24, 1, 1},  {32, 8, 192, 1, 1},  {192, 8, 32, 1, 1},   {64, 4, 384, 1, 1},
           {384, 4, 64, 1, 1},   {96, 4, 576, 1, 1},   {576, 4, 96, 1, 1},  {160, 2, 960, 1, 1},  {960, 2, 160, 1, 1},
           {320, 2, 1280, 1, 1}, {64, 16, 256, 1, 1},  {256, 16, 64, 1, 1}, {64, 16, 64, 3, 1},   {128, 8, 512, 1, 1},
           {128, 8, 128, 3, 1},  {1024, 4, 256, 1, 1}, {256, 4, 256, 3, 1}, {2048, 2, 512, 1, 1}, {512, 2, 2048, 1, 1},
           {512, 2, 512, 3, 1}}) {
    const std::string shape = std::to_string(c) + "_" + std::to_string(oc) + "_" + std::to_string(hw);
    const std::string kind = "conv" + std::to_string(k) + "x" + std::to_string(k) + (stride > 1 ? "s2_" : "_");
    w.push_back({"cpu64_" + kind + shape, {}, conv(1, c, hw, oc, k, stride, true)});
  }
  w.push_back({"cpu64_linear_2048x1000", gemm(1, 1000, 2048, true), {}});
  // ResNet50's convolutions at 224x224, batch 1, NHWC, beside the 3x3 ones above (`--only
  // r50b1_`): the bottlenecks' 1x1 reductions and expansions, K from 64 to 2048.
  for (auto [c, hw, oc] : std::initializer_list<std::array<int64_t, 3>>{{256, 56, 64},
                                                                        {256, 56, 128},
                                                                        {512, 28, 128},
                                                                        {128, 28, 512},
                                                                        {1024, 14, 256},
                                                                        {256, 14, 1024},
                                                                        {2048, 7, 512},
                                                                        {512, 7, 2048}}) {
    w.push_back({"r50b1_conv1x1_" + std::to_string(c) + "_" + std::to_string(oc) + "_" + std::to_string(hw),
                 {},
                 conv(1, c, hw, oc, 1, 1, true)});
  }
  for (bool nhwc : {true, false}) {
    const std::string layout = nhwc ? "_nhwc" : "_nchw";
    w.push_back({"dw3x3_32_112_b1" + layout, {}, {}, depthwise(1, 32, 112, 1, nhwc)});
    w.push_back({"dw3x3s2_96_112_b1" + layout, {}, {}, depthwise(1, 96, 112, 2, nhwc)});
    w.push_back({"dw3x3_144_56_b1" + layout, {}, {}, depthwise(1, 144, 56, 1, nhwc)});
    w.push_back({"dw3x3_960_7_b1" + layout, {}, {}, depthwise(1, 960, 7, 1, nhwc)});
    w.push_back({"dw3x3_144_56_b32" + layout, {}, {}, depthwise(32, 144, 56, 1, nhwc)});
  }
  return w;
}

// Elements each binding of the kernel addresses (one past the last), from the planner's view;
// the scratch binding's size comes from the dispatch.
std::vector<uint64_t> binding_elements(const Workload& w) {
  if (w.gemm) {
    const auto& p = *w.gemm;
    return {uint64_t(p.m * p.k), uint64_t(p.k * p.n), uint64_t(p.n), uint64_t(p.m * p.n), 1, 1};
  }
  if (w.depthwise) {
    const auto& p = *w.depthwise;
    const int64_t oc = p.channels * p.multiplier;
    return {uint64_t(p.batch * p.channels * p.in_h * p.in_w),
            uint64_t(oc * p.kernel_h * p.kernel_w),
            uint64_t(oc),
            uint64_t(p.batch * oc * p.out_h * p.out_w),
            1,
            1};
  }
  const auto& p = *w.conv;
  return {uint64_t(p.batch * p.in_channels * p.in_h * p.in_w),
          uint64_t(p.out_channels * p.in_channels / p.groups * p.kernel_h * p.kernel_w),
          uint64_t(p.out_channels),
          uint64_t(p.batch * p.out_channels * p.out_h * p.out_w),
          1,
          1};
}

struct Measurement {
  std::string workload;
  std::string kernel, plan;  // the kernel's name and plan label (a Winograd row: its GEMM's)
  uint64_t flops = 0;        // the direct computation's (a Winograd row: the convolution's)
  bool coopmat = false;      // measured against the cooperative-matrix floor
  bool planner_choice = false;
  bench::Summary gpu_ns;
  // The bytes the kernel must move at least: input and output (depthwise), every operand and the
  // output (GEMM, convolution).
  uint64_t bytes = 0;
  std::vector<vulkan::PipelineStatistic> statistics;  // --pipeline-statistics
};

// A workload's operand bindings (every binding but the last, the scratch), allocated and filled
// once and shared by the measurements of all its tilings.
struct Operands {
  std::vector<vulkan::Buffer> buffers;
  std::vector<vulkan::BufferRange> ranges;
};

// Operands as a model's data: seeded random values (operand_fill.h says why).
Result<Operands> make_operands(const vulkan::DeviceLease& device, const Workload& w) {
  Operands operands;
  const std::vector<uint64_t> elements = binding_elements(w);
  for (size_t b = 0; b + 1 < elements.size(); ++b) {
    UNIVK_ASSIGN_OR_RETURN(auto buffer,
                           vulkan::Buffer::create(device, elements[b] * 4, vulkan::MemoryKind::kDeviceLocal));
    operands.ranges.push_back({buffer.handle(), 0, elements[b] * 4});
    operands.buffers.push_back(std::move(buffer));
    UNIVK_RETURN_IF_ERROR(bench::fill_uniform(device, operands.ranges.back(), b + 1));
  }
  return operands;
}

// The plan of `w` on `device` with `tiling` (none: the planner's choice).
Result<kernels::KernelDispatch> plan_workload(const vulkan::DeviceLease& device, const Workload& w,
                                              std::optional<kernels::Tiling> tiling, kernels::Precision precision) {
  const kernels::DeviceTraits traits = kernels::device_traits(*device, precision);
  if (w.gemm) return kernels::plan_gemm(*w.gemm, traits, tiling);
  if (w.depthwise) return kernels::plan_depthwise(*w.depthwise, traits);
  return kernels::plan_conv2d(*w.conv, traits, tiling);
}

// Times `dispatch`, a plan of `w` (plan_workload).
Result<Measurement> measure(const vulkan::DeviceLease& device, const Workload& w, const Operands& operands,
                            const kernels::KernelDispatch& dispatch, bool planner_choice,
                            const vulkan::BufferRange* evict, bench::RepeatCounts counts, bool statistics) {
  Measurement m;
  m.workload = w.name;
  m.planner_choice = planner_choice;
  m.kernel = kernels::kernel_name(dispatch.kernel);
  m.plan = kernels::plan_label(dispatch);
  m.flops = dispatch.flops;
  m.coopmat = dispatch.tiling.coopmat;
  // Every operand read once and the output written once: the least traffic of the kernel (a
  // depthwise kernel's weight and bias are small beside its activations).
  const std::vector<uint64_t> elements = binding_elements(w);
  m.bytes = (elements[0] + (w.depthwise ? 0 : elements[1] + elements[2]) + elements[3]) * sizeof(float);
  // The scratch binding, this plan's own (split-K's partial tiles).
  const uint64_t scratch_bytes =
      std::max<uint64_t>(binding_elements(w).back() * 4, (dispatch.scratch_bytes + 3) / 4 * 4);
  UNIVK_ASSIGN_OR_RETURN(auto scratch, vulkan::Buffer::create(device, scratch_bytes, vulkan::MemoryKind::kDeviceLocal));
  std::vector<vulkan::BufferRange> ranges = operands.ranges;
  ranges.push_back({scratch.handle(), 0, scratch_bytes});
  UNIVK_ASSIGN_OR_RETURN(auto pipeline, vulkan::get_or_create_pipeline(device, kernels::pipeline_desc(dispatch)));
  if (statistics) {
    UNIVK_ASSIGN_OR_RETURN(m.statistics, pipeline->statistics());
  }
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::DescriptorPool::create(device, 1, 6));
  Status recorded;
  UNIVK_ASSIGN_OR_RETURN(auto times, bench::time_work(
                                         device, counts,
                                         [&](VkCommandBuffer cmd) {
                                           vulkan::DispatchRecorder recorder(*device, cmd);
                                           recorded = kernels::record_kernel(recorder, pool, *pipeline, dispatch,
                                                                             ranges, w.name);
                                         },
                                         evict));
  UNIVK_RETURN_IF_ERROR(recorded);
  m.gpu_ns = times.first;
  return m;
}

// Measurement::bytes per second as a fraction of the copy floor (which reads and writes each
// byte once: its bytes_per_second counts both); 0 when unknown.
double copy_fraction(const Measurement& r, double copy_bytes_per_second) {
  if (r.bytes == 0 || r.gpu_ns.p50 <= 0 || copy_bytes_per_second <= 0) return 0;
  return double(r.bytes) / (r.gpu_ns.p50 * 1e-9) / copy_bytes_per_second;
}

constexpr const char* kTool = "univk-kernel-bench";
constexpr int kExitFailure = 3;

int run(int argc, char** argv) {
  int iterations = 20;
  bool all_tilings = false;
  bool statistics = false;
  std::vector<uint32_t> split_ks;
  uint32_t evict_mib = 0;
  std::string only, precision_name = "fp32", device_selector, json_path;
  univk::tools::ToolApp app(kTool,
                            "Measures the kernel library's GEMM, convolution and depthwise kernels beside the "
                            "device's FMA, cooperative-matrix and copy floors, in one run.\n"
                            "Exit status: 0 ok, 2 bad command line, 3 a measurement or output failure.");
  app.add_option("--iterations", iterations, "Timed runs per kernel (p50 reported)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_flag("--tilings", all_tilings, "Measure every tiling, not only the planner's");
  bool pointwise_only = false;
  app.add_flag("--pointwise-only", pointwise_only,
               "With --tilings: only the pointwise kernel's tilings besides the planner's choice");
  std::vector<std::string> tiling_filters;
  app.add_option("--tiling-filter", tiling_filters,
                 "With --tilings: only the tilings whose name (as printed) contains one of the comma-separated TEXTs, "
                 "besides the planner's choice")
      ->delimiter(',')
      ->type_name("TEXT[,TEXT...]");
  app.add_option("--split-k", split_ks,
                 "Force S K-ranges per dispatch for every workload (1: no split); a comma-separated list measures "
                 "each in turn")
      ->type_name("S[,S...]")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  app.add_option("--only", only, "Only the workloads whose name contains NAME")->type_name("NAME");
  app.add_option("--precision", precision_name, "Plan every workload with this precision")
      ->check(CLI::IsMember({"fp32", "fp16"}))
      ->capture_default_str();
  app.add_option("--evict-mib", evict_mib,
                 "Before each timed run, overwrite this many MiB outside the timed span, so each kernel starts "
                 "with cold caches as a model's layer does (give more than the GPU's last-level cache; 0: off)")
      ->check(CLI::Range(0, 65536))
      ->capture_default_str();
  app.add_flag("--pipeline-statistics", statistics,
               "Print the driver's compile statistics (registers, local memory) of each kernel's pipeline");
  std::vector<std::string> winograd_tiles;
  app.add_option("--winograd", winograd_tiles,
                 "Also time Winograd with these output tiles (f2: 2x2, f4: 4x4) for the 3x3 stride-1 convolutions")
      ->type_name("f2[,f4]")
      ->delimiter(',')
      ->check(CLI::IsMember({"f2", "f4"}));
  univk::tools::add_device_option(app, device_selector);
  univk::tools::add_json_option(app, json_path, "the results");
  if (auto exit = app.parse_command_line(argc, argv, kExitFailure)) return *exit;
  const kernels::Precision precision = *kernels::parse_precision(precision_name);  // IsMember checked it
  vulkan::RuntimeConfig config = vulkan::RuntimeConfig::from_environment();
  if (Status s = univk::tools::apply_device_option(device_selector, config); !s.ok()) {
    return app.usage_error(s.to_string());
  }
  // The floors' requirements and the library kernels' (cooperative matrices for --precision fp16).
  vulkan::DeviceRequirements requirements = bench::coopmat_floor_requirements();
  requirements.merge(kernels::optional_requirements());
  if (statistics) {
    requirements.optional_extensions.insert(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    requirements.optional_features.insert(vulkan::Feature::kPipelineExecutableInfo);
  }
  auto device = vulkan::Device::create(config, requirements);
  if (!device.ok()) {
    std::fprintf(stderr, "%s: %s\n", kTool, device.status().to_string().c_str());
    return kExitFailure;
  }
  if (statistics && !(*device)->has(vulkan::Feature::kPipelineExecutableInfo)) {
    std::fprintf(stderr,
                 "%s: --pipeline-statistics: this device does not offer VK_KHR_pipeline_executable_properties; "
                 "measuring without statistics\n",
                 kTool);
    statistics = false;
  }
  const bench::RepeatCounts counts{3, iterations, 500};
  std::optional<vulkan::Buffer> evict_buffer;
  std::optional<vulkan::BufferRange> evict;
  if (evict_mib > 0) {
    auto buffer = vulkan::Buffer::create(*device, uint64_t{evict_mib} << 20, vulkan::MemoryKind::kDeviceLocal);
    if (!buffer.ok()) {
      std::fprintf(stderr, "%s: --evict-mib: %s\n", kTool, buffer.status().to_string().c_str());
      return kExitFailure;
    }
    evict = vulkan::BufferRange{buffer->handle(), 0, uint64_t{evict_mib} << 20};
    evict_buffer = std::move(buffer).value();
  }
  auto fma = bench::measure_fma_peak(*device, counts);
  auto copy = bench::measure_copy(*device, 256ull << 20, {3, 10, 200});
  if (!fma.ok() || !copy.ok()) {
    std::fprintf(stderr, "%s: floor: %s\n", kTool, (!fma.ok() ? fma.status() : copy.status()).to_string().c_str());
    return kExitFailure;
  }
  const double peak = fma->flops_per_second();
  // Absent (0) without cooperative matrices.
  auto coopmat = bench::measure_coopmat_peak(*device, counts);
  const double coopmat_peak = coopmat.ok() ? coopmat->flops_per_second() : 0.0;
  auto floor_of = [&](const Measurement& r) { return r.coopmat ? coopmat_peak : peak; };
  const auto& props = (*device)->properties();
  // The table goes out a row at a time, flushed, so a run cut short keeps what it measured.
  const bool table = json_path != "-";
  if (table) {
    std::printf(
        "device: %s\nfp32 FMA floor: %.1f GFLOP/s; fp16 cooperative-matrix floor: %.1f GFLOP/s (0: none); "
        "copy floor: %.1f GB/s\n",
        props.deviceName, peak * 1e-9, coopmat_peak * 1e-9, copy->bytes_per_second() * 1e-9);
    std::printf("%-28s %-18s %-18s %5s %12s %12s %8s %8s\n", "workload", "kernel", "tiling", "plan", "GPU us p50",
                "GFLOP/s", "of floor", "of copy");
    std::fflush(stdout);
  }
  auto print_row = [&](const Measurement& r) {
    const double flops = r.gpu_ns.p50 > 0 ? double(r.flops) / (r.gpu_ns.p50 * 1e-9) : 0;
    const std::string of_copy =
        r.bytes > 0 ? std::to_string(int(100 * copy_fraction(r, copy->bytes_per_second()) + 0.5)) + "%" : "";
    std::printf("%-28s %-18s %-18s %5s %12.1f %12.1f %7.1f%% %8s\n", r.workload.c_str(), r.kernel.c_str(),
                r.plan.c_str(), r.planner_choice ? "yes" : "", r.gpu_ns.p50 * 1e-3, flops * 1e-9,
                floor_of(r) > 0 ? 100 * flops / floor_of(r) : 0, of_copy.c_str());
    for (const vulkan::PipelineStatistic& s : r.statistics) {
      std::printf("    %s: %s = %s\n", s.executable.c_str(), s.name.c_str(), s.value.c_str());
    }
    std::fflush(stdout);
  };
  std::vector<Measurement> results;
  for (Workload w : workloads()) {
    if (!only.empty() && w.name.find(only) == std::string::npos) continue;
    std::vector<std::optional<kernels::Tiling>> tilings = {std::nullopt};
    if (all_tilings && !w.depthwise && !pointwise_only) {
      for (const kernels::Tiling& t : kernels::gemm_tilings()) tilings.push_back(t);
      for (const kernels::Tiling& t : kernels::vec_tilings()) tilings.push_back(t);
      if (precision == kernels::Precision::kFp16) {
        for (const kernels::Tiling& t : kernels::coopmat_tilings()) tilings.push_back(t);
        for (const kernels::Tiling& t : kernels::coopmat_vec_tilings()) tilings.push_back(t);
      }
    }
    if (all_tilings && w.gemm && !pointwise_only) {
      for (const kernels::Tiling& t : kernels::skinny_tilings()) tilings.push_back(t);
    }
    if (all_tilings && w.conv) {
      for (const kernels::Tiling& t : kernels::pointwise_tilings()) tilings.push_back(t);
      if (!pointwise_only) {
        for (const kernels::Tiling& t : kernels::stem_tilings()) tilings.push_back(t);
      }
    }
    std::erase_if(tilings, [&](const std::optional<kernels::Tiling>& t) {
      if (!t || tiling_filters.empty()) return false;
      const std::string label = kernels::tiling_label(*t);
      return std::none_of(tiling_filters.begin(), tiling_filters.end(),
                          [&](const std::string& f) { return label.find(f) != std::string::npos; });
    });
    auto operands = make_operands(*device, w);
    if (!operands.ok()) {
      std::fprintf(stderr, "%s: %s: %s\n", kTool, w.name.c_str(), operands.status().to_string().c_str());
      return kExitFailure;
    }
    std::set<std::string> measured;  // plan labels of this workload
    for (const uint32_t split_k : split_ks.empty() ? std::vector<uint32_t>{0} : split_ks) {
      if (w.gemm) w.gemm->split_k = split_k;
      if (w.conv) w.conv->split_k = split_k;
      for (const auto& t : tilings) {
        auto dispatch = plan_workload(*device, w, t, precision);
        if (dispatch.ok()) {
          const std::string plan = std::string(kernels::kernel_name(dispatch->kernel)) + " " +
                                   kernels::plan_label(*dispatch) + (t ? "" : " planner");
          if (!measured.insert(plan).second) continue;
        }
        auto m = dispatch.ok()
                     ? measure(*device, w, *operands, *dispatch, !t, evict ? &*evict : nullptr, counts, statistics)
                     : Result<Measurement>(dispatch.status());
        if (!m.ok()) {
          if (t) continue;  // a forced tiling the device cannot run
          std::fprintf(stderr, "%s: %s: %s\n", kTool, w.name.c_str(), m.status().to_string().c_str());
          return kExitFailure;
        }
        if (table) print_row(*m);
        results.push_back(std::move(*m));
      }
    }
    for (const std::string& name : winograd_tiles) {
      if (!w.conv || !kernels::winograd_computes(*w.conv)) break;
      const int64_t tile = name == "f4" ? 4 : 2;
      const kernels::Conv2dProblem& p = *w.conv;
      auto timing = bench::time_winograd(*device, kernels::device_traits(**device, precision), p, tile,
                                         operands->ranges, counts, evict ? &*evict : nullptr);
      if (!timing.ok()) {
        std::fprintf(stderr, "%s: %s: Winograd %s: %s\n", kTool, w.name.c_str(), name.c_str(),
                     timing.status().to_string().c_str());
        // Like a forced tiling the device cannot run: noted, the other rows still measured.
        if (timing.status().code() == univk::StatusCode::kUnsupported) continue;
        return kExitFailure;
      }
      Measurement m;
      m.workload = w.name;
      m.kernel = "winograd_" + name;
      m.plan =
          std::string(kernels::kernel_name(timing->plan.gemm.kernel)) + " " + kernels::plan_label(timing->plan.gemm);
      m.flops = 2 * uint64_t(p.batch * p.out_channels * p.out_h * p.out_w) * uint64_t(p.in_channels * 9);
      m.coopmat = timing->plan.gemm.tiling.coopmat;
      m.gpu_ns = timing->gpu_ns;
      const std::vector<uint64_t> elements = binding_elements(w);
      m.bytes = (elements[0] + elements[1] + elements[2] + elements[3]) * sizeof(float);
      if (table) print_row(m);
      results.push_back(std::move(m));
    }
  }
  bool written = true;
  if (!json_path.empty()) {
    using univk::tools::Json;
    using univk::tools::json_number;
    Json kernel_list = Json::array();
    for (const Measurement& r : results) {
      const double flops = r.gpu_ns.p50 > 0 ? double(r.flops) / (r.gpu_ns.p50 * 1e-9) : 0;
      Json statistic_list = Json::array();
      for (const vulkan::PipelineStatistic& s : r.statistics) {
        statistic_list.push_back(
            {{"executable", s.executable}, {"name", s.name}, {"description", s.description}, {"value", s.value}});
      }
      kernel_list.push_back({{"workload", r.workload},
                             {"kernel", r.kernel},
                             {"tiling", r.plan},
                             {"planner_choice", r.planner_choice},
                             {"gpu_ns_p50", json_number(r.gpu_ns.p50)},
                             {"flops", json_number(flops)},
                             {"fraction_of_floor", json_number(floor_of(r) > 0 ? flops / floor_of(r) : 0)},
                             {"fraction_of_copy", json_number(copy_fraction(r, copy->bytes_per_second()))},
                             {"pipeline_statistics", std::move(statistic_list)}});
    }
    const Json json = {{"device", props.deviceName},
                       {"precision", precision_name},
                       {"evict_mib", evict_mib},
                       {"fma_flops", json_number(peak)},
                       {"coopmat_flops", json_number(coopmat_peak)},
                       {"copy_bytes_per_second", json_number(copy->bytes_per_second())},
                       {"kernels", std::move(kernel_list)}};
    written = univk::tools::write_json(json, json_path, kTool);
  }
  return univk::tools::stdout_written(kTool) && written ? 0 : kExitFailure;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
