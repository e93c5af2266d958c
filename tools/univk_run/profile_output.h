// univk-run's --profile and --trace: the last execute's Profile as a table on `out` and as a
// Chrome trace file (the runtime's Profile::table and Profile::write_chrome_trace).
#pragma once

#include <cstdio>
#include <string>

#include "univk/runtime/program.h"

namespace univk::tools {

// Prints the table when `print_table`; writes `trace_path` when it is not empty. The error
// names what failed ("profile: ...", "writing trace out.json: ...").
Status write_profile(const runtime::Method& method, bool print_table, const std::string& trace_path, FILE* out);

}  // namespace univk::tools
