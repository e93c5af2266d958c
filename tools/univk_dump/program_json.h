// JSON description of a univk program file (.uvk): methods, values, instructions and
// delegates, with VgfBackend and VulkanBackend payloads decoded inline.
#pragma once

#include <string>
#include <vector>

#include "delegates.h"
#include "json_output.h"
#include "univk/runtime/program_desc.h"

namespace univk::dump {

// `delegates` is decode_delegates(program). Payloads that do not decode get a "vgf_error" or
// "compute_graph_error" member and their messages are appended to `errors`, as are graph
// modules that cannot be read.
tools::Json program_json(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates,
                         std::vector<std::string>& errors);

}  // namespace univk::dump
