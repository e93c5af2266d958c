#include "profile_output.h"

namespace univk::tools {

Status write_profile(const runtime::Method& method, bool print_table, const std::string& trace_path, FILE* out) {
  auto profile = method.profile();
  if (!profile.ok()) return profile.status().with_context("profile");
  if (print_table) std::fputs(profile->table().c_str(), out);
  if (!trace_path.empty()) UNIVK_RETURN_IF_ERROR(profile->write_chrome_trace(trace_path));
  return ok_status();
}

}  // namespace univk::tools
