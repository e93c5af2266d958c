#include "floors.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "gpu_timing.h"
#include "operand_fill.h"
#include "univk_bench_floors_shaders.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/pipeline.h"
#include "univk/vulkan/queue.h"

namespace univk::bench {

bool warming_up(const RepeatCounts& counts, int i, std::chrono::steady_clock::time_point start) {
  if (i < counts.warmup) return true;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() <
         counts.min_warmup_ms;
}

namespace {

// GPU time of one dispatch of `spirv` over `buffers` (bindings 0..n-1) with one push-constant
// word: the shader floors (copy, FMA) are all this shape.
Result<Summary> time_one_dispatch(const vulkan::DeviceLease& device, RepeatCounts counts,
                                  std::span<const uint32_t> spirv, const char* name,
                                  std::span<const vulkan::BufferRange> buffers, uint32_t push_word, uint32_t groups) {
  const uint32_t bindings = static_cast<uint32_t>(buffers.size());
  UNIVK_ASSIGN_OR_RETURN(auto pipeline,
                         vulkan::ComputePipeline::create(device, vulkan::ComputePipelineDesc::storage_buffers(
                                                                     spirv, bindings, sizeof(uint32_t), name)));
  UNIVK_ASSIGN_OR_RETURN(auto descriptors, vulkan::DescriptorPool::create(device, 1, bindings));
  UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, descriptors.allocate(pipeline.set_layouts()[0]));
  descriptors.write_storage_buffers(set, buffers);
  const VolkDeviceTable& vk = device->vk();
  UNIVK_ASSIGN_OR_RETURN(
      auto times, time_work(device, counts, [&](VkCommandBuffer cmd) {
        vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
        vk.vkCmdPushConstants(cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push_word), &push_word);
        vk.vkCmdDispatch(cmd, groups, 1, 1);
      }));
  return times.first;
}

double copy_rate(uint64_t bytes, const Summary& ns) {
  return ns.p50 > 0 ? 2.0 * static_cast<double>(bytes) / (ns.p50 * 1e-9) : 0.0;
}

}  // namespace

double CopyFloor::transfer_bytes_per_second() const { return copy_rate(bytes, gpu_ns); }
double CopyFloor::shader_bytes_per_second() const { return copy_rate(shader_bytes, shader_gpu_ns); }
double CopyFloor::bytes_per_second() const { return std::max(transfer_bytes_per_second(), shader_bytes_per_second()); }

Result<Summary> measure_round_trip(const vulkan::DeviceLease& device, RepeatCounts counts) {
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  std::vector<double> samples;
  for (int i = 0; i < counts.warmup + counts.iterations; ++i) {
    UNIVK_ASSIGN_OR_RETURN(const double ns, submit_and_wait(device->queue(), cmd));
    if (i >= counts.warmup) samples.push_back(ns);
  }
  return summarize(std::move(samples));
}

Result<DispatchFloor> measure_dispatches(const vulkan::DeviceLease& device, uint32_t dispatches, RepeatCounts counts) {
  constexpr uint64_t kBytes = 64 * sizeof(uint32_t);  // one workgroup of touch.comp
  UNIVK_ASSIGN_OR_RETURN(auto out, vulkan::Buffer::create(device, kBytes, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(auto pipeline,
                         vulkan::ComputePipeline::create(device, vulkan::ComputePipelineDesc::storage_buffers(
                                                                     shaders::touch_spv(), 1, 0, "dispatch floor")));
  UNIVK_ASSIGN_OR_RETURN(auto descriptors, vulkan::DescriptorPool::create(device, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, descriptors.allocate(pipeline.set_layouts()[0]));
  const vulkan::BufferRange range{out.handle(), 0, kBytes};
  descriptors.write_storage_buffers(set, std::span<const vulkan::BufferRange>(&range, 1));
  const VolkDeviceTable& vk = device->vk();
  UNIVK_ASSIGN_OR_RETURN(auto times, time_work(device, counts, [&](VkCommandBuffer cmd) {
                           vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
                           vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1,
                                                      &set, 0, nullptr);
                           for (uint32_t d = 0; d < dispatches; ++d) {
                             if (d > 0) vulkan::record_full_barrier(*device, cmd);
                             vk.vkCmdDispatch(cmd, 1, 1, 1);
                           }
                         }));
  DispatchFloor floor;
  floor.dispatches = dispatches;
  floor.gpu_ns = times.first;
  floor.host_ns = times.second;
  return floor;
}

Result<CopyFloor> measure_copy(const vulkan::DeviceLease& device, uint64_t bytes, RepeatCounts counts) {
  bytes = bytes / 16 * 16;
  if (bytes == 0) return invalid_argument("copy floor: less than 16 bytes");
  UNIVK_ASSIGN_OR_RETURN(auto src, vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(auto dst, vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kDeviceLocal));

  CopyFloor floor;
  floor.bytes = bytes;
  UNIVK_ASSIGN_OR_RETURN(auto transfer, time_work(device, counts, [&](VkCommandBuffer cmd) {
                           vulkan::record_copy(*device, cmd, {src.handle(), 0, bytes}, {dst.handle(), 0, bytes});
                         }));
  floor.gpu_ns = transfer.first;
  floor.host_ns = transfer.second;

  // One binding covers at most maxStorageBufferRange bytes (lavapipe: 128 MiB).
  floor.shader_bytes = std::min<uint64_t>(bytes, device->properties().limits.maxStorageBufferRange) / 16 * 16;
  const uint64_t elements = floor.shader_bytes / 16;
  const vulkan::BufferRange ranges[] = {{src.handle(), 0, floor.shader_bytes}, {dst.handle(), 0, floor.shader_bytes}};
  const uint32_t groups = static_cast<uint32_t>(
      std::min<uint64_t>({(elements + 255) / 256, 65535, device->properties().limits.maxComputeWorkGroupCount[0]}));
  UNIVK_ASSIGN_OR_RETURN(floor.shader_gpu_ns,
                         time_one_dispatch(device, counts, shaders::copy_vec4_spv(), "shader copy floor", ranges,
                                           static_cast<uint32_t>(elements), groups));
  return floor;
}

double FmaFloor::flops_per_second() const { return gpu_ns.p50 > 0 ? flop / (gpu_ns.p50 * 1e-9) : 0.0; }

Result<FmaFloor> measure_fma_peak(const vulkan::DeviceLease& device, RepeatCounts counts) {
  const bool cpu = device->properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const uint32_t groups = cpu ? 8 : 8192, iterations = cpu ? 256 : 2048;
  const uint64_t invocations = uint64_t{groups} * 256;
  UNIVK_ASSIGN_OR_RETURN(auto out, vulkan::Buffer::create(device, invocations * 16, vulkan::MemoryKind::kDeviceLocal));
  const vulkan::BufferRange range{out.handle(), 0, invocations * 16};
  FmaFloor floor;
  floor.flop = static_cast<double>(invocations) * iterations * 8 * 4 * 2;
  UNIVK_ASSIGN_OR_RETURN(floor.gpu_ns,
                         time_one_dispatch(device, counts, shaders::fma_peak_spv(), "fma floor",
                                           std::span<const vulkan::BufferRange>(&range, 1), iterations, groups));
  return floor;
}

vulkan::DeviceRequirements coopmat_floor_requirements() {
  vulkan::DeviceRequirements r;
  r.optional_extensions.insert(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  for (vulkan::Feature f : {vulkan::Feature::kCooperativeMatrixNV, vulkan::Feature::kShaderFloat16,
                            vulkan::Feature::kStorageBuffer16BitAccess, vulkan::Feature::kVulkanMemoryModel}) {
    r.optional_features.insert(f);
  }
  return r;
}

Result<FmaFloor> measure_coopmat_peak(const vulkan::DeviceLease& device, RepeatCounts counts) {
  const auto& enabled = device->enabled();
  if (!enabled.lists_cooperative_matrix_f16() || enabled.subgroup_size != 32 ||
      !device->has(vulkan::Feature::kShaderFloat16) || !device->has(vulkan::Feature::kStorageBuffer16BitAccess) ||
      !device->has(vulkan::Feature::kVulkanMemoryModel)) {
    return unsupported("the device has no NV cooperative matrices for fp16 (16x16x16, subgroups of 32)");
  }
  // 8 subgroups of 32 per workgroup, each storing 4 16x16 fp32 accumulators.
  const uint32_t groups = 2048, iterations = 4096;
  const uint64_t out_bytes = uint64_t{groups} * 8 * 4 * 256 * sizeof(float);
  UNIVK_ASSIGN_OR_RETURN(auto data, vulkan::Buffer::create(device, 1024, vulkan::MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(auto out, vulkan::Buffer::create(device, out_bytes, vulkan::MemoryKind::kDeviceLocal));
  const vulkan::BufferRange ranges[] = {{data.handle(), 0, 1024}, {out.handle(), 0, out_bytes}};
  // Random operands, as the kernels measured against this floor multiply (operand_fill.h).
  UNIVK_RETURN_IF_ERROR(fill_uniform(device, ranges[0], 1, FillFormat::kFloat16));
  FmaFloor floor;
  floor.flop = double(groups) * 8 * iterations * 4 * (2.0 * 16 * 16 * 16);
  UNIVK_ASSIGN_OR_RETURN(floor.gpu_ns, time_one_dispatch(device, counts, shaders::coopmat_peak_spv(), "coopmat floor",
                                                         ranges, iterations, groups));
  return floor;
}

}  // namespace univk::bench
