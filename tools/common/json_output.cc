#include "json_output.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace univk::tools {

std::string json_text(const Json& json) { return json.dump(2, ' ', false, Json::error_handler_t::replace); }

bool write_output(const std::string& text, const std::string& path, const char* tool) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return true;
  }
  errno = 0;
  FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "%s: cannot write %s: %s\n", tool, path.c_str(), errno != 0 ? std::strerror(errno) : "failed");
  }
  return ok;
}

bool write_json(const Json& json, const std::string& path, const char* tool) {
  return write_output(json_text(json) + "\n", path, tool);
}

Json json_number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

}  // namespace univk::tools
