// LoadOptions::check_keys: every runtime option key must be read by someone.
#include <set>

#include "univk/runtime/program.h"

namespace univk::runtime {
namespace {

void add_shared_keys(std::set<std::string, std::less<>>& keys) {
  for (std::string_view key : vulkan::SharedDeviceOptions::kOptionKeys) keys.emplace(key);
}

std::string list(const std::set<std::string, std::less<>>& keys) {
  std::string out;
  for (const auto& key : keys) out += (out.empty() ? "" : ", ") + key;
  return out;
}

}  // namespace

Status LoadOptions::check_keys() const {
  if (backends == nullptr) return invalid_argument("LoadOptions::backends is null");
  std::set<std::string, std::less<>> any_backend;
  add_shared_keys(any_backend);
  for (const std::string& id : backends->ids()) {
    for (std::string_view key : backends->find(id)->option_keys()) any_backend.emplace(key);
  }
  for (const auto& [key, value] : all_backends) {
    if (!any_backend.contains(key)) {
      return invalid_argument("unknown runtime option '" + key + "' (known: " + list(any_backend) + ")");
    }
  }
  for (const auto& [id, options] : backend_options) {
    const backend::Backend* found = backends->find(id);
    if (found == nullptr) {
      std::set<std::string, std::less<>> ids;
      for (const std::string& known : backends->ids()) ids.insert(known);
      return not_found("runtime options for backend '" + id + "', which is not registered (registered: " + list(ids) +
                       ")");
    }
    std::set<std::string, std::less<>> known;
    add_shared_keys(known);
    for (std::string_view key : found->option_keys()) known.emplace(key);
    for (const auto& [key, value] : options) {
      if (!known.contains(key)) {
        return invalid_argument("unknown runtime option '" + key + "' for backend '" + id + "' (known: " + list(known) +
                                ")");
      }
    }
  }
  return ok_status();
}

}  // namespace univk::runtime
