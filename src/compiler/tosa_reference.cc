#include "univk/compiler/tosa_reference.h"

#include <algorithm>
#include <string>

#include "univk/compiler/vgf_lowering.h"
#include "univk/reference/kernels.h"

namespace univk::compiler {

Result<std::vector<HostTensor>> run_on_tosa_reference(const Graph& graph, std::span<const HostTensor> inputs) {
  std::vector<NodeId> nodes(graph.nodes().size());
  for (NodeId i = 0; i < nodes.size(); ++i) nodes[i] = i;
  UNIVK_ASSIGN_OR_RETURN(spirv::TosaGraph g, lower_to_tosa(graph, nodes, subgraph_io(graph, nodes)));
  if (inputs.size() != g.inputs.size()) {
    return invalid_argument("the graph takes " + std::to_string(g.inputs.size()) + " inputs, got " +
                            std::to_string(inputs.size()));
  }
  std::vector<HostTensor> values(g.values.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const spirv::TosaTensorType& type = g.values[g.inputs[i].value].type;
    if (inputs[i].dtype() != type.dtype || inputs[i].shape() != Shape(type.shape)) {
      return invalid_argument("input " + std::to_string(i) + " is " + inputs[i].describe() + ", the graph takes " +
                              std::string(dtype_name(type.dtype)) + Shape(type.shape).to_string());
    }
    values[g.inputs[i].value] = inputs[i];
  }
  for (size_t v = 0; v < g.values.size(); ++v) {
    const spirv::TosaValue& tv = g.values[v];
    if (tv.kind != spirv::ValueKind::kConstant && tv.kind != spirv::ValueKind::kGraphConstant) continue;
    HostTensor t(tv.type.dtype, Shape(tv.type.shape));
    if (t.byte_size() != tv.data.size()) return internal_error("constant " + std::to_string(v) + " has a wrong size");
    std::copy(tv.data.begin(), tv.data.end(), t.bytes().begin());
    values[v] = std::move(t);
  }
  for (const spirv::TosaOperation& op : g.operations) {
    const std::string name(spirv::tosa_op_name(op.op));
    std::vector<HostTensor> in;
    for (auto id : op.inputs) in.push_back(values[id]);
    Result<std::vector<HostTensor>> out = reference::run_tosa(name, op.attrs, in);
    if (!out.ok()) return out.status().with_context(name + " " + op.attrs.to_string());
    if (out->size() != op.outputs.size()) {
      return internal_error(name + " gave " + std::to_string(out->size()) + " results, the graph has " +
                            std::to_string(op.outputs.size()));
    }
    for (size_t k = 0; k < op.outputs.size(); ++k) values[op.outputs[k]] = std::move((*out)[k]);
  }
  std::vector<HostTensor> outputs;
  for (const auto& b : g.outputs) outputs.push_back(values[b.value]);
  return outputs;
}

}  // namespace univk::compiler
