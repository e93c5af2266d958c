#include "fuzz_targets.h"
#include "univk/backends/vulkan/compute_graph.h"

namespace univk::fuzz {

// A graph that parses passed validate_compute_graph, so serializing it must succeed and parse
// back to the same structure; anything else is a bug (trapped).
Status compute_graph(std::span<const uint8_t> data) {
  auto graph = backends::parse_compute_graph(data);
  if (!graph.ok()) return graph.status();
  auto bytes = backends::serialize_compute_graph(*graph);
  if (!bytes.ok()) __builtin_trap();
  auto again = backends::parse_compute_graph(*bytes);
  if (!again.ok() || again->values.size() != graph->values.size() || again->ops.size() != graph->ops.size() ||
      again->inputs != graph->inputs || again->outputs != graph->outputs) {
    __builtin_trap();
  }
  return ok_status();
}

}  // namespace univk::fuzz
