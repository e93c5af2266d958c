#include "graph_path.h"

#include "lower_graph.h"
#include "resource_layout.h"
#include "univk/vulkan/arm_dispatch.h"
#include "univk/vulkan/queue.h"

namespace univk::backends::vgf {

Result<GraphPath> parse_graph_path(std::string_view value) {
  if (value == "auto") return GraphPath::kAuto;
  if (value == "native") return GraphPath::kNative;
  if (value == "lowered") return GraphPath::kLowered;
  return invalid_argument("vgf_graph_path '" + std::string(value) + "' (auto, native or lowered)");
}

std::string_view graph_path_name(GraphPath path) {
  switch (path) {
    case GraphPath::kAuto:
      return "auto";
    case GraphPath::kNative:
      return "native";
    case GraphPath::kLowered:
      return "lowered";
  }
  return "?";
}

std::vector<std::string> native_path_gaps(const vulkan::Device& device, const univk::vgf::VgfFile& file,
                                          const std::vector<const spirv::TosaGraph*>& graphs) {
  std::vector<std::string> gaps;
  const auto& enabled = device.enabled();
  for (const char* e :
       {vulkan::arm::kTensorsExtension, vulkan::arm::kDataGraphExtension, vulkan::arm::kDataGraphTosaExtension})
    if (!enabled.extensions.contains(e)) gaps.push_back("extension " + std::string(e) + " not enabled");
  for (vulkan::Feature f :
       {vulkan::Feature::kTensorsARM, vulkan::Feature::kDataGraphARM, vulkan::Feature::kDataGraphShaderModuleARM})
    if (!device.has(f)) gaps.push_back("feature " + std::string(vulkan::feature_name(f)) + " not enabled");
  // Barriers name the data-graph stage, which only synchronization2's 64-bit masks hold.
  if (!device.uses_synchronization2()) gaps.push_back("synchronization2 (Vulkan 1.3) not enabled");
  if (!gaps.empty()) return gaps;  // the queries below need the extensions

  if ((enabled.queue_family_flags.at(0) & vulkan::arm::kQueueDataGraphBit) == 0)
    gaps.push_back("queue family " + std::to_string(device.queue().family_index()) + " without DATA_GRAPH_BIT_ARM");
  else if (!vulkan::supports_operation_set(vulkan::queue_family_data_graph_properties(device),
                                           spirv::kTosaExtInstSetName))
    gaps.push_back("queue family " + std::to_string(device.queue().family_index()) + " does not list operation set " +
                   std::string(spirv::kTosaExtInstSetName));

  const uint64_t max_bytes = device.properties().limits.maxStorageBufferRange;
  for (size_t s = 0; s < file.segments.size(); ++s) {
    if (graphs[s] == nullptr) continue;
    const std::string where = "segment " + std::to_string(s) + ": ";
    for (const auto& info : file.segments[s].set_infos) {
      for (const auto& slot : info.bindings) {
        const univk::vgf::Resource& r = file.resources[slot.resource_index];
        const std::string resource = where + "resource " + std::to_string(slot.resource_index);
        auto strides = resource_element_strides(r);
        if (!strides.ok() || !strides_are_packed(r.shape, *strides)) gaps.push_back(resource + " is not packed");
        auto bytes = resource_byte_size(r);
        if (bytes.ok() && *bytes > max_bytes)
          gaps.push_back(resource + " of " + std::to_string(*bytes) +
                         " bytes (tensors stop at maxStorageBufferRange, " + std::to_string(max_bytes) + ")");
      }
    }
    // TOSA 1.0 has no int48 tensor format the extension's tensors take.
    for (const auto& v : graphs[s]->values)
      if (v.type.dtype == DType::kInt64) {
        gaps.push_back(where + "an int48 tensor (no tensor format)");
        break;
      }
  }
  return gaps;
}

Result<GraphPath> choose_graph_path(GraphPath requested, const std::vector<std::string>& gaps,
                                    const std::string& device_name) {
  if (requested == GraphPath::kLowered) return GraphPath::kLowered;
  if (gaps.empty()) return GraphPath::kNative;
  if (requested == GraphPath::kAuto) return GraphPath::kLowered;
  std::string list;
  for (const auto& gap : gaps) list += (list.empty() ? "" : "; ") + gap;
  return unsupported("vgf_graph_path=native: device '" + device_name + "' cannot run the graphs natively: " + list +
                     " (Arm's ML emulation layer provides the extensions on any Vulkan 1.3 driver; " +
                     "vgf_graph_path=auto falls back to the lowered path)");
}

}  // namespace univk::backends::vgf
