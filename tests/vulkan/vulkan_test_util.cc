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
  auto desc = ComputePipelineDesc::storage_buffers(spirv, static_cast<uint32_t>(buffers.size()),
                                                   push_constant_bytes, name);
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
  UNIVK_ASSIGN_OR_RETURN(ComputeJob job, ComputeJob::create(device, test_shaders::fill_spv(),
                                                            {{out.handle(), 0, out.size()}}, 8, "fill"));
  uint32_t params[2] = {base, n};
  UNIVK_RETURN_IF_ERROR(job.record(bytes_of(params), (n + 63) / 64));
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, job.submit());
  UNIVK_RETURN_IF_ERROR(device->queue().wait(value));
  const auto* values = static_cast<const uint32_t*>(out.mapped());
  for (uint32_t i = 0; i < n; ++i) {
    if (values[i] != base + i) {
      return internal_error("fill: element " + std::to_string(i) + " is " + std::to_string(values[i]) +
                            ", expected " + std::to_string(base + i));
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
