#include "univk/runtime/builtin_backends.h"

#include "univk/base/logging.h"
#include "univk/config.h"
#if UNIVK_BUILD_VULKAN_BACKEND
#include "univk/backends/vulkan/vulkan_backend.h"
#endif
#if UNIVK_BUILD_VGF
#include "univk/backends/vgf/vgf_backend.h"
#endif

namespace univk::runtime {

namespace {

BackendRegistry* make_builtin_registry() {
  auto* registry = new BackendRegistry();
  auto add = [&](std::unique_ptr<backend::Backend> added) {
    Status status = registry->add(std::move(added));
    // Only a duplicate id can fail here, which the build rules out; log rather than abort.
    if (!status.ok()) {
      UNIVK_LOG(kError) << "builtin backends: " << status.to_string();
    }
  };
#if UNIVK_BUILD_VULKAN_BACKEND
  add(backends::make_vulkan_backend());
#endif
#if UNIVK_BUILD_VGF
  add(backends::make_vgf_backend());
#endif
  (void)add;
  return registry;
}

}  // namespace

const BackendRegistry& builtin_backends() {
  // Never destroyed: no teardown order between this and programs still loaded at exit.
  static const BackendRegistry* registry = make_builtin_registry();
  return *registry;
}

}  // namespace univk::runtime
