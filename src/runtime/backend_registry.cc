#include "univk/runtime/backend_registry.h"

namespace univk::runtime {

Status BackendRegistry::add(std::unique_ptr<backend::Backend> added) {
  if (added == nullptr) return invalid_argument("BackendRegistry::add: null backend");
  if (find(added->id()) != nullptr) {
    return already_exists("backend '" + std::string(added->id()) + "' is already registered");
  }
  backends_.push_back(std::move(added));
  return ok_status();
}

const backend::Backend* BackendRegistry::find(std::string_view id) const {
  for (const auto& backend : backends_) {
    if (backend->id() == id) return backend.get();
  }
  return nullptr;
}

std::vector<std::string> BackendRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& backend : backends_) out.emplace_back(backend->id());
  return out;
}

}  // namespace univk::runtime
