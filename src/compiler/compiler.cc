#include "univk/compiler/compiler.h"

#include <map>

#include "graph_checks.h"
#include "univk/compiler/vgf_lowering.h"
#include "univk/compiler/vulkan_lowering.h"
#include "univk/runtime/program_writer.h"
#include "univk/tensor/host_allocation.h"

namespace univk::compiler {

std::vector<BackendClaim> builtin_claims() {
  return {BackendClaim{"VgfBackend", vgf_supports}, BackendClaim{"VulkanBackend", vulkan_supports}};
}

namespace {

// Graph value -> program value, created on first use (constants with their bytes).
class ValueMap {
 public:
  ValueMap(const Graph& graph, runtime::MethodBuilder& method) : graph_(graph), method_(method) {}
  runtime::ValueId operator()(ValueId id) {
    if (auto it = ids_.find(id); it != ids_.end()) return it->second;
    const Value& v = graph_.value(id);
    const runtime::ValueId pid = v.kind == ValueKind::kConstant
                                     ? method_.add_constant(v.dtype, v.shape, v.constant->bytes())
                                     : method_.add_value(v.dtype, v.shape);
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
  std::map<ValueId, runtime::ValueId> ids_;
};

// compile_program's body; a host allocation failure inside throws std::bad_alloc.
Result<CompiledProgram> compile_program_or_throw(const Graph& graph, const CompileOptions& options) {
  if (graph.outputs().empty()) return invalid_argument("compile: the graph has no outputs");
  UNIVK_RETURN_IF_ERROR(detail::check_graph(graph));
  const std::vector<BackendClaim> claims = builtin_claims();
  CompiledProgram result;
  UNIVK_ASSIGN_OR_RETURN(result.partition, partition_graph(graph, claims, options.partition));

  runtime::ProgramBuilder builder;
  runtime::MethodBuilder& method = builder.add_method(options.method_name);
  ValueMap values(graph, method);
  method.set_inputs(values(graph.inputs()));
  for (const Partition& part : result.partition.partitions) {
    if (part.backend == kCpuBackend) {
      for (NodeId n : part.nodes) {
        const Node& node = graph.node(n);
        method.add_kernel_call(node.op, node.attrs, values(node.inputs), values(node.outputs));
        result.calls.push_back(CompiledCall{kCpuBackend, {node.name}, 0});
      }
      continue;
    }
    const SubgraphIO io = subgraph_io(graph, part.nodes);
    if (io.outputs.empty()) continue;  // dead code: nothing outside the partition reads its results
    Result<std::vector<uint8_t>> payload =
        part.backend == "VgfBackend" ? lower_to_vgf(graph, part.nodes, io) : lower_to_vulkan(graph, part.nodes, io);
    if (!payload.ok()) return payload.status().with_context("compile: " + part.backend + " partition");
    const uint32_t delegate = builder.add_delegate(part.backend, *payload);
    method.add_delegate_call(delegate, values(io.inputs), values(io.outputs));
    CompiledCall call{part.backend, {}, payload->size()};
    for (NodeId n : part.nodes) call.nodes.push_back(graph.node(n).name);
    result.calls.push_back(std::move(call));
  }
  method.set_outputs(values(graph.outputs()));
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
