#include <cstring>
#include <vector>

#include "fuzz_targets.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::fuzz {

// The input bytes truncated to whole words, copied into storage of exactly that size.
Status spirv_graph(std::span<const uint8_t> data) {
  std::vector<uint32_t> words(data.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), data.data(), words.size() * 4);
  auto graph = spirv::read_tosa_graph(words);
  if (!graph.ok()) return graph.status();
  volatile uint64_t sink = 0;
  for (const auto& binding : graph->inputs) sink = sink + graph->values.at(binding.value).type.shape.size();
  for (const auto& binding : graph->outputs) sink = sink + graph->values.at(binding.value).type.shape.size();
  for (const auto& op : graph->operations) {
    for (auto id : op.inputs) sink = sink + graph->values.at(id).data.size();
    for (auto id : op.outputs) sink = sink + graph->values.at(id).type.shape.size();
  }
  return ok_status();
}

}  // namespace univk::fuzz
