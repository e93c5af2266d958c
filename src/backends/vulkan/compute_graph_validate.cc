// validate_compute_graph: the structural rules of a ComputeGraph (see compute_graph.h).
#include <string>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"

namespace univk::backends {
namespace {

enum class Origin : uint8_t { kUndefined, kInput, kConstant, kOp };

Status check_id(uint32_t id, size_t value_count, const std::string& where) {
  if (id >= value_count) {
    return invalid_argument(where + " refers to value " + std::to_string(id) + " but the graph has " +
                            std::to_string(value_count) + " values");
  }
  return ok_status();
}

}  // namespace

Status validate_compute_graph(const ComputeGraph& graph) {
  const size_t n = graph.values.size();
  std::vector<Origin> origin(n, Origin::kUndefined);
  for (size_t i = 0; i < n; ++i) {
    const ComputeValue& v = graph.values[i];
    const std::string where = "values[" + std::to_string(i) + "]";
    for (int64_t d : v.shape.dims()) {
      if (d < 0) return invalid_argument(where + " has a negative dim in shape " + v.shape.to_string());
    }
    if (v.is_constant()) {
      const uint64_t expected = static_cast<uint64_t>(v.shape.numel()) * dtype_size(v.dtype);
      if (v.constant.size() != expected) {
        return invalid_argument(where + " constant has " + std::to_string(v.constant.size()) + " bytes, " +
                                dtype_name(v.dtype).data() + v.shape.to_string() + " needs " +
                                std::to_string(expected));
      }
      origin[i] = Origin::kConstant;
    }
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const uint32_t id = graph.inputs[i];
    const std::string where = "inputs[" + std::to_string(i) + "]";
    UNIVK_RETURN_IF_ERROR(check_id(id, n, where));
    if (origin[id] == Origin::kConstant) return invalid_argument(where + " is constant value " + std::to_string(id));
    if (origin[id] == Origin::kInput) return invalid_argument(where + " repeats value " + std::to_string(id));
    origin[id] = Origin::kInput;
  }
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    const ComputeOp& op = graph.ops[o];
    const std::string where = "ops[" + std::to_string(o) + "] (" + op.name + ")";
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const uint32_t id = op.inputs[k];
      UNIVK_RETURN_IF_ERROR(check_id(id, n, where + " input " + std::to_string(k)));
      if (origin[id] == Origin::kUndefined) {
        return invalid_argument(where + " input " + std::to_string(k) + " reads value " + std::to_string(id) +
                                " before anything defines it");
      }
    }
    if (op.outputs.empty()) return invalid_argument(where + " has no outputs");
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const uint32_t id = op.outputs[k];
      UNIVK_RETURN_IF_ERROR(check_id(id, n, where + " output " + std::to_string(k)));
      if (origin[id] != Origin::kUndefined) {
        return invalid_argument(where + " output " + std::to_string(k) + " writes value " + std::to_string(id) +
                                ", which is already defined");
      }
      origin[id] = Origin::kOp;
    }
  }
  if (graph.outputs.empty()) return invalid_argument("graph has no outputs");
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const uint32_t id = graph.outputs[i];
    const std::string where = "outputs[" + std::to_string(i) + "]";
    UNIVK_RETURN_IF_ERROR(check_id(id, n, where));
    if (origin[id] == Origin::kUndefined) {
      return invalid_argument(where + " is value " + std::to_string(id) + ", which nothing defines");
    }
  }
  return ok_status();
}

}  // namespace univk::backends
