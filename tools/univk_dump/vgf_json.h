// JSON description of a decoded VGF file (and of the TOSA graphs of its GRAPH modules).
#pragma once

#include <string>
#include <vector>

#include "json_output.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"

namespace univk::dump {

// `vgf` as one JSON object. Graph modules whose SPIR-V cannot be read get a "graph_error"
// member; their messages are appended to `errors`.
tools::Json vgf_json(const vgf::VgfFile& vgf, std::vector<std::string>& errors);

// The TOSA graphs of `vgf`'s GRAPH modules that can be read, in module order (for the partition
// views); unreadable ones are left out (vgf_json reports them).
std::vector<spirv::TosaGraph> vgf_graphs(const vgf::VgfFile& vgf);

}  // namespace univk::dump
