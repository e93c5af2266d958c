#include "graph_checks.h"

#include "univk/reference/kernels.h"
#include "univk/reference/shape_rules.h"

namespace univk::compiler::detail {
namespace {

std::string describe_value(const Graph& graph, ValueId id) {
  const Value& v = graph.value(id);
  switch (v.kind) {
    case ValueKind::kInput:
      return "input '" + v.name + "'";
    case ValueKind::kConstant:
      return "constant '" + v.name + "'";
    case ValueKind::kNode:
      break;
  }
  const Node& n = graph.node(v.producer);
  return "node '" + n.name + "' (" + n.op + ") result";
}

Status check_node_shape(const Graph& graph, const Node& node) {
  if (!reference::is_supported_op(node.op)) return ok_status();
  std::vector<Shape> inputs;
  std::string input_shapes;
  for (ValueId in : node.inputs) {
    inputs.push_back(graph.value(in).shape);
    input_shapes += (input_shapes.empty() ? "" : ", ") + inputs.back().to_string();
  }
  const std::string where = "compile: node '" + node.name + "' (" + node.op + ") with inputs " + input_shapes;
  Result<Shape> computed = reference::infer_op_shape(node.op, node.attrs, inputs);
  if (!computed.ok()) return invalid_argument(where + ": " + computed.status().message());
  for (ValueId out : node.outputs) {
    if (graph.value(out).shape != *computed) {
      return invalid_argument(where + " declares the result shape " + graph.value(out).shape.to_string() +
                              ", but the op computes " + computed->to_string());
    }
  }
  return ok_status();
}

}  // namespace

Status check_graph(const Graph& graph) {
  for (ValueId id = 0; id < graph.values().size(); ++id) {
    const Shape& shape = graph.value(id).shape;
    if (shape.numel() == 0) {
      return invalid_argument("compile: " + describe_value(graph, id) + " has the zero-size shape " +
                              shape.to_string() + "; univk programs do not support empty tensors");
    }
  }
  for (const Node& node : graph.nodes()) UNIVK_RETURN_IF_ERROR(check_node_shape(graph, node));
  return ok_status();
}

}  // namespace univk::compiler::detail
