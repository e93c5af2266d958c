#include "univk/runtime/builtin_backends.h"

#include "univk/base/logging.h"
#if defined(UNIVK_HAS_VULKAN_BACKEND)
#include "univk/backends/vulkan/vulkan_backend.h"
#endif
#if defined(UNIVK_HAS_VGF_BACKEND)
#include "univk/backends/vgf/vgf_backend.h"
#endif

namespace univk::runtime {

namespace {

BackendRegistry* make_builtin_registry() {
  auto* registry = new BackendRegistry();
  auto add = [&](std::unique_ptr<Backend> backend) {
    Status status = registry->add(std::move(backend));
    // Only a duplicate id can fail here, which the build rules out; log rather than abort.
    if (!status.ok()) {
      UNIVK_LOG(kError) << "builtin backends: " << status.to_string();
    }
  };
#if defined(UNIVK_HAS_VULKAN_BACKEND)
  add(backends::make_vulkan_backend());
#endif
#if defined(UNIVK_HAS_VGF_BACKEND)
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
