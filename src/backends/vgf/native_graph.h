// NativeGraph: one GRAPH segment of a VGF run as a VK_ARM_data_graph pipeline (the native path,
// docs/VGF_BACKEND.md), beside the lowered path's compute dispatches.
//
// create() builds, once per delegate: a shader module from the segment's SPIR-V; descriptor set
// layouts of VK_DESCRIPTOR_TYPE_TENSOR_ARM bindings from the segment's set_infos; the data-graph
// pipeline with one resource info per binding, described exactly as the VGF resource table has
// it (shape, format; the layer does not check descriptions against the module, so a mismatch is
// refused here), and every graph constant the module references, from the VGF constant section
// by GraphConstantID (checked first: a missing id aborts inside Arm's emulation layer); then a
// session with its transient memory bound.
// bind() makes the tensors of one recording: each binding's tensor is bound to the memory of
// the buffer range its resource lives in (the delegate's own buffers, or the method's tensors
// in fused mode), so data-graph dispatches and compute dispatches share bytes without copies.
// record() binds the pipeline and sets at the data-graph bind point and dispatches the session.
//
// Ownership: a NativeGraph owns its module, layouts, pipeline, session and session memory and
// holds a DeviceLease; a NativeGraphBinding owns its tensors, views and descriptor sets and
// borrows the memory it aliases, which the caller keeps alive while command buffers recorded
// with it may run. Destroy a binding's command buffers' work before the binding.
// Threading: none internal; the owning delegate serialises calls (delegate.h). A session serves
// one dispatch at a time, so command buffers recorded from one NativeGraph must not run at once
// (the delegate's recordings never do: the method waits for each).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"
#include "univk/vulkan/arm_dispatch.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/pipeline.h"
#include "univk/vulkan/registry.h"

namespace univk::backends::vgf {

// One tensor binding of the graph: which resource it is and whether the graph writes it.
struct NativeBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  uint32_t resource = 0;
  bool output = false;
};

class NativeGraphBinding;

// Whether a tensor with memory requirements `req` may alias `range`'s memory at the range's
// offset: the memory is set, its type is among req.memoryTypeBits, the offset meets
// req.alignment and the range holds req.size bytes. Unsupported naming `what` and the numbers
// otherwise (Internal when the range does not say its memory or memory type). Pure.
Status check_tensor_memory(const VkMemoryRequirements& req, const vulkan::BufferRange& range, const std::string& what);

class NativeGraph {
 public:
  // InvalidArgument for a module/resource-table mismatch or a missing graph constant (naming
  // them); Vulkan errors as returned by the driver or layer.
  static Result<std::unique_ptr<NativeGraph>> create(vulkan::DeviceLease device, const vulkan::DataGraphDispatch& arm,
                                                     const univk::vgf::VgfFile& file, size_t segment_index,
                                                     const spirv::TosaGraph& graph);
  ~NativeGraph();
  NativeGraph(const NativeGraph&) = delete;
  NativeGraph& operator=(const NativeGraph&) = delete;

  const std::vector<NativeBinding>& bindings() const { return bindings_; }
  // Tensors over `ranges[i]` for bindings()[i] (each range's memory must be set) and their
  // descriptor sets. Unsupported when a range's offset misses the tensor's memory alignment.
  Result<std::unique_ptr<NativeGraphBinding>> bind(std::span<const vulkan::BufferRange> ranges) const;
  void record(VkCommandBuffer cmd, const NativeGraphBinding& binding) const;

 private:
  NativeGraph() = default;
  Status create_pipeline(const univk::vgf::VgfFile& file, size_t segment_index, const spirv::TosaGraph& graph);
  Status create_session();

  vulkan::DeviceLease device_;
  vulkan::DataGraphDispatch arm_;
  std::string label_;
  std::vector<NativeBinding> bindings_;
  std::vector<std::vector<int64_t>> shapes_;        // per binding, TOSA order
  std::vector<VkFormat> formats_;                   // per binding
  std::vector<VkDescriptorSetLayout> set_layouts_;  // index = set number (empty sets included)
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  vulkan::arm::DataGraphPipelineSession session_ = nullptr;
  std::vector<std::pair<VkDeviceMemory, VkDeviceSize>> session_memory_;  // blocks and their sizes
};

class NativeGraphBinding {
 public:
  ~NativeGraphBinding();
  NativeGraphBinding(const NativeGraphBinding&) = delete;
  NativeGraphBinding& operator=(const NativeGraphBinding&) = delete;

 private:
  friend class NativeGraph;
  NativeGraphBinding() = default;
  vulkan::DeviceLease device_;
  vulkan::DataGraphDispatch arm_;
  std::vector<vulkan::arm::Tensor> tensors_;
  std::vector<vulkan::arm::TensorView> views_;
  vulkan::DescriptorPool pool_;
  std::vector<VkDescriptorSet> sets_;  // index = set number; VK_NULL_HANDLE for sets with no binding
};

}  // namespace univk::backends::vgf
