#include "univk/compiler/vulkan_lowering.h"

#include <map>

#include "permute.h"

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

namespace {

// A constant in NHWC: brought to rank 4 (broadcasting aligns trailing dims) and permuted.
Result<HostTensor> nhwc_constant(const HostTensor& t) {
  std::vector<int64_t> dims(4 - t.shape().rank(), 1);
  dims.insert(dims.end(), t.shape().dims().begin(), t.shape().dims().end());
  UNIVK_ASSIGN_OR_RETURN(HostTensor r, t.reshaped(Shape(dims)));
  return detail::permute_tensor(r, detail::kToNhwc);
}

}  // namespace

Result<backends::ComputeGraph> lower_to_compute_graph(const Graph& graph, std::span<const NodeId> nodes,
                                                      const SubgraphIO& io, TensorLayout layout) {
  const bool nhwc = layout == TensorLayout::kNhwc;
  if (nhwc) {
    for (NodeId n : nodes) {
      if (!layout_agnostic(graph, graph.node(n))) {
        return invalid_argument("vulkan lowering: node '" + graph.node(n).name + "' (" + graph.node(n).op +
                                ") cannot run in NHWC layout");
      }
    }
  }
  backends::ComputeGraph cg;
  std::map<ValueId, uint32_t> ids;
  auto value_id = [&](ValueId v) -> Result<uint32_t> {
    if (auto it = ids.find(v); it != ids.end()) return it->second;
    const Value& value = graph.value(v);
    backends::ComputeValue cv;
    cv.dtype = value.dtype;
    cv.shape = nhwc && value.kind != ValueKind::kConstant ? Shape(detail::permuted(value.shape.dims(), detail::kToNhwc))
                                                          : value.shape;
    if (value.kind == ValueKind::kConstant) {
      const HostTensor* bytes = &*value.constant;
      HostTensor permuted;
      if (nhwc) {
        UNIVK_ASSIGN_OR_RETURN(permuted, nhwc_constant(*value.constant));
        cv.shape = permuted.shape();
        bytes = &permuted;
      }
      cv.constant.assign(bytes->bytes().begin(), bytes->bytes().end());
    }
    cg.values.push_back(std::move(cv));
    ids[v] = static_cast<uint32_t>(cg.values.size() - 1);
    return ids[v];
  };
  for (ValueId in : io.inputs) {
    UNIVK_ASSIGN_OR_RETURN(uint32_t id, value_id(in));
    cg.inputs.push_back(id);
  }
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
      UNIVK_ASSIGN_OR_RETURN(uint32_t id, value_id(in));
      op.inputs.push_back(id);
    }
    for (ValueId out : node.outputs) {
      UNIVK_ASSIGN_OR_RETURN(uint32_t id, value_id(out));
      op.outputs.push_back(id);
    }
    cg.ops.push_back(std::move(op));
  }
  for (ValueId out : io.outputs) {
    UNIVK_ASSIGN_OR_RETURN(uint32_t id, value_id(out));
    cg.outputs.push_back(id);
  }
  Status s = backends::validate_compute_graph(cg);
  if (!s.ok()) return s.with_context("vulkan lowering");
  return cg;
}

Result<std::vector<uint8_t>> lower_to_vulkan(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io,
                                             TensorLayout layout) {
  UNIVK_ASSIGN_OR_RETURN(backends::ComputeGraph cg, lower_to_compute_graph(graph, nodes, io, layout));
  auto bytes = backends::serialize_compute_graph(cg);
  if (!bytes.ok()) return bytes.status().with_context("vulkan lowering: serialize");
  return bytes;
}

}  // namespace univk::compiler
