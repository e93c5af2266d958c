#include "univk/compiler/compiler.h"

#include <map>

#include "graph_checks.h"
#include "permute.h"
#include "univk/compiler/layouts.h"
#include "univk/compiler/vgf_lowering.h"
#include "univk/compiler/vulkan_lowering.h"
#include "univk/runtime/program_writer.h"
#include "univk/tensor/host_allocation.h"

namespace univk::compiler {

std::vector<BackendClaim> builtin_claims() {
  return {BackendClaim{"VgfBackend", vgf_supports}, BackendClaim{"VulkanBackend", vulkan_supports}};
}

namespace {

// Graph value -> program value, created on first use (constants with their bytes; a value in
// `layouts` as NHWC with its [N,H,W,C] shape).
class ValueMap {
 public:
  ValueMap(const Graph& graph, runtime::MethodBuilder& method, const std::vector<TensorLayout>& layouts)
      : graph_(graph), method_(method), layouts_(layouts) {}
  runtime::ValueId operator()(ValueId id) {
    if (auto it = ids_.find(id); it != ids_.end()) return it->second;
    const Value& v = graph_.value(id);
    const Shape shape =
        layouts_[id] == TensorLayout::kNhwc ? Shape(detail::permuted(v.shape.dims(), detail::kToNhwc)) : v.shape;
    const runtime::ValueId pid = v.kind == ValueKind::kConstant
                                     ? method_.add_constant(v.dtype, v.shape, v.constant->bytes())
                                     : method_.add_value(v.dtype, shape);
    ids_[id] = pid;
    return pid;
  }
  std::vector<runtime::ValueId> operator()(const std::vector<ValueId>& ids) {
    std::vector<runtime::ValueId> out;
    for (ValueId id : ids) out.push_back((*this)(id));
    return out;
  }

 private:
  const Graph& graph_;
  runtime::MethodBuilder& method_;
  const std::vector<TensorLayout>& layouts_;
  std::map<ValueId, runtime::ValueId> ids_;
};

// A VGF partition with its inputs in the layouts their producers wrote and its outputs by the
// plan's rules; records the layouts it writes.
Result<std::vector<uint8_t>> lower_vgf_partition(const Graph& graph, std::span<const NodeId> nodes,
                                                 const SubgraphIO& io, const LayoutPlan& plan,
                                                 std::vector<TensorLayout>& layouts) {
  BoundaryLayouts boundary;
  for (ValueId in : io.inputs) boundary.inputs.push_back(layouts[in]);
  for (ValueId out : io.outputs) boundary.outputs.push_back(plan.value_rule[out]);
  UNIVK_ASSIGN_OR_RETURN(VgfPartition lowered, lower_to_vgf(graph, nodes, io, boundary));
  for (size_t i = 0; i < io.outputs.size(); ++i) layouts[io.outputs[i]] = lowered.output_layouts[i];
  return std::move(lowered.bytes);
}

// A VulkanBackend partition, in NHWC when the plan says so (then every input already is).
Result<std::vector<uint8_t>> lower_vulkan_partition(const Graph& graph, std::span<const NodeId> nodes,
                                                    const SubgraphIO& io, bool nhwc,
                                                    std::vector<TensorLayout>& layouts) {
  const TensorLayout layout = nhwc ? TensorLayout::kNhwc : TensorLayout::kNatural;
  for (ValueId in : io.inputs) {
    if (layouts[in] != layout) {
      return internal_error("compile: value '" + graph.value(in).name + "' reaches a VulkanBackend partition in " +
                            (layouts[in] == TensorLayout::kNhwc ? "NHWC" : "natural") + " layout");
    }
  }
  for (ValueId out : io.outputs) layouts[out] = layout;
  return lower_to_vulkan(graph, nodes, io, layout);
}

// compile_program's body; a host allocation failure inside throws std::bad_alloc.
Result<CompiledProgram> compile_program_or_throw(const Graph& graph, const CompileOptions& options) {
  if (graph.outputs().empty()) return invalid_argument("compile: the graph has no outputs");
  UNIVK_RETURN_IF_ERROR(detail::check_graph(graph));
  const std::vector<BackendClaim> claims = builtin_claims();
  CompiledProgram result;
  UNIVK_ASSIGN_OR_RETURN(result.partition, partition_graph(graph, claims, options.partition));

  runtime::ProgramBuilder builder;
  runtime::MethodBuilder& method = builder.add_method(options.method_name);
  const LayoutPlan plan = plan_layouts(graph, result.partition);
  std::vector<TensorLayout> layouts(graph.values().size(), TensorLayout::kNatural);  // as lowered so far
  ValueMap values(graph, method, layouts);
  method.set_inputs(values(graph.inputs()));
  auto source_node = [&](NodeId n) {
    const std::string& name = graph.node(n).name;
    const auto location = options.node_locations.find(name);
    return runtime::SourceNode{name, location == options.node_locations.end() ? std::string() : location->second};
  };
  for (size_t p = 0; p < result.partition.partitions.size(); ++p) {
    const Partition& part = result.partition.partitions[p];
    if (part.backend == kCpuBackend) {
      for (NodeId n : part.nodes) {
        const Node& node = graph.node(n);
        method.add_kernel_call(node.op, node.attrs, values(node.inputs), values(node.outputs), {source_node(n)});
        result.calls.push_back(CompiledCall{kCpuBackend, {node.name}, 0});
      }
      continue;
    }
    const SubgraphIO io = subgraph_io(graph, part.nodes);
    if (io.outputs.empty()) continue;  // dead code: nothing outside the partition reads its results
    Result<std::vector<uint8_t>> payload =
        part.backend == "VgfBackend" ? lower_vgf_partition(graph, part.nodes, io, plan, layouts)
                                     : lower_vulkan_partition(graph, part.nodes, io, plan.nhwc_partition[p], layouts);
    if (!payload.ok()) return payload.status().with_context("compile: " + part.backend + " partition");
    const uint32_t delegate = builder.add_delegate(part.backend, *payload);
    std::vector<runtime::SourceNode> sources;
    for (NodeId n : part.nodes) sources.push_back(source_node(n));
    method.add_delegate_call(delegate, values(io.inputs), values(io.outputs), std::move(sources));
    CompiledCall call{part.backend, {}, payload->size()};
    for (NodeId n : part.nodes) call.nodes.push_back(graph.node(n).name);
    result.calls.push_back(std::move(call));
  }
  method.set_outputs(values(graph.outputs()));
  for (const auto& [name, quantization] : options.io_quantization) {
    std::optional<ValueId> found;
    for (ValueId v : graph.inputs()) found = graph.value(v).name == name ? v : found;
    for (ValueId v : graph.outputs()) found = graph.value(v).name == name ? v : found;
    if (!found) return invalid_argument("compile: io_quantization names '" + name + "', not an input or output");
    UNIVK_RETURN_IF_ERROR(
        method.set_quantization(values(*found), quantization).with_context("compile: '" + name + "'"));
  }
  auto bytes = builder.finish();
  if (!bytes.ok()) return bytes.status().with_context("compile: program writer");
  result.bytes = std::move(bytes).value();
  return result;
}

}  // namespace

Result<CompiledProgram> compile_program(const Graph& graph, const CompileOptions& options) {
  return catch_out_of_memory([&] { return compile_program_or_throw(graph, options); });
}

}  // namespace univk::compiler
