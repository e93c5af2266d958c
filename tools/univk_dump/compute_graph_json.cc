#include "compute_graph_json.h"

#include "attributes_json.h"

namespace univk::dump {

tools::Json compute_graph_json(const backends::ComputeGraph& g) {
  using tools::Json;
  Json values = Json::array();
  for (size_t i = 0; i < g.values.size(); ++i) {
    const backends::ComputeValue& v = g.values[i];
    Json value = {{"id", i}, {"dtype", dtype_name(v.dtype)}, {"shape", v.shape.dims()}};
    if (v.is_constant()) value["constant_bytes"] = v.constant.size();
    values.push_back(std::move(value));
  }
  Json ops = Json::array();
  for (const backends::ComputeOp& op : g.ops) {
    ops.push_back(
        {{"op", op.name}, {"inputs", op.inputs}, {"outputs", op.outputs}, {"attributes", attributes_json(op.attrs)}});
  }
  return {{"values", std::move(values)}, {"inputs", g.inputs}, {"operations", std::move(ops)}, {"outputs", g.outputs}};
}

}  // namespace univk::dump
