// The command-line conventions every univk tool follows (docs/USER_GUIDE.md, "Command-line
// tools"), on top of CLI11:
//   --help / -h    per-option help on stdout, exit 0
//   --version      "<tool> <univk version>" on stdout, exit 0
//   --opt value and --opt=value are the same; a repeatable option takes one value per use
//   a usage error  "<tool>: <problem>" and a pointer to --help on stderr, exit kExitUsage (2)
//   --json FILE    the tool's report as JSON into FILE, "-" for stdout (json_output.h)
//   --device D     the Vulkan device: an index in univk's device order or a name substring
//                  (device_option.h checks it)
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace univk::tools {

inline constexpr int kExitUsage = 2;

// An app named `tool` with --version set up. Options are added by the caller.
class ToolApp : public CLI::App {
 public:
  ToolApp(const std::string& tool, const std::string& description);
  const std::string& tool() const { return tool_; }

  // Parses argv. nullopt: go on. Otherwise the tool returns the value: 0 after --help or
  // --version (`stdout_failure_exit` when stdout could not be written), kExitUsage after a
  // usage error, which is printed on stderr.
  std::optional<int> parse_command_line(int argc, char** argv, int stdout_failure_exit);

  // A usage problem found after parsing (values that contradict each other, a file count that
  // depends on the program): prints it like a parse error and returns kExitUsage.
  int usage_error(const std::string& problem) const;

 private:
  std::string tool_;
};

// Validators with univk's wording.
// A finite number >= 0 (tolerances): not nan, inf or negative.
CLI::Validator finite_non_negative();
// KEY=VALUE with a non-empty KEY.
CLI::Validator key_equals_value();

// --json FILE ("-": stdout) with the standard help text; `what` says what the JSON holds.
CLI::Option* add_json_option(CLI::App& app, std::string& path, const std::string& what);
// --device INDEX|NAME with the standard help text.
CLI::Option* add_device_option(CLI::App& app, std::string& selector);

}  // namespace univk::tools
