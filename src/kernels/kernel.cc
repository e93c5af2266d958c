#include "univk/kernels/kernel.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "univk/kernels/conv2d.h"
#include "univk/kernels/conv2d_i8.h"
#include "univk/kernels/conv_transpose2d.h"
#include "univk/kernels/depthwise.h"
#include "univk/kernels/gemm.h"
#include "univk/kernels/winograd.h"
#include "univk/vulkan/command.h"
#include "tiling.h"
#include "univk_kernels_shaders.h"

namespace univk::kernels {

const char* kernel_name(Kernel kernel) {
  switch (kernel) {
    case Kernel::kGemmF32:
      return "gemm_f32";
    case Kernel::kConv2dF32:
      return "conv2d_f32";
    case Kernel::kGemmCoopmatF16:
      return "gemm_coopmat_f16";
    case Kernel::kConv2dCoopmatF16:
      return "conv2d_coopmat_f16";
    case Kernel::kDepthwiseF32:
      return "depthwise_f32";
    case Kernel::kConvTranspose2dF32:
      return "conv_transpose2d_f32";
    case Kernel::kGemmVecF32:
      return "gemm_vec_f32";
    case Kernel::kConv2dVecF32:
      return "conv2d_vec_f32";
    case Kernel::kGemmVec8F32:
      return "gemm_vec8_f32";
    case Kernel::kConv2dVec8F32:
      return "conv2d_vec8_f32";
    case Kernel::kGemmCoopmatVecF16:
      return "gemm_coopmat_vec_f16";
    case Kernel::kConv2dCoopmatVecF16:
      return "conv2d_coopmat_vec_f16";
    case Kernel::kConv2dI8:
      return "conv2d_i8";
    case Kernel::kConv2dI8Dot:
      return "conv2d_i8_dot";
    case Kernel::kConv2dI8Coopmat:
      return "conv2d_i8_coopmat";
    case Kernel::kDepthwiseI8:
      return "depthwise_i8";
    case Kernel::kConv2dPointwiseF32:
      return "conv2d_pointwise_f32";
    case Kernel::kConv2dStemF32:
      return "conv2d_stem_f32";
    case Kernel::kWinogradInputF32:
      return "winograd_input_f32";
    case Kernel::kWinogradOutputF32:
      return "winograd_output_f32";
    case Kernel::kGemmSkinnyF32:
      return "gemm_skinny_f32";
  }
  return "?";
}

uint32_t kernel_binding_count(Kernel kernel) {
  switch (kernel) {
    case Kernel::kGemmF32:
    case Kernel::kConv2dF32:
    case Kernel::kGemmCoopmatF16:
    case Kernel::kConv2dCoopmatF16:
    case Kernel::kDepthwiseF32:
    case Kernel::kConvTranspose2dF32:
    case Kernel::kGemmVecF32:
    case Kernel::kConv2dVecF32:
    case Kernel::kGemmVec8F32:
    case Kernel::kConv2dVec8F32:
    case Kernel::kGemmCoopmatVecF16:
    case Kernel::kConv2dCoopmatVecF16:
    case Kernel::kConv2dPointwiseF32:
    case Kernel::kConv2dStemF32:
    case Kernel::kWinogradInputF32:
    case Kernel::kWinogradOutputF32:
    case Kernel::kGemmSkinnyF32:
      return 6;  // A/input, B/weight, bias, out, residual, scratch (unused by depthwise and transposed)
    case Kernel::kConv2dI8:
    case Kernel::kConv2dI8Dot:
    case Kernel::kConv2dI8Coopmat:
    case Kernel::kDepthwiseI8:
      return 6;  // input, weight, bias, out, requantization, residual skip (KernelDispatch::last_binding_offset)
  }
  return 0;
}

uint32_t kernel_push_bytes(Kernel kernel) {
  switch (kernel) {
    case Kernel::kGemmF32:
    case Kernel::kGemmCoopmatF16:
    case Kernel::kGemmVecF32:
    case Kernel::kGemmVec8F32:
    case Kernel::kGemmCoopmatVecF16:
    case Kernel::kGemmSkinnyF32:
      return kGemmPushWords * 4;
    case Kernel::kConv2dF32:
    case Kernel::kConv2dCoopmatF16:
    case Kernel::kConv2dVecF32:
    case Kernel::kConv2dVec8F32:
    case Kernel::kConv2dCoopmatVecF16:
    case Kernel::kConv2dPointwiseF32:
    case Kernel::kConv2dStemF32:
      return kConvPushWords * 4;
    case Kernel::kDepthwiseF32:
      return kDwPushWords * 4;
    case Kernel::kConvTranspose2dF32:
      return kCtPushWords * 4;
    case Kernel::kConv2dI8:
    case Kernel::kConv2dI8Dot:
    case Kernel::kConv2dI8Coopmat:
    case Kernel::kDepthwiseI8:
      return kI8PushWords * 4;
    case Kernel::kWinogradInputF32:
    case Kernel::kWinogradOutputF32:
      return kWgPushWords * 4;
  }
  return 0;
}

std::span<const uint32_t> kernel_spirv(Kernel kernel) {
  switch (kernel) {
    case Kernel::kGemmF32:
      return shaders::gemm_f32_spv();
    case Kernel::kConv2dF32:
      return shaders::conv2d_f32_spv();
    case Kernel::kGemmCoopmatF16:
      return shaders::gemm_coopmat_f16_spv();
    case Kernel::kConv2dCoopmatF16:
      return shaders::conv2d_coopmat_f16_spv();
    case Kernel::kDepthwiseF32:
      return shaders::depthwise_f32_spv();
    case Kernel::kConvTranspose2dF32:
      return shaders::conv_transpose2d_f32_spv();
    case Kernel::kGemmVecF32:
      return shaders::gemm_vec_f32_spv();
    case Kernel::kConv2dVecF32:
      return shaders::conv2d_vec_f32_spv();
    case Kernel::kGemmVec8F32:
      return shaders::gemm_vec8_f32_spv();
    case Kernel::kConv2dVec8F32:
      return shaders::conv2d_vec8_f32_spv();
    case Kernel::kGemmCoopmatVecF16:
      return shaders::gemm_coopmat_vec_f16_spv();
    case Kernel::kConv2dCoopmatVecF16:
      return shaders::conv2d_coopmat_vec_f16_spv();
    case Kernel::kConv2dI8:
      return shaders::conv2d_i8_spv();
    case Kernel::kConv2dI8Dot:
      return shaders::conv2d_i8_dot_spv();
    case Kernel::kConv2dI8Coopmat:
      return shaders::conv2d_i8_coopmat_spv();
    case Kernel::kDepthwiseI8:
      return shaders::depthwise_i8_spv();
    case Kernel::kConv2dPointwiseF32:
      return shaders::conv2d_pointwise_f32_spv();
    case Kernel::kConv2dStemF32:
      return shaders::conv2d_stem_f32_spv();
    case Kernel::kWinogradInputF32:
      return shaders::winograd_input_f32_spv();
    case Kernel::kWinogradOutputF32:
      return shaders::winograd_output_f32_spv();
    case Kernel::kGemmSkinnyF32:
      return shaders::gemm_skinny_f32_spv();
  }
  return {};
}

namespace {

// Vulkan does not say how many threads a CPU implementation runs. lavapipe (Mesa's
// LP_MAX_THREADS) starts one per hardware thread, at most 32, unless LP_NUM_THREADS says
// otherwise, read as C's strtoll in base 0 reads it (0 there: it runs on the caller's thread).
uint32_t cpu_worker_threads() {
  constexpr long long kMaxThreads = 32;
  if (const char* value = std::getenv("LP_NUM_THREADS")) {
    char* end = nullptr;
    const long long threads = std::strtoll(value, &end, 0);
    if (end != value) return uint32_t(std::clamp(threads, 1LL, kMaxThreads));
  }
  return uint32_t(std::clamp<long long>(std::thread::hardware_concurrency(), 1, kMaxThreads));
}

}  // namespace

DeviceTraits device_traits(const VkPhysicalDeviceProperties& properties) {
  DeviceTraits traits;
  traits.max_shared_bytes = properties.limits.maxComputeSharedMemorySize;
  // The tilings are 1-d workgroups: the x size limits them too.
  traits.max_workgroup_invocations =
      std::min(properties.limits.maxComputeWorkGroupInvocations, properties.limits.maxComputeWorkGroupSize[0]);
  for (int i = 0; i < 3; ++i) traits.max_group_count[i] = properties.limits.maxComputeWorkGroupCount[i];
  traits.cpu = properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (traits.cpu) traits.cpu_threads = cpu_worker_threads();
  traits.max_binding_bytes = properties.limits.maxStorageBufferRange;
  traits.binding_alignment = std::max<uint64_t>(properties.limits.minStorageBufferOffsetAlignment, 4);
  return traits;
}

DeviceTraits device_traits(const vulkan::Device& device, Precision precision) {
  DeviceTraits traits = device_traits(device.properties());
  // The cooperative-matrix kernels compile under the Vulkan memory model (gemm_tile.glsl) for
  // subgroups of 32.
  const bool coopmat_ready = device.has(vulkan::Feature::kVulkanMemoryModel) &&
                             device.has(vulkan::Feature::kVulkanMemoryModelDeviceScope) &&
                             device.enabled().subgroup_size == 32;
  traits.cooperative_matrix_f16 =
      coopmat_ready && device.enabled().lists_cooperative_matrix_f16() && device.has(vulkan::Feature::kShaderFloat16);
  traits.integer_dot_product = device.has(vulkan::Feature::kShaderIntegerDotProduct);
  if (coopmat_ready && device.has(vulkan::Feature::kShaderInt8) &&
      device.has(vulkan::Feature::kStorageBuffer8BitAccess)) {
    for (size_t i = 0; i < kI8Fragments.size(); ++i) {
      if (device.enabled().lists_cooperative_matrix_i8(kI8Fragments[i].m, kI8Fragments[i].n, 32)) {
        traits.cooperative_matrix_i8 |= 1u << i;
      }
    }
  }
  traits.precision = precision;
  return traits;
}

Result<Precision> parse_precision(std::string_view value) {
  if (value == "fp32") return Precision::kFp32;
  if (value == "fp16") return Precision::kFp16;
  return invalid_argument("precision '" + std::string(value) + "' (fp32 or fp16)");
}

Result<Winograd> parse_winograd(std::string_view value) {
  if (value == "auto") return Winograd::kAuto;
  if (value == "off") return Winograd::kOff;
  if (value == "f2") return Winograd::kF2;
  if (value == "f4") return Winograd::kF4;
  return invalid_argument("winograd '" + std::string(value) + "' (auto, off, f2 or f4)");
}

vulkan::DeviceRequirements optional_requirements() {
  vulkan::DeviceRequirements r;
  r.optional_extensions.insert(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  r.optional_features.insert(vulkan::Feature::kCooperativeMatrixNV);
  r.optional_features.insert(vulkan::Feature::kShaderFloat16);
  r.optional_features.insert(vulkan::Feature::kVulkanMemoryModel);
  r.optional_features.insert(vulkan::Feature::kVulkanMemoryModelDeviceScope);
  r.optional_features.insert(vulkan::Feature::kShaderIntegerDotProduct);
  r.optional_features.insert(vulkan::Feature::kShaderInt8);
  r.optional_features.insert(vulkan::Feature::kStorageBuffer8BitAccess);
  return r;
}

Status add_binding_offsets(KernelDispatch& dispatch, std::span<const uint32_t> extra) {
  const uint32_t operands = kernel_binding_count(dispatch.kernel) - 1;
  const auto& last = dispatch.last_binding_offset;
  const bool with_last = last && extra.size() == operands + 1;
  if ((extra.size() != operands && !with_last) || dispatch.push.size() < operands) {
    return invalid_argument(std::to_string(extra.size()) + " binding offsets for " + kernel_name(dispatch.kernel) +
                            ", which has " + std::to_string(operands) + " operand bindings");
  }
  for (size_t i = 0; i < operands; ++i) dispatch.push[i] += extra[i];
  if (with_last) {
    const uint32_t packed = (dispatch.push.at(last->word) >> last->shift & 0xffu) + extra[operands];
    if (packed > 0xffu) {
      return invalid_argument(std::string(kernel_name(dispatch.kernel)) + ": last binding offset " +
                              std::to_string(packed) + " does not fit its 8 bits");
    }
    dispatch.push[last->word] = (dispatch.push[last->word] & ~(0xffu << last->shift)) | packed << last->shift;
  }
  for (const KernelDispatch::VectorAccess& access : dispatch.vector_access) {
    bool aligned = true;
    for (uint32_t i = 0; i < operands; ++i) {
      if ((access.bindings >> i & 1u) != 0 && dispatch.push[i] % 4 != 0) aligned = false;
    }
    if (aligned) continue;
    for (auto& [id, value] : dispatch.specialization) {
      if (id == access.constant_id) value &= ~access.flag;
    }
  }
  return ok_status();
}

std::string plan_label(const KernelDispatch& dispatch) {
  if (dispatch.kernel == Kernel::kDepthwiseF32) {
    for (auto [id, value] : dispatch.specialization) {
      if (id == kDwColumnsConstant) return "4x" + std::to_string(value);
    }
  }
  if (dispatch.kernel == Kernel::kWinogradInputF32 || dispatch.kernel == Kernel::kWinogradOutputF32) {
    const uint32_t tile = detail::specialization_value(dispatch, kWgTileConstant);
    return std::to_string(tile) + "x" + std::to_string(tile) + " tiles";
  }
  return tiling_label(dispatch.tiling) + (dispatch.splits > 1 ? " s" + std::to_string(dispatch.splits) : "");
}

std::string describe(const KernelDispatch& dispatch) {
  std::string text = std::string(kernel_name(dispatch.kernel)) + " " + plan_label(dispatch);
  uint32_t scalar = 0;
  for (const KernelDispatch::VectorAccess& access : dispatch.vector_access) {
    for (auto [id, value] : dispatch.specialization) {
      if (id == access.constant_id && (value & access.flag) == 0) scalar |= access.bindings;
    }
  }
  if (scalar != 0) {
    text += ", scalar loads of bindings";
    for (uint32_t i = 0; i < 32; ++i) {
      if ((scalar >> i & 1u) != 0) text += " " + std::to_string(i);
    }
  }
  return text;
}

vulkan::ComputePipelineDesc pipeline_desc(const KernelDispatch& dispatch) {
  auto desc = vulkan::ComputePipelineDesc::storage_buffers(
      kernel_spirv(dispatch.kernel), kernel_binding_count(dispatch.kernel), kernel_push_bytes(dispatch.kernel),
      std::string("kernel ") + kernel_name(dispatch.kernel));
  for (auto [id, value] : dispatch.specialization) desc.specialization.push_back({id, value});
  return desc;
}

std::span<const uint8_t> push_bytes(const KernelDispatch& dispatch) {
  return {reinterpret_cast<const uint8_t*>(dispatch.push.data()), dispatch.push.size() * sizeof(uint32_t)};
}

}  // namespace univk::kernels

namespace univk::kernels {

Status record_kernel(vulkan::DispatchRecorder& recorder, vulkan::DescriptorPool& pool,
                     const vulkan::ComputePipeline& pipeline, const KernelDispatch& dispatch,
                     std::span<const vulkan::BufferRange> bindings, std::string_view label) {
  const uint32_t count = kernel_binding_count(dispatch.kernel);
  if (bindings.size() != count) {
    return internal_error(std::string(label) + ": " + std::to_string(bindings.size()) + " bindings for " +
                          kernel_name(dispatch.kernel) + ", which has " + std::to_string(count));
  }
  const uint32_t scratch = count - 1;
  if (bindings[scratch].size < dispatch.scratch_bytes) {
    return internal_error(std::string(label) + ": a scratch binding of " + std::to_string(bindings[scratch].size) +
                          " bytes for " + std::to_string(dispatch.scratch_bytes));
  }
  std::vector<vulkan::DescriptorWrite> descriptors;
  std::vector<vulkan::BufferAccess> accesses;
  for (uint32_t i = 0; i < count; ++i) {
    descriptors.push_back({0, i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings[i]});
    if ((dispatch.used_bindings >> i & 1u) != 0) {
      const bool writes = i == dispatch.output_binding || (i == scratch && !dispatch.last_binding_offset);
      accesses.push_back({bindings[i], writes});
    }
  }
  vulkan::DispatchDesc desc;
  desc.pipeline = &pipeline;
  desc.descriptors = descriptors;
  desc.push_constants = push_bytes(dispatch);
  desc.groups = dispatch.groups;
  desc.accesses = accesses;
  desc.label = label;
  if (dispatch.splits <= 1) return recorder.dispatch(pool, desc);
  if (dispatch.kernel == Kernel::kGemmCoopmatF16 || dispatch.kernel == Kernel::kConv2dCoopmatF16) {
    return internal_error(std::string(label) + ": " + kernel_name(dispatch.kernel) + " has no split-K");
  }

  // Split-K's passes (above): the first reads the operands and writes the partial tiles, the
  // second reads them with the bias and residual and writes the output.
  std::vector<vulkan::BufferAccess> partials, sums;
  for (uint32_t i = 0; i < count; ++i) {
    if ((dispatch.used_bindings >> i & 1u) == 0) continue;
    if (i == 0 || i == 1) partials.push_back({bindings[i], false});
    if (i == scratch) partials.push_back({bindings[i], true});
    if (i == 2 || i == 4 || i == scratch) sums.push_back({bindings[i], false});
    if (i == dispatch.output_binding) sums.push_back({bindings[i], true});
  }
  desc.accesses = partials;
  UNIVK_RETURN_IF_ERROR(recorder.dispatch(pool, desc));
  std::vector<uint32_t> sum_push = dispatch.push;
  sum_push.back() = 1;  // kGemmSplitPass, kConvSplitPass: the last word
  const std::string sum_label = std::string(label) + " (split-K sum)";
  desc.descriptors = {};
  desc.push_constants = {reinterpret_cast<const uint8_t*>(sum_push.data()), sum_push.size() * sizeof(uint32_t)};
  desc.accesses = sums;
  desc.label = sum_label;
  return recorder.dispatch_again(desc);
}

}  // namespace univk::kernels
