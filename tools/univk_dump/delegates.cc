#include "delegates.h"

#include <algorithm>
#include <map>

#include "vgf_json.h"

namespace univk::dump {
namespace {

// Appends one op per entry of `names`, with the dataflow that the ops' input and output value
// ids give (values within one graph).
void add_ops(std::vector<PayloadOp>& ops, const std::vector<std::string>& names,
             const std::vector<std::vector<uint32_t>>& inputs, const std::vector<std::vector<uint32_t>>& outputs) {
  std::map<uint32_t, size_t> producer;  // value id -> index in `ops`
  for (size_t i = 0; i < names.size(); ++i) {
    PayloadOp op{names[i], {}};
    for (uint32_t v : inputs[i]) {
      auto it = producer.find(v);
      if (it == producer.end() || std::find(op.reads.begin(), op.reads.end(), it->second) != op.reads.end()) continue;
      op.reads.push_back(it->second);
    }
    for (uint32_t v : outputs[i]) producer[v] = ops.size();
    ops.push_back(std::move(op));
  }
}

void decode_vgf(const runtime::DelegateDesc& desc, DecodedDelegate& d) {
  auto vgf = vgf::decode_vgf(desc.payload);
  if (!vgf.ok()) {
    d.error = vgf.status().to_string();
    return;
  }
  d.vgf = std::move(vgf).value();
  d.graphs = vgf_graphs(*d.vgf);
  for (const vgf::Module& m : d.vgf->modules) {
    if (m.type != vgf::ModuleType::kGraph) d.ops.push_back({"compute module " + m.name, {}});
  }
  for (const spirv::TosaGraph& g : d.graphs) {
    std::vector<std::string> names;
    std::vector<std::vector<uint32_t>> inputs, outputs;
    for (const auto& op : g.operations) {
      names.emplace_back(spirv::tosa_op_name(op.op));
      inputs.push_back(op.inputs);
      outputs.push_back(op.outputs);
    }
    add_ops(d.ops, names, inputs, outputs);
  }
}

#if UNIVK_BUILD_VULKAN_BACKEND
void decode_compute_graph(const runtime::DelegateDesc& desc, DecodedDelegate& d) {
  auto graph = backends::parse_compute_graph(desc.payload);
  if (!graph.ok()) {
    d.error = graph.status().to_string();
    return;
  }
  d.compute = std::move(graph).value();
  std::vector<std::string> names;
  std::vector<std::vector<uint32_t>> inputs, outputs;
  for (const backends::ComputeOp& op : d.compute->ops) {
    names.push_back(op.name);
    inputs.push_back(op.inputs);
    outputs.push_back(op.outputs);
  }
  add_ops(d.ops, names, inputs, outputs);
}
#endif

}  // namespace

std::vector<DecodedDelegate> decode_delegates(const runtime::ProgramDesc& program) {
  std::vector<DecodedDelegate> out(program.delegates.size());
  for (size_t i = 0; i < program.delegates.size(); ++i) {
    const runtime::DelegateDesc& desc = program.delegates[i];
    if (desc.backend_id == "VgfBackend") {
      decode_vgf(desc, out[i]);
#if UNIVK_BUILD_VULKAN_BACKEND
    } else if (desc.backend_id == "VulkanBackend") {
      decode_compute_graph(desc, out[i]);
#endif
    }
  }
  return out;
}

}  // namespace univk::dump
