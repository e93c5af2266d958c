#include "cli.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stdout_check.h"
#include "univk/base/version.h"

namespace univk::tools {

ToolApp::ToolApp(const std::string& tool, const std::string& description) : CLI::App(description, tool), tool_(tool) {
  set_version_flag("--version", tool + " " + std::string(version_string()), "Print the univk version and exit");
  set_help_flag("-h,--help", "Print this help and exit");
  // CLI11's usage errors become one "<tool>: <problem>" line; every one exits kExitUsage.
  failure_message([](const CLI::App* app, const CLI::Error& e) {
    return app->get_name() + ": " + e.what() + "\nRun '" + app->get_name() + " --help' for the options.\n";
  });
}

std::optional<int> ToolApp::parse_command_line(int argc, char** argv, int stdout_failure_exit) {
  try {
    parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const bool success = e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    // exit() prints help and version on stdout, errors (through failure_message) on stderr.
    exit(e);
    if (!success) return kExitUsage;
    return stdout_written(tool_.c_str()) ? 0 : stdout_failure_exit;
  }
  return std::nullopt;
}

int ToolApp::usage_error(const std::string& problem) const {
  std::fprintf(stderr, "%s: %s\nRun '%s --help' for the options.\n", tool_.c_str(), problem.c_str(), tool_.c_str());
  return kExitUsage;
}

CLI::Validator finite_non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || v < 0) {
          return "'" + text + "' is not a finite number >= 0";
        }
        return {};
      },
      "NUMBER>=0");
}

CLI::Validator key_equals_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0) return "'" + text + "' is not KEY=VALUE";
        return {};
      },
      "KEY=VALUE");
}

CLI::Option* add_json_option(CLI::App& app, std::string& path, const std::string& what) {
  return app.add_option("--json", path, "Write " + what + " as JSON into FILE ('-': standard output, nothing else)")
      ->type_name("FILE");
}

CLI::Option* add_device_option(CLI::App& app, std::string& selector) {
  return app
      .add_option("--device", selector,
                  "Vulkan device: an index in univk's device order (univk-devices lists it) or a substring of the "
                  "device name; default UNIVK_DEVICE, else the first device")
      ->type_name("INDEX|NAME");
}

}  // namespace univk::tools
