// JSON description of a decoded VGF file (and of the TOSA graphs of its GRAPH modules).
#pragma once

#include <string>

#include "json_writer.h"
#include "univk/vgf/vgf_file.h"

namespace univk::dump {

// Writes `vgf` as one JSON object. Graph modules whose SPIR-V cannot be read get a
// "graph_error" member; their messages are appended to `errors`.
void write_vgf_json(JsonWriter& json, const vgf::VgfFile& vgf, std::vector<std::string>& errors);

}  // namespace univk::dump
