// BackendRegistry: the backends a method may use, by id (LoadOptions::backends;
// builtin_backends() is the default).
//
// Ownership: the registry owns its backends. Threading: registration happens before use; after
// that the registry is immutable and may serve many programs from many threads (backends are
// stateless factories).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "univk/backend/backend.h"
#include "univk/base/status.h"

namespace univk::runtime {

class BackendRegistry {
 public:
  Status add(std::unique_ptr<backend::Backend> backend);  // AlreadyExists for a duplicate id
  const backend::Backend* find(std::string_view id) const;
  std::vector<std::string> ids() const;

 private:
  std::vector<std::unique_ptr<backend::Backend>> backends_;
};

}  // namespace univk::runtime
