// Leveled logging to stderr. The level comes from UNIVK_LOG_LEVEL (error, warning, info, debug;
// default warning), read once; any other value is warned about once and means warning.
// Thread-safe: each message is written with one call.
// Lines look like "[univk I method_loader.cc:212] text"; the letter is the level (E, W, I, D),
// or P for progress lines (log_progress).
#pragma once

#include <sstream>
#include <string>

namespace univk {

enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

LogLevel log_level();
void set_log_level(LogLevel level);  // overrides the environment (tests, tools' --verbose)
bool log_enabled(LogLevel level);
void log_message(LogLevel level, const char* file, int line, const std::string& text);
// Progress of long work (pipeline compilation at load): written at the default level and above
// (hidden only by UNIVK_LOG_LEVEL=error), tagged P so it does not read as a warning. Callers
// rate-limit it.
void log_progress(const char* file, int line, const std::string& text);

namespace detail {
class LogLine {
 public:
  LogLine(LogLevel level, const char* file, int line) : level_(level), file_(file), line_(line) {}
  ~LogLine() { log_message(level_, file_, line_, stream_.str()); }
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  const char* file_;
  int line_;
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace univk

// UNIVK_LOG(kInfo) << "text"; the stream expression is not evaluated when the level is off.
#define UNIVK_LOG(level)                                 \
  if (!::univk::log_enabled(::univk::LogLevel::level)) { \
  } else                                                 \
    ::univk::detail::LogLine(::univk::LogLevel::level, __FILE__, __LINE__).stream()
