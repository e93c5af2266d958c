// VulkanDelegate: one initialised VulkanBackend delegate call.
//
// At init it plans the graph (graph_plan.h), creates its pipelines, the intermediate arena
// (device-local), the constant buffer (device-local, uploaded once through a staging buffer),
// host-visible IO buffers for per_delegate mode, and records its command buffer once.
//
// Ownership: owns every buffer, pipeline, descriptor pool and its command pool; holds a lease
// on the Device. The destructor waits only for this delegate's own last submission.
// Thread safety: execute() may be called from several threads; calls are serialized.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "graph_plan.h"
#include "pipeline_set.h"
#include "univk/runtime/backend.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/pipeline.h"

namespace univk::backends::detail {

class VulkanDelegate final : public runtime::Delegate {
 public:
  static Result<std::unique_ptr<VulkanDelegate>> create(const runtime::DelegateSpec& spec,
                                                        vulkan::DeviceLease device);
  ~VulkanDelegate() override;

  const vulkan::DeviceLease& device() const override { return device_; }
  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs) override;
  Status record(VkCommandBuffer cmd, std::span<const runtime::DeviceTensor> inputs,
                std::span<const runtime::DeviceTensor> outputs) override;
  runtime::ExecuteStats stats() const override;

 private:
  explicit VulkanDelegate(vulkan::DeviceLease device) : device_(std::move(device)) {}
  Status upload_constants(const ComputeGraph& graph);
  Status record_own_command_buffer();
  Result<vulkan::DescriptorPool> make_descriptor_pool() const;

  vulkan::DeviceLease device_;
  std::vector<runtime::TensorInfo> input_infos_, output_infos_;
  GraphPlan plan_;
  PipelineSet pipelines_;
  vulkan::Buffer arena_, constants_;
  std::vector<vulkan::Buffer> input_buffers_, output_buffers_;  // per_delegate IO, host visible
  vulkan::CommandPool command_pool_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;  // owned by command_pool_
  std::vector<vulkan::DescriptorPool> descriptor_pools_;  // one per recording

  mutable std::mutex mutex_;  // guards the fields below and execute()
  uint64_t last_submitted_ = 0;
  runtime::ExecuteStats per_delegate_stats_;
  runtime::ExecuteStats fused_stats_;
  bool fused_ = false;
};

}  // namespace univk::backends::detail
