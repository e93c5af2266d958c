// The compiler's graph IR: a list of operators in topological order over typed values, with
// PyTorch semantics. Op names and attribute names are those of univk::reference::run_op
// (docs/OPERATORS.md): "conv2d" with stride/padding/dilation/groups, "add" with alpha/other,
// "mean" with dim/keepdim, ...
//
// Ownership: a Graph owns its values, nodes and constant tensors. Ids are indices into
// values()/nodes() and stay valid while the graph lives (nothing is ever removed).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"
#include "univk/tensor/tensor.h"

namespace univk::compiler {

using ValueId = uint32_t;
using NodeId = uint32_t;

enum class ValueKind : uint8_t { kInput, kConstant, kNode };

struct Value {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;
  ValueKind kind = ValueKind::kNode;
  std::optional<HostTensor> constant;  // kConstant: the data (dtype/shape equal the value's)
  NodeId producer = 0;                 // kNode
};

struct Node {
  std::string name;  // unique within the graph, e.g. the torch.fx node name "conv2d_1"
  std::string op;    // PyTorch-semantics op name, e.g. "avg_pool2d"
  Attributes attrs;
  std::vector<ValueId> inputs;   // tensor operands (constants included), in run_op order
  std::vector<ValueId> outputs;  // exactly one for the ops univk lowers
};

class Graph {
 public:
  // Each builder checks its arguments (known ids, unique names) and returns the new id.
  Result<ValueId> add_input(std::string name, DType dtype, Shape shape);
  Result<ValueId> add_constant(std::string name, HostTensor data);
  // Appends an operator whose single result has `dtype`/`shape` (given by the front end, e.g.
  // from torch.fx shape propagation). Inputs must already exist: nodes are in topological order.
  Result<ValueId> add_node(std::string name, std::string op, Attributes attrs, std::vector<ValueId> inputs, DType dtype,
                           Shape shape);
  // Like add_node, with the result type computed by running the CPU reference kernel on zero
  // tensors of the input shapes (convenient for hand-built graphs; slow for large tensors).
  Result<ValueId> add_node_inferred(std::string name, std::string op, Attributes attrs, std::vector<ValueId> inputs);
  Status add_output(ValueId value);

  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const Value& value(ValueId id) const { return values_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }

  // Nodes reading each value (index = ValueId), in node order.
  std::vector<std::vector<NodeId>> users() const;
  std::string describe() const;  // one line per node, for logs and error messages

 private:
  Status check_new_name(const std::string& name) const;
  Status check_value(ValueId id, const std::string& context) const;

  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
};

// The interface of a set of nodes (a partition): `inputs` are the non-constant values the
// nodes read but do not produce (in order of first use); `outputs` are the values they produce
// that a node outside the set or the graph's outputs read (in production order). Constants are
// not inputs: a delegate payload embeds the constants its nodes use.
struct SubgraphIO {
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
};
SubgraphIO subgraph_io(const Graph& graph, std::span<const NodeId> nodes);

}  // namespace univk::compiler
