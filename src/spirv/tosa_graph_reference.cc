#include "univk/spirv/tosa_graph_reference.h"

#include <algorithm>
#include <string>

#include "univk/reference/kernels.h"

namespace univk::spirv {

Result<std::vector<HostTensor>> run_on_reference(const TosaGraph& g, std::span<const HostTensor> inputs) {
  if (inputs.size() != g.inputs.size()) {
    return invalid_argument("the graph takes " + std::to_string(g.inputs.size()) + " inputs, got " +
                            std::to_string(inputs.size()));
  }
  std::vector<HostTensor> values(g.values.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TosaTensorType& type = g.values[g.inputs[i].value].type;
    if (inputs[i].dtype() != type.dtype || inputs[i].shape() != Shape(type.shape)) {
      return invalid_argument("input " + std::to_string(i) + " is " + inputs[i].describe() + ", the graph takes " +
                              std::string(dtype_name(type.dtype)) + Shape(type.shape).to_string());
    }
    values[g.inputs[i].value] = inputs[i];
  }
  for (size_t v = 0; v < g.values.size(); ++v) {
    const TosaValue& tv = g.values[v];
    if (tv.kind != ValueKind::kConstant && tv.kind != ValueKind::kGraphConstant) continue;
    HostTensor t(tv.type.dtype, Shape(tv.type.shape));
    if (t.byte_size() != tv.data.size()) {
      return internal_error("constant value " + std::to_string(v) + " " + t.describe() + " has " +
                            std::to_string(tv.data.size()) + " bytes");
    }
    std::copy(tv.data.begin(), tv.data.end(), t.bytes().begin());
    values[v] = std::move(t);
  }
  for (const TosaOperation& op : g.operations) {
    const std::string name(tosa_op_name(op.op));
    std::vector<HostTensor> in;
    for (auto id : op.inputs) in.push_back(values[id]);
    Result<std::vector<HostTensor>> out = reference::run_tosa(name, op.attrs, in);
    if (!out.ok()) return out.status().with_context(name + " " + op.attrs.to_string());
    if (out->size() != op.outputs.size()) {
      return internal_error(name + " computed " + std::to_string(out->size()) + " results, the graph declares " +
                            std::to_string(op.outputs.size()));
    }
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const Shape declared(g.values[op.outputs[k]].type.shape);
      if ((*out)[k].shape() != declared) {
        return internal_error(name + " computed " + (*out)[k].shape().to_string() + ", the graph declares " +
                              declared.to_string());
      }
      values[op.outputs[k]] = std::move((*out)[k]);
    }
  }
  std::vector<HostTensor> outputs;
  for (const auto& b : g.outputs) outputs.push_back(values[b.value]);
  return outputs;
}

}  // namespace univk::spirv
