#include "univk/compiler/tosa_reference.h"

#include "univk/compiler/vgf_lowering.h"
#include "univk/spirv/tosa_graph_reference.h"

namespace univk::compiler {

Result<std::vector<HostTensor>> run_on_tosa_reference(const Graph& graph, std::span<const HostTensor> inputs) {
  std::vector<NodeId> nodes(graph.nodes().size());
  for (NodeId i = 0; i < nodes.size(); ++i) nodes[i] = i;
  UNIVK_ASSIGN_OR_RETURN(spirv::TosaGraph g, lower_to_tosa(graph, nodes, subgraph_io(graph, nodes)));
  return spirv::run_on_reference(g, inputs);
}

}  // namespace univk::compiler
