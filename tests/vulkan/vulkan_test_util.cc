#include "vulkan_test_util.h"

namespace univk::vulkan::testing {

RuntimeConfig test_config() {
  RuntimeConfig config = RuntimeConfig::from_environment();
  config.enable_validation = true;
  return config;
}

Result<ComputeJob> ComputeJob::create(DeviceLease device, std::span<const uint32_t> spirv,
                                      const std::vector<BufferRange>& buffers, uint32_t push_constant_bytes,
                                      const std::string& name) {
  ComputeJob job;
  job.device = device;
  auto desc =
      ComputePipelineDesc::storage_buffers(spirv, static_cast<uint32_t>(buffers.size()), push_constant_bytes, name);
  UNIVK_ASSIGN_OR_RETURN(job.pipeline, ComputePipeline::create(device, desc));
  UNIVK_ASSIGN_OR_RETURN(job.descriptors, DescriptorPool::create(device, 1, static_cast<uint32_t>(buffers.size())));
  UNIVK_ASSIGN_OR_RETURN(job.set, job.descriptors.allocate(job.pipeline.set_layouts()[0]));
  job.descriptors.write_storage_buffers(job.set, buffers);
  UNIVK_ASSIGN_OR_RETURN(job.commands, CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(job.cmd, job.commands.allocate());
  return job;
}

Status ComputeJob::record(std::span<const uint8_t> push_constants, uint32_t groups) {
  const VolkDeviceTable& vk = device->vk();
  UNIVK_RETURN_IF_ERROR(begin_command_buffer(*device, cmd));
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
  if (!push_constants.empty()) {
    vk.vkCmdPushConstants(cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          static_cast<uint32_t>(push_constants.size()), push_constants.data());
  }
  vk.vkCmdDispatch(cmd, groups, 1, 1);
  record_host_read_barrier(*device, cmd);
  return end_command_buffer(*device, cmd);
}

Status run_fill_check(const DeviceLease& device, uint32_t n, uint32_t base) {
  UNIVK_ASSIGN_OR_RETURN(Buffer out, Buffer::create(device, n * sizeof(uint32_t), MemoryKind::kHostVisible));
  UNIVK_ASSIGN_OR_RETURN(
      ComputeJob job, ComputeJob::create(device, test_shaders::fill_spv(), {{out.handle(), 0, out.size()}}, 8, "fill"));
  uint32_t params[2] = {base, n};
  UNIVK_RETURN_IF_ERROR(job.record(bytes_of(params), (n + 63) / 64));
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, job.submit());
  UNIVK_RETURN_IF_ERROR(device->queue().wait(value));
  const auto* values = static_cast<const uint32_t*>(out.mapped());
  for (uint32_t i = 0; i < n; ++i) {
    if (values[i] != base + i) {
      return internal_error("fill: element " + std::to_string(i) + " is " + std::to_string(values[i]) + ", expected " +
                            std::to_string(base + i));
    }
  }
  return ok_status();
}

Status run_staged_scale_add_check(const DeviceLease& device, uint32_t n) {
  const VkDeviceSize bytes = n * sizeof(float);
  UNIVK_ASSIGN_OR_RETURN(Buffer staging, Buffer::create(device, bytes, MemoryKind::kHostVisible));
  UNIVK_ASSIGN_OR_RETURN(Buffer in, Buffer::create(device, bytes, MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(Buffer out, Buffer::create(device, bytes, MemoryKind::kDeviceLocal));
  UNIVK_ASSIGN_OR_RETURN(Buffer readback, Buffer::create(device, bytes, MemoryKind::kHostVisible));
  auto* x = static_cast<float*>(staging.mapped());
  for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 17) - 3.0f;

  UNIVK_ASSIGN_OR_RETURN(ComputeJob job,
                         ComputeJob::create(device, test_shaders::scale_add_spv(),
                                            {{in.handle(), 0, bytes}, {out.handle(), 0, bytes}}, 12, "scale_add"));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer upload, job.commands.allocate());
  UNIVK_RETURN_IF_ERROR(begin_command_buffer(*device, upload));
  record_copy(*device, upload, {staging.handle(), 0, bytes}, {in.handle(), 0, bytes});
  UNIVK_RETURN_IF_ERROR(end_command_buffer(*device, upload));

  const VolkDeviceTable& vk = device->vk();
  VkCommandBuffer cmd = job.cmd;
  UNIVK_RETURN_IF_ERROR(begin_command_buffer(*device, cmd));
  record_buffer_barrier(*device, cmd, {in.handle(), 0, bytes}, VK_PIPELINE_STAGE_2_COPY_BIT,
                        VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, job.pipeline.handle());
  vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, job.pipeline.layout(), 0, 1, &job.set, 0, nullptr);
  struct {
    float a;
    float b;
    uint32_t n;
  } params{-2.0f, 1.0f, n};
  vk.vkCmdPushConstants(cmd, job.pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), &params);
  vk.vkCmdDispatch(cmd, (n + 63) / 64, 1, 1);
  record_full_barrier(*device, cmd);
  record_copy(*device, cmd, {out.handle(), 0, bytes}, {readback.handle(), 0, bytes});
  record_host_read_barrier(*device, cmd);
  UNIVK_RETURN_IF_ERROR(end_command_buffer(*device, cmd));

  Queue& queue = device->queue();
  UNIVK_ASSIGN_OR_RETURN(uint64_t uploaded, queue.submit({&upload, 1}));
  UNIVK_ASSIGN_OR_RETURN(uint64_t done, queue.submit({&cmd, 1}, uploaded));
  UNIVK_RETURN_IF_ERROR(queue.wait(done));
  const auto* y = static_cast<const float*>(readback.mapped());
  for (uint32_t i = 0; i < n; ++i) {
    if (y[i] != x[i] * -2.0f + 1.0f) {
      return internal_error("scale_add: element " + std::to_string(i) + " is " + std::to_string(y[i]) + ", expected " +
                            std::to_string(x[i] * -2.0f + 1.0f));
    }
  }
  return ok_status();
}

uint32_t lcg_iterate(uint32_t x, uint32_t iterations) {
  // Compose the affine map f(x) = a*x + c with itself by squaring: f^2k = f^k o f^k.
  uint32_t a = 1664525u, c = 1013904223u;
  uint32_t acc_a = 1u, acc_c = 0u;  // identity
  for (uint32_t n = iterations; n != 0; n >>= 1) {
    if (n & 1u) {
      acc_c = a * acc_c + c;  // acc = f o acc
      acc_a = a * acc_a;
    }
    c = a * c + c;  // f = f o f
    a = a * a;
  }
  return acc_a * x + acc_c;
}

}  // namespace univk::vulkan::testing
