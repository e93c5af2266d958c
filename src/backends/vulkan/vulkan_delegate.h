// VulkanDelegate: one initialised VulkanBackend delegate call.
//
// At init it takes the payload's PreparedGraph (plan, pipelines, constants; shared with every
// delegate running the same payload on the device) and creates its own intermediate arena
// (device-local). prepare_execute() (per_delegate mode) adds host-visible IO buffers and records
// the delegate's own command buffer once.
//
// Ownership: owns its arena, IO buffers, descriptor pools and command pool; shares the
// PreparedGraph; holds a lease on the Device. The destructor waits only for this delegate's own
// last submission.
// Thread safety: calls are serialised by the owning Method (delegate.h), so the delegate has no
// lock of its own; a caller driving it directly serialises its calls the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "prepared_graph.h"
#include "univk/backend/backend.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/pipeline.h"

namespace univk::backends::vulkan {

// The VulkanBackend's runtime options (vulkan_backend.cc parses them).
struct DelegateOptions {
  // Caps the device's maxStorageBufferRange (option `max_binding_bytes`).
  uint64_t max_binding_bytes = UINT64_MAX;
  // The library kernels' multiply precision (option `precision=fp32|fp16`, kernels/kernel.h).
  kernels::Precision precision = kernels::Precision::kFp32;
};

class VulkanDelegate final : public backend::Delegate {
 public:
  // `graph` is spec.payload parsed (VulkanBackend::prepare).
  static Result<std::unique_ptr<VulkanDelegate>> create(const backend::DelegateSpec& spec,
                                                        std::shared_ptr<const ComputeGraph> graph,
                                                        univk::vulkan::DeviceLease device,
                                                        const DelegateOptions& options = {});
  ~VulkanDelegate() override;

  const univk::vulkan::DeviceLease& device() const override { return device_; }
  Status prepare_execute() override;
  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs) override;
  Status record(VkCommandBuffer cmd, std::span<const backend::DeviceTensor> inputs,
                std::span<const backend::DeviceTensor> outputs) override;
  backend::ExecuteStats stats() const override;
  void set_gpu_timer(univk::vulkan::GpuTimer* timer) override { timer_ = timer; }

 private:
  explicit VulkanDelegate(univk::vulkan::DeviceLease device) : device_(std::move(device)) {}
  Status record_own_command_buffer();
  Result<univk::vulkan::DescriptorPool> make_descriptor_pool() const;
  const GraphPlan& plan() const { return prepared_->plan; }

  univk::vulkan::DeviceLease device_;
  std::vector<backend::TensorInfo> input_infos_, output_infos_;
  std::shared_ptr<const PreparedGraph> prepared_;
  univk::vulkan::Buffer arena_;
  std::vector<univk::vulkan::Buffer> input_buffers_, output_buffers_;  // per_delegate IO, host visible
  univk::vulkan::CommandPool command_pool_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;              // owned by command_pool_
  std::vector<univk::vulkan::DescriptorPool> descriptor_pools_;  // one per recording

  uint64_t last_submitted_ = 0;
  backend::ExecuteStats per_delegate_stats_;
  backend::ExecuteStats fused_stats_;
  bool fused_ = false;
  univk::vulkan::GpuTimer* timer_ = nullptr;  // borrowed (set_gpu_timer)
};

}  // namespace univk::backends::vulkan
