// JSON description of a VulkanBackend payload (a serialized ComputeGraph): its values with dtype
// and shape, and its operators with their attributes, in execution order.
#pragma once

#include "json_output.h"
#include "univk/backends/vulkan/compute_graph.h"

namespace univk::dump {

tools::Json compute_graph_json(const backends::ComputeGraph& graph);

}  // namespace univk::dump
