// The compute pipelines one delegate uses: one per (shader, variant) pair of its plan.
// Owns the pipelines (each holds a shared_ptr to the Device).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "graph_plan.h"
#include "univk/vulkan/pipeline.h"

namespace univk::backends::detail {

class PipelineSet {
 public:
  static Result<PipelineSet> create(std::shared_ptr<vulkan::Device> device, const GraphPlan& plan);
  // The pipeline of a dispatch of the plan it was created from; null for anything else.
  const vulkan::ComputePipeline* find(const Dispatch& dispatch) const;

 private:
  std::map<std::pair<Shader, uint32_t>, vulkan::ComputePipeline> pipelines_;
};

}  // namespace univk::backends::detail
