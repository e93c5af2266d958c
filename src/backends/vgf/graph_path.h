// How the VgfBackend runs GRAPH segments (runtime option `vgf_graph_path`): natively as
// VK_ARM_data_graph pipelines, or lowered to univk's compute kernels; and what a device lacks
// for the native path. Pure checks over the device's enabled state and the decoded VGF.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"
#include "univk/vulkan/device.h"

namespace univk::backends::vgf {

enum class GraphPath {
  kAuto,     // native when native_path_gaps() is empty, else lowered (the default)
  kNative,   // native, or an error naming every gap
  kLowered,  // univk's compute kernels on any device
};

// "auto" | "native" | "lowered"; InvalidArgument naming the value otherwise.
Result<GraphPath> parse_graph_path(std::string_view value);
std::string_view graph_path_name(GraphPath path);  // "native", "lowered" ("auto" for kAuto)

// Every reason `device` cannot run the GRAPH segments of `file` (graphs[i]: segment i's graph,
// null for COMPUTE segments) as data-graph pipelines, each named, e.g. "extension
// VK_ARM_data_graph not enabled", "feature dataGraph not enabled", "queue family 0 without
// DATA_GRAPH_BIT_ARM", "segment 0: resource 2 is not packed". Empty: the native path can run them.
std::vector<std::string> native_path_gaps(const vulkan::Device& device, const univk::vgf::VgfFile& file,
                                          const std::vector<const spirv::TosaGraph*>& graphs);

// The path a delegate takes: `requested` resolved against the gaps (native with gaps is
// Unsupported naming the device and each gap).
Result<GraphPath> choose_graph_path(GraphPath requested, const std::vector<std::string>& gaps,
                                    const std::string& device_name);

}  // namespace univk::backends::vgf
