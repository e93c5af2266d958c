// Evaluates a TOSA graph (spirv::TosaGraph: what the VgfBackend lowering makes of univk IR) on
// the TOSA reference kernels, with no GPU. Used by the compiler's lowering tests and the
// conformance table's VgfLoweringOnCpu target to tell a lowering bug from a backend bug.
// Header-only: the test links univk_reference and univk_spirv (both come with univk_compiler).
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/reference/kernels.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/tensor/tensor.h"

namespace univk::testing {

// Graph inputs take `inputs` in order, constants their bytes; the operations run in order with
// reference::run_tosa and each result must have its value's declared shape. Returns the graph
// outputs in order. Errors name the operator (and its attributes).
inline Result<std::vector<HostTensor>> run_tosa_graph(const spirv::TosaGraph& g, std::span<const HostTensor> inputs) {
  if (inputs.size() != g.inputs.size()) {
    return invalid_argument("the TOSA graph takes " + std::to_string(g.inputs.size()) + " inputs, got " +
                            std::to_string(inputs.size()));
  }
  std::vector<HostTensor> values(g.values.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) values[g.inputs[i].value] = inputs[i];
  for (size_t v = 0; v < g.values.size(); ++v) {
    const spirv::TosaValue& tv = g.values[v];
    if (tv.kind != spirv::ValueKind::kConstant && tv.kind != spirv::ValueKind::kGraphConstant) continue;
    HostTensor t(tv.type.dtype, Shape(tv.type.shape));
    if (t.byte_size() != tv.data.size()) {
      return internal_error("constant value " + std::to_string(v) + " " + t.describe() + " has " +
                            std::to_string(tv.data.size()) + " bytes");
    }
    std::copy(tv.data.begin(), tv.data.end(), t.bytes().begin());
    values[v] = std::move(t);
  }
  for (const spirv::TosaOperation& op : g.operations) {
    const std::string name(spirv::tosa_op_name(op.op));
    std::vector<HostTensor> in;
    for (auto id : op.inputs) in.push_back(values[id]);
    Result<std::vector<HostTensor>> out = reference::run_tosa(name, op.attrs, in);
    if (!out.ok()) return out.status().with_context(name + " " + op.attrs.to_string());
    const Shape declared(g.values[op.outputs[0]].type.shape);
    if ((*out)[0].shape() != declared) {
      return internal_error(name + " computed " + (*out)[0].shape().to_string() + ", the graph declares " +
                            declared.to_string());
    }
    values[op.outputs[0]] = std::move((*out)[0]);
  }
  std::vector<HostTensor> outputs;
  for (const auto& b : g.outputs) outputs.push_back(values[b.value]);
  return outputs;
}

}  // namespace univk::testing
