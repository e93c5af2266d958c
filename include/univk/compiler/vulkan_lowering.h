// Lowering of a partition of the graph IR to a VulkanBackend payload: the nodes map one to one
// onto ComputeGraph ops (both use run_op's PyTorch names and attributes); the constants they
// read are embedded in the payload.
//
// Ownership: the functions borrow the graph and return new values.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/base/status.h"
#include "univk/compiler/graph.h"

namespace univk::compiler {

// ok when the VulkanBackend runs `node` with its attributes and input types and agrees with the
// graph on the result type; otherwise the backend's reason.
Status vulkan_supports(const Graph& graph, const Node& node);

Result<backends::ComputeGraph> lower_to_compute_graph(const Graph& graph, std::span<const NodeId> nodes,
                                                      const SubgraphIO& io);
// lower_to_compute_graph, serialized.
Result<std::vector<uint8_t>> lower_to_vulkan(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io);

}  // namespace univk::compiler
