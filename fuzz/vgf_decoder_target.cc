#include <numeric>

#include "fuzz_targets.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"

namespace univk::fuzz {

// What the VgfBackend does with a decoded file: every module's SPIR-V words and every
// constant's bytes are read, and GRAPH modules go through the SPIR-V graph reader.
Status vgf_decoder(std::span<const uint8_t> data) {
  auto file = vgf::decode_vgf(data);
  if (!file.ok()) return file.status();
  volatile uint32_t sink = 0;
  for (const vgf::Module& module : file->modules) {
    std::span<const uint32_t> words = module.spirv();
    sink = sink + std::accumulate(words.begin(), words.end(), uint32_t{0});
    if (module.type == vgf::ModuleType::kGraph && !words.empty()) {
      auto graph = spirv::read_tosa_graph(words);
      sink = sink + (graph.ok() ? 1u : 0u);
    }
  }
  for (const vgf::Constant& constant : file->constants) {
    std::span<const uint8_t> bytes = constant.data();
    sink = sink + std::accumulate(bytes.begin(), bytes.end(), uint32_t{0});
    sink = sink + file->resources.at(constant.resource_index).vk_format;
  }
  for (const vgf::Segment& segment : file->segments) {
    sink = sink + static_cast<uint32_t>(file->modules.at(segment.module_index).type);
    for (uint32_t index : segment.constants) sink = sink + file->constants.at(index).resource_index;
    for (const auto& slot : segment.inputs) sink = sink + file->resources.at(slot.resource_index).vk_format;
    for (const auto& slot : segment.outputs) sink = sink + file->resources.at(slot.resource_index).vk_format;
  }
  return ok_status();
}

}  // namespace univk::fuzz
