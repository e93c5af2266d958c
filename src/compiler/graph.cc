#include "univk/compiler/graph.h"

#include <sstream>

#include "univk/reference/kernels.h"

namespace univk::compiler {

Status Graph::check_new_name(const std::string& name) const {
  if (name.empty()) return invalid_argument("graph: empty value name");
  for (const Value& v : values_) {
    if (v.name == name) return invalid_argument("graph: duplicate name '" + name + "'");
  }
  return ok_status();
}

Status Graph::check_value(ValueId id, const std::string& context) const {
  if (id >= values_.size()) {
    return invalid_argument("graph: " + context + ": value id " + std::to_string(id) + " out of range (" +
                            std::to_string(values_.size()) + " values)");
  }
  return ok_status();
}

Result<ValueId> Graph::add_input(std::string name, DType dtype, Shape shape) {
  UNIVK_RETURN_IF_ERROR(check_new_name(name));
  UNIVK_RETURN_IF_ERROR(Shape::checked(shape.dims()).status());
  Value v;
  v.name = std::move(name);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.kind = ValueKind::kInput;
  values_.push_back(std::move(v));
  inputs_.push_back(static_cast<ValueId>(values_.size() - 1));
  return inputs_.back();
}

Result<ValueId> Graph::add_constant(std::string name, HostTensor data) {
  UNIVK_RETURN_IF_ERROR(check_new_name(name));
  Value v;
  v.name = std::move(name);
  v.dtype = data.dtype();
  v.shape = data.shape();
  v.kind = ValueKind::kConstant;
  v.constant = std::move(data);
  values_.push_back(std::move(v));
  return static_cast<ValueId>(values_.size() - 1);
}

Result<ValueId> Graph::add_node(std::string name, std::string op, Attributes attrs, std::vector<ValueId> inputs,
                                DType dtype, Shape shape) {
  UNIVK_RETURN_IF_ERROR(check_new_name(name));
  if (op.empty()) return invalid_argument("graph: node '" + name + "' has no op name");
  for (ValueId in : inputs) UNIVK_RETURN_IF_ERROR(check_value(in, "node '" + name + "' input"));
  UNIVK_RETURN_IF_ERROR(Shape::checked(shape.dims()).status().with_context("graph: node '" + name + "'"));
  Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.kind = ValueKind::kNode;
  v.producer = static_cast<NodeId>(nodes_.size());
  values_.push_back(std::move(v));
  Node n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.attrs = std::move(attrs);
  n.inputs = std::move(inputs);
  n.outputs = {static_cast<ValueId>(values_.size() - 1)};
  nodes_.push_back(std::move(n));
  return nodes_.back().outputs[0];
}

Result<ValueId> Graph::add_node_inferred(std::string name, std::string op, Attributes attrs,
                                         std::vector<ValueId> inputs) {
  std::vector<HostTensor> zeros;
  for (ValueId in : inputs) {
    UNIVK_RETURN_IF_ERROR(check_value(in, "node '" + name + "' input"));
    const Value& v = values_[in];
    zeros.push_back(v.constant ? *v.constant : HostTensor(v.dtype, v.shape));
  }
  auto result = reference::run_op(op, attrs, zeros);
  if (!result.ok()) return result.status().with_context("graph: node '" + name + "': shape inference");
  if (result->size() != 1) {
    return unsupported("graph: node '" + name + "': op '" + op + "' has " + std::to_string(result->size()) +
                       " results; only single-result ops are supported");
  }
  const HostTensor& out = (*result)[0];
  return add_node(std::move(name), std::move(op), std::move(attrs), std::move(inputs), out.dtype(), out.shape());
}

Status Graph::add_output(ValueId value) {
  UNIVK_RETURN_IF_ERROR(check_value(value, "output"));
  outputs_.push_back(value);
  return ok_status();
}

std::vector<std::vector<NodeId>> Graph::users() const {
  std::vector<std::vector<NodeId>> result(values_.size());
  for (NodeId n = 0; n < nodes_.size(); ++n) {
    for (ValueId in : nodes_[n].inputs) {
      if (result[in].empty() || result[in].back() != n) result[in].push_back(n);
    }
  }
  return result;
}

std::string Graph::describe() const {
  std::ostringstream out;
  for (ValueId in : inputs_) {
    out << "input " << values_[in].name << ": " << dtype_name(values_[in].dtype) << values_[in].shape.to_string()
        << "\n";
  }
  for (const Node& n : nodes_) {
    const Value& r = values_[n.outputs[0]];
    out << r.name << ": " << dtype_name(r.dtype) << r.shape.to_string() << " = " << n.op << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) out << (i ? ", " : "") << values_[n.inputs[i]].name;
    out << ") " << n.attrs.to_string() << "\n";
  }
  out << "outputs:";
  for (ValueId o : outputs_) out << " " << values_[o].name;
  out << "\n";
  return out.str();
}

SubgraphIO subgraph_io(const Graph& graph, std::span<const NodeId> nodes) {
  std::vector<bool> inside(graph.nodes().size(), false);
  for (NodeId n : nodes) inside[n] = true;
  std::vector<bool> produced(graph.values().size(), false), listed(graph.values().size(), false);
  SubgraphIO io;
  for (NodeId n : nodes) {
    for (ValueId in : graph.node(n).inputs) {
      const Value& v = graph.value(in);
      if (v.kind == ValueKind::kConstant || produced[in] || listed[in]) continue;
      listed[in] = true;
      io.inputs.push_back(in);
    }
    for (ValueId out : graph.node(n).outputs) produced[out] = true;
  }
  std::vector<bool> needed(graph.values().size(), false);
  for (ValueId out : graph.outputs()) needed[out] = true;
  for (NodeId n = 0; n < graph.nodes().size(); ++n) {
    if (inside[n]) continue;
    for (ValueId in : graph.node(n).inputs) needed[in] = true;
  }
  for (NodeId n : nodes) {
    for (ValueId out : graph.node(n).outputs) {
      if (needed[out]) io.outputs.push_back(out);
    }
  }
  return io;
}

}  // namespace univk::compiler
