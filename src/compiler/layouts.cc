#include "univk/compiler/layouts.h"

#include <algorithm>
#include <optional>

#include "univk/ops/torch_ops.h"

namespace univk::compiler {
namespace {

bool is_elementwise(const std::string& op) {
  auto named = [&](std::span<const std::string_view> names) {
    return std::find(names.begin(), names.end(), op) != names.end();
  };
  return named(ops::unary_op_names()) || named(ops::binary_op_names());
}

enum class Side : uint8_t { kVgf, kVulkan, kOther };

// Who produces and who reads each value, by partition index.
struct Uses {
  std::vector<std::optional<size_t>> producer;  // per value: the partition of its node, if any
  std::vector<std::vector<size_t>> readers;     // per value: partitions other than the producer's
  std::vector<bool> graph_output;
};

Uses find_uses(const Graph& graph, const PartitionResult& partition) {
  Uses u;
  u.producer.resize(graph.values().size());
  u.readers.resize(graph.values().size());
  u.graph_output.resize(graph.values().size(), false);
  for (ValueId v : graph.outputs()) u.graph_output[v] = true;
  for (size_t p = 0; p < partition.partitions.size(); ++p) {
    for (NodeId n : partition.partitions[p].nodes) {
      for (ValueId out : graph.node(n).outputs) u.producer[out] = p;
    }
  }
  for (size_t p = 0; p < partition.partitions.size(); ++p) {
    for (NodeId n : partition.partitions[p].nodes) {
      for (ValueId in : graph.node(n).inputs) {
        std::vector<size_t>& r = u.readers[in];
        if (u.producer[in] != p && std::find(r.begin(), r.end(), p) == r.end()) r.push_back(p);
      }
    }
  }
  return u;
}

}  // namespace

bool layout_agnostic(const Graph& graph, const Node& node) {
  if (!is_elementwise(node.op) || node.outputs.size() != 1) return false;
  if (graph.value(node.outputs[0]).shape.rank() != 4) return false;
  for (ValueId in : node.inputs) {
    const Value& v = graph.value(in);
    if (v.kind == ValueKind::kConstant ? v.shape.rank() > 4 : v.shape.rank() != 4) return false;
  }
  return true;
}

LayoutPlan plan_layouts(const Graph& graph, const PartitionResult& partition) {
  const size_t n_parts = partition.partitions.size();
  const Uses uses = find_uses(graph, partition);
  std::vector<Side> side(n_parts, Side::kOther);
  LayoutPlan plan;
  plan.nhwc_partition.assign(n_parts, false);
  plan.value_rule.assign(graph.values().size(), OutputLayout::kNatural);
  for (size_t p = 0; p < n_parts; ++p) {
    const Partition& part = partition.partitions[p];
    if (part.backend == "VgfBackend") side[p] = Side::kVgf;
    if (part.backend != "VulkanBackend") continue;
    side[p] = Side::kVulkan;
    plan.nhwc_partition[p] = std::all_of(part.nodes.begin(), part.nodes.end(),
                                         [&](NodeId n) { return layout_agnostic(graph, graph.node(n)); });
  }
  auto nhwc_side = [&](size_t p) { return side[p] == Side::kVgf || plan.nhwc_partition[p]; };
  // A value may travel in NHWC when it is a rank-4 float32 result of a delegate partition that
  // computes in NHWC, no program output, and every partition reading it computes in NHWC.
  auto may_be_nhwc = [&](ValueId v) {
    const Value& value = graph.value(v);
    if (!uses.producer[v] || uses.graph_output[v] || value.shape.rank() != 4 || value.dtype != DType::kFloat32)
      return false;
    return nhwc_side(*uses.producer[v]) && std::all_of(uses.readers[v].begin(), uses.readers[v].end(), nhwc_side);
  };
  // NHWC VulkanBackend partitions need every boundary value in NHWC; dropping one can take
  // another's reader or producer away, so repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t p = 0; p < n_parts; ++p) {
      if (!plan.nhwc_partition[p]) continue;
      bool ok = true;
      for (NodeId n : partition.partitions[p].nodes) {
        const Node& node = graph.node(n);
        for (ValueId in : node.inputs) {
          if (graph.value(in).kind != ValueKind::kConstant && uses.producer[in] != p && !may_be_nhwc(in)) ok = false;
        }
        for (ValueId out : node.outputs) {
          if ((uses.graph_output[out] || !uses.readers[out].empty()) && !may_be_nhwc(out)) ok = false;
        }
      }
      if (!ok) {
        plan.nhwc_partition[p] = false;
        changed = true;
      }
    }
  }
  for (ValueId v = 0; v < graph.values().size(); ++v) {
    if (uses.readers[v].empty() || !may_be_nhwc(v)) continue;
    const bool vulkan_side =
        plan.nhwc_partition[*uses.producer[v]] ||
        std::any_of(uses.readers[v].begin(), uses.readers[v].end(), [&](size_t p) { return plan.nhwc_partition[p]; });
    plan.value_rule[v] = vulkan_side ? OutputLayout::kNhwc : OutputLayout::kNhwcIfProduced;
  }
  return plan;
}

}  // namespace univk::compiler
