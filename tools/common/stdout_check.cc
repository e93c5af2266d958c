#include "stdout_check.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace univk::tools {

bool stdout_written(const char* tool) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && !std::ferror(stdout)) return true;
  std::fprintf(stderr, "%s: cannot write standard output: %s\n", tool,
               err != 0 ? std::strerror(err) : "a write failed");
  return false;
}

}  // namespace univk::tools
