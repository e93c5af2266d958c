// Compute pipelines and descriptor sets. Pipelines go through the device's VkPipelineCache.
// On a device that enabled Feature::kPipelineExecutableInfo (VK_KHR_pipeline_executable_properties),
// pipelines are created with their compile statistics captured (ComputePipeline::statistics).
// ComputePipeline owns its VkPipeline, VkPipelineLayout and VkDescriptorSetLayouts;
// DescriptorPool owns its VkDescriptorPool (and so the sets allocated from it). Both hold a
// shared_ptr to the Device. Pipelines may be shared between delegates through the device's
// SharedObjectCache; each delegate owns its descriptor pools.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <volk.h>

#include "univk/base/status.h"
#include "univk/vulkan/buffer.h"

namespace univk::vulkan {

class Device;

struct SpecializationConstant {
  uint32_t id = 0;
  uint32_t value = 0;  // raw 32 bits: a float constant is passed as its bit pattern
};

struct DescriptorBinding {
  uint32_t binding = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
};

// One compile statistic the driver reports for a pipeline's executable (names and meanings are
// the driver's: NVIDIA reports e.g. register counts and local memory per invocation).
struct PipelineStatistic {
  std::string executable;  // the executable's name (one per shader stage for compute)
  std::string name;
  std::string description;
  std::string value;  // a number or a boolean, as text
};

struct ComputePipelineDesc {
  std::span<const uint32_t> spirv;
  std::string entry_point = "main";
  // sets[i] is the layout of descriptor set i.
  std::vector<std::vector<DescriptorBinding>> sets;
  uint32_t push_constant_bytes = 0;
  std::vector<SpecializationConstant> specialization;
  std::string debug_name;  // used in error messages

  // Set 0 with bindings 0..count-1, all storage buffers.
  static ComputePipelineDesc storage_buffers(std::span<const uint32_t> spirv, uint32_t count,
                                             uint32_t push_constant_bytes = 0, std::string debug_name = {});
};

class ComputePipeline {
 public:
  static Result<ComputePipeline> create(std::shared_ptr<Device> device, const ComputePipelineDesc& desc);
  ComputePipeline() = default;
  ComputePipeline(ComputePipeline&& other) noexcept;
  ComputePipeline& operator=(ComputePipeline&& other) noexcept;
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;
  ~ComputePipeline();

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  const std::vector<VkDescriptorSetLayout>& set_layouts() const { return set_layouts_; }

  // The driver's compile statistics of this pipeline; kUnsupported when the device did not
  // enable Feature::kPipelineExecutableInfo (the pipeline was then created without capturing
  // them). Thread-safe: reads the immutable pipeline only.
  Result<std::vector<PipelineStatistic>> statistics() const;

 private:
  void release();
  std::shared_ptr<Device> device_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts_;
};

class DescriptorPool {
 public:
  // Room for `max_sets` sets holding `storage_buffers` storage-buffer descriptors in total
  // (other descriptor types: `extra_sizes`).
  static Result<DescriptorPool> create(std::shared_ptr<Device> device, uint32_t max_sets, uint32_t storage_buffers,
                                       std::span<const VkDescriptorPoolSize> extra_sizes = {});
  DescriptorPool() = default;
  DescriptorPool(DescriptorPool&& other) noexcept;
  DescriptorPool& operator=(DescriptorPool&& other) noexcept;
  DescriptorPool(const DescriptorPool&) = delete;
  DescriptorPool& operator=(const DescriptorPool&) = delete;
  ~DescriptorPool();

  Result<VkDescriptorSet> allocate(VkDescriptorSetLayout layout);
  // Writes storage-buffer descriptors at bindings 0..ranges.size()-1 of `set`.
  void write_storage_buffers(VkDescriptorSet set, std::span<const BufferRange> ranges);

 private:
  void release();
  std::shared_ptr<Device> device_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
};

}  // namespace univk::vulkan
