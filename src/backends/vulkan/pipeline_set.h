// The compute pipelines one plan uses: one per (shader, variant) pair and one per planned
// kernel-library variant (kernel, specialization), looked up by the recorder.
// Each comes from the device's pipeline cache (univk/vulkan/pipeline_cache.h), so every delegate
// on a device shares one pipeline per (shader, variant, push-constant size); holding them here
// keeps them alive as long as the plan.
// Holds shared_ptrs to the pipelines (each holds a shared_ptr to the Device); immutable.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "graph_plan.h"
#include "univk/vulkan/pipeline.h"

namespace univk::backends::vulkan {

class PipelineSet {
 public:
  static Result<PipelineSet> create(const std::shared_ptr<univk::vulkan::Device>& device, const GraphPlan& plan);
  // The pipeline of a dispatch of the plan it was created from; null for anything else.
  const univk::vulkan::ComputePipeline* find(const Dispatch& dispatch) const;

 private:
  // Key: {shader, variant} for this backend's shaders, {kShaderCount + kernel, specialization
  // values...} for library kernels.
  using Key = std::vector<uint32_t>;
  static Key key_of(const Dispatch& dispatch);
  std::map<Key, std::shared_ptr<const univk::vulkan::ComputePipeline>> pipelines_;
};

}  // namespace univk::backends::vulkan
