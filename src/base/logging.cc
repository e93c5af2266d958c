#include "univk/base/logging.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace univk {
namespace {

LogLevel level_from_environment() {
  const char* env = std::getenv("UNIVK_LOG_LEVEL");
  if (env == nullptr || *env == '\0' || std::strcmp(env, "warning") == 0) return LogLevel::kWarning;
  if (std::strcmp(env, "error") == 0) return LogLevel::kError;
  if (std::strcmp(env, "info") == 0) return LogLevel::kInfo;
  if (std::strcmp(env, "debug") == 0) return LogLevel::kDebug;
  const std::string out = std::string("[univk W logging.cc] UNIVK_LOG_LEVEL=") + env +
                          " is not one of error, warning, info, debug; using warning\n";
  std::fwrite(out.data(), 1, out.size(), stderr);
  return LogLevel::kWarning;
}

std::atomic<int>& current_level() {
  static std::atomic<int> level{static_cast<int>(level_from_environment())};
  return level;
}

const char* level_tag(LogLevel level) {
  switch (level) {
    case LogLevel::kError:
      return "E";
    case LogLevel::kWarning:
      return "W";
    case LogLevel::kInfo:
      return "I";
    case LogLevel::kDebug:
      return "D";
  }
  return "?";
}

void write_line(const char* tag, const char* file, int line, const std::string& text) {
  const char* base = std::strrchr(file, '/');
  std::string out =
      std::string("[univk ") + tag + " " + (base ? base + 1 : file) + ":" + std::to_string(line) + "] " + text + "\n";
  std::fwrite(out.data(), 1, out.size(), stderr);
}

}  // namespace

LogLevel log_level() { return static_cast<LogLevel>(current_level().load()); }
void set_log_level(LogLevel level) { current_level().store(static_cast<int>(level)); }
bool log_enabled(LogLevel level) { return static_cast<int>(level) <= current_level().load(); }

void log_message(LogLevel level, const char* file, int line, const std::string& text) {
  write_line(level_tag(level), file, line, text);
}

void log_progress(const char* file, int line, const std::string& text) {
  if (log_enabled(LogLevel::kWarning)) write_line("P", file, line, text);
}

}  // namespace univk
