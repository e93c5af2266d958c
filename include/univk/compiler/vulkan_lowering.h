// Lowering of a partition of the graph IR to a VulkanBackend payload: the nodes map one to one
// onto ComputeGraph ops (both use run_op's PyTorch names and attributes); the constants they
// read are embedded in the payload. In NHWC layout (a partition of layout_agnostic nodes only,
// see layouts.h) every value is given its [N,H,W,C] shape and constants are brought to rank 4
// and permuted, so the same ops compute the same elements in channels-last memory order.
//
// Ownership: the functions borrow the graph and return new values.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/base/status.h"
#include "univk/compiler/graph.h"
#include "univk/compiler/layouts.h"

namespace univk::compiler {

// ok when the VulkanBackend runs `node` with its attributes and input types and agrees with the
// graph on the result type; otherwise the backend's reason.
Status vulkan_supports(const Graph& graph, const Node& node);

Result<backends::ComputeGraph> lower_to_compute_graph(const Graph& graph, std::span<const NodeId> nodes,
                                                      const SubgraphIO& io,
                                                      TensorLayout layout = TensorLayout::kNatural);
// lower_to_compute_graph, serialized.
Result<std::vector<uint8_t>> lower_to_vulkan(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io,
                                             TensorLayout layout = TensorLayout::kNatural);

}  // namespace univk::compiler
