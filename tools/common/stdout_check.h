// The last step of every tool: standard output must have been written completely (a full disk,
// `> /dev/full` or a closed pipe is a failure, not a silent exit 0).
#pragma once

namespace univk::tools {

// Flushes stdout; true when every write to it succeeded. Otherwise prints
// "<tool>: cannot write standard output: <reason>" on stderr and returns false.
bool stdout_written(const char* tool);

}  // namespace univk::tools
