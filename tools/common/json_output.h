// The tools' outputs: JSON (nlohmann::json; the runtime library has no JSON dependency) and
// text, into a file or onto standard output.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace univk::tools {

// Keys stay in the order they were added, so reports read top-down like the text versions.
using Json = nlohmann::ordered_json;

// `json` indented by two spaces; bytes that are not UTF-8 (names read from files) become U+FFFD
// instead of an exception.
std::string json_text(const Json& json);

// Writes `text` to `path` ("-": standard output, whose errors stdout_written() reports at the
// end of the tool). On failure prints "<tool>: cannot write <path>: <reason>" on stderr and
// returns false.
bool write_output(const std::string& text, const std::string& path, const char* tool);
// write_output of json_text(json) and a newline.
bool write_json(const Json& json, const std::string& path, const char* tool);

// A finite double, or null for nan and inf (JSON has no such numbers).
Json json_number(double value);

}  // namespace univk::tools
