#include "univk/compiler/partitioner.h"

#include <set>

#include "univk/base/logging.h"
#include "univk/reference/kernels.h"

namespace univk::compiler {
namespace {

const BackendClaim* find_claim(std::span<const BackendClaim> claims, const std::string& id) {
  for (const BackendClaim& c : claims) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

Status check_backend_name(std::span<const BackendClaim> claims, const std::string& id, const std::string& where) {
  if (id == kCpuBackend || find_claim(claims, id)) return ok_status();
  std::string known = kCpuBackend;
  for (const BackendClaim& c : claims) known += ", " + c.id;
  return invalid_argument("partition: " + where + " names unknown backend '" + id + "' (known: " + known + ")");
}

// The backend a pin sends `node` to, if any: a node-name pin first, then an op-type pin.
const std::string* pinned_backend(const PartitionOptions& options, const Node& node) {
  if (auto it = options.pins.find(node.name); it != options.pins.end()) return &it->second;
  if (auto it = options.pins.find(node.op); it != options.pins.end()) return &it->second;
  return nullptr;
}

// A pin key must name a node or an op type of `graph`: a typo would otherwise be silently ignored.
Status check_pin_key(const Graph& graph, const std::string& key) {
  std::set<std::string> op_types;
  for (const Node& node : graph.nodes()) {
    if (node.name == key || node.op == key) return ok_status();
    op_types.insert(node.op);
  }
  // Node names can run into the thousands; the message lists the op types and the first names.
  constexpr size_t kListedNames = 20;
  std::string known = "op types:";
  for (const std::string& op : op_types) known += " " + op;
  known += "; node names:";
  for (size_t i = 0; i < graph.nodes().size() && i < kListedNames; ++i) known += " " + graph.node(i).name;
  if (graph.nodes().size() > kListedNames) {
    known += " (and " + std::to_string(graph.nodes().size() - kListedNames) + " more)";
  }
  return invalid_argument("partition: pin '" + key + "' matches no node name or op type of the graph (" + known + ")");
}

Status cpu_supports(const Node& node) {
  if (reference::is_supported_op(node.op)) return ok_status();
  return unsupported("the CPU fallback has no kernel for op '" + node.op + "'");
}

}  // namespace

bool PartitionResult::has_cpu() const {
  for (const Partition& p : partitions) {
    if (p.backend == kCpuBackend) return true;
  }
  return false;
}

Result<PartitionResult> partition_graph(const Graph& graph, std::span<const BackendClaim> claims,
                                        const PartitionOptions& options) {
  for (const std::string& id : options.order) UNIVK_RETURN_IF_ERROR(check_backend_name(claims, id, "order"));
  for (const auto& [key, id] : options.pins) {
    UNIVK_RETURN_IF_ERROR(check_pin_key(graph, key));
    UNIVK_RETURN_IF_ERROR(check_backend_name(claims, id, "pin '" + key + "'"));
    if (id == kCpuBackend && options.require_no_cpu_fallback) {
      return invalid_argument("partition: pin '" + key + "' sends nodes to the CPU but require_no_cpu_fallback is set");
    }
  }

  PartitionResult result;
  for (NodeId id = 0; id < graph.nodes().size(); ++id) {
    const Node& node = graph.node(id);
    std::string chosen;
    if (const std::string* pin = pinned_backend(options, node)) {
      const Status ok = *pin == kCpuBackend ? cpu_supports(node) : find_claim(claims, *pin)->supports(graph, node);
      if (!ok.ok()) {
        return invalid_argument("partition: node '" + node.name + "' (" + node.op + ") is pinned to " + *pin +
                                ", which cannot run it: " + ok.message());
      }
      chosen = *pin;
      if (chosen == kCpuBackend) {
        result.warnings.push_back("node '" + node.name + "' (" + node.op + ") is pinned to the CPU fallback");
        UNIVK_LOG(kWarning) << result.warnings.back();
      }
    } else {
      std::string reasons;
      for (const std::string& backend : options.order) {
        if (backend == kCpuBackend) {
          chosen = kCpuBackend;
          break;
        }
        const Status ok = find_claim(claims, backend)->supports(graph, node);
        if (ok.ok()) {
          chosen = backend;
          break;
        }
        reasons += "; " + backend + ": " + ok.message();
      }
      if (chosen.empty()) {
        const std::string why = "node '" + node.name + "' (" + node.op + " " + node.attrs.to_string() +
                                ") is supported by no backend" + reasons;
        if (options.require_no_cpu_fallback) {
          return unsupported("partition: " + why + "; require_no_cpu_fallback is set");
        }
        UNIVK_RETURN_IF_ERROR(cpu_supports(node).with_context("partition: " + why));
        result.warnings.push_back(why + "; it runs on the CPU fallback");
        UNIVK_LOG(kWarning) << result.warnings.back();
        chosen = kCpuBackend;
      }
    }
    if (result.partitions.empty() || result.partitions.back().backend != chosen) {
      result.partitions.push_back(Partition{chosen, {}});
    }
    result.partitions.back().nodes.push_back(id);
  }
  return result;
}

}  // namespace univk::compiler
