// JSON description of a univk program file (.uvk): methods, values, instructions and
// delegates; VgfBackend payloads are decoded and dumped inline.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "json_writer.h"
#include "univk/base/status.h"

namespace univk::dump {

// InvalidArgument/Incompatible from the program loader when `file` is not a valid program.
// Errors inside VGF payloads are reported in the JSON and appended to `errors`.
Status write_program_json(JsonWriter& json, std::span<const uint8_t> file, std::vector<std::string>& errors);

}  // namespace univk::dump
