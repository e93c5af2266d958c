#include "univk/compiler/vulkan_lowering.h"

#include <map>

namespace univk::compiler {

Status vulkan_supports(const Graph& graph, const Node& node) {
  if (node.outputs.size() != 1) return unsupported("ops with several results");
  std::vector<backends::ComputeTensorType> inputs;
  for (ValueId in : node.inputs) inputs.push_back({graph.value(in).dtype, graph.value(in).shape});
  backends::ComputeTensorType result;
  UNIVK_RETURN_IF_ERROR(backends::vulkan_backend_check(node.op, node.attrs, inputs, &result));
  const Value& out = graph.value(node.outputs[0]);
  if (result.dtype != out.dtype || result.shape != out.shape) {
    return invalid_argument("the VulkanBackend computes " + std::string(dtype_name(result.dtype)) +
                            result.shape.to_string() + " where the graph says " + std::string(dtype_name(out.dtype)) +
                            out.shape.to_string());
  }
  return ok_status();
}

Result<backends::ComputeGraph> lower_to_compute_graph(const Graph& graph, std::span<const NodeId> nodes,
                                                      const SubgraphIO& io) {
  backends::ComputeGraph cg;
  std::map<ValueId, uint32_t> ids;
  auto value_id = [&](ValueId v) -> uint32_t {
    if (auto it = ids.find(v); it != ids.end()) return it->second;
    const Value& value = graph.value(v);
    backends::ComputeValue cv;
    cv.dtype = value.dtype;
    cv.shape = value.shape;
    if (value.kind == ValueKind::kConstant) {
      cv.constant.assign(value.constant->bytes().begin(), value.constant->bytes().end());
    }
    cg.values.push_back(std::move(cv));
    ids[v] = static_cast<uint32_t>(cg.values.size() - 1);
    return ids[v];
  };
  for (ValueId in : io.inputs) cg.inputs.push_back(value_id(in));
  for (NodeId n : nodes) {
    const Node& node = graph.node(n);
    backends::ComputeOp op;
    op.name = node.op;
    op.attrs = node.attrs;
    for (ValueId in : node.inputs) {
      const Value& v = graph.value(in);
      if (v.kind == ValueKind::kConstant && v.shape.numel() == 0) {
        return unsupported("vulkan lowering: node '" + node.name + "' reads the empty constant '" + v.name + "'");
      }
      op.inputs.push_back(value_id(in));
    }
    for (ValueId out : node.outputs) op.outputs.push_back(value_id(out));
    cg.ops.push_back(std::move(op));
  }
  for (ValueId out : io.outputs) cg.outputs.push_back(value_id(out));
  Status s = backends::validate_compute_graph(cg);
  if (!s.ok()) return s.with_context("vulkan lowering");
  return cg;
}

Result<std::vector<uint8_t>> lower_to_vulkan(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io) {
  UNIVK_ASSIGN_OR_RETURN(backends::ComputeGraph cg, lower_to_compute_graph(graph, nodes, io));
  auto bytes = backends::serialize_compute_graph(cg);
  if (!bytes.ok()) return bytes.status().with_context("vulkan lowering: serialize");
  return bytes;
}

}  // namespace univk::compiler
