#include "loader.h"

#include <dlfcn.h>

#include <mutex>

#include <volk.h>

namespace univk::vulkan {

Status ensure_loader() {
  static std::once_flag once;
  static Status* result = nullptr;  // never destroyed: read by threads that may outlive statics
  std::call_once(once, [] {
    VkResult r = volkInitialize();
    if (r != VK_SUCCESS) {
      result =
          new Status(incompatible("cannot load the Vulkan loader (libvulkan.so.1): is a Vulkan driver installed?"));
      return;
    }
    // volkLoadDeviceTable resolves device functions through the global vkGetDeviceProcAddr,
    // which volk would otherwise only set from volkLoadInstance (a process-global instance
    // table we never load). The loader exports a vkGetDeviceProcAddr that dispatches on the
    // device handle, so it serves every device of every instance.
    void* module = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (module == nullptr) module = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    void* gdpa = module != nullptr ? dlsym(module, "vkGetDeviceProcAddr") : nullptr;
    if (gdpa == nullptr) {
      result = new Status(incompatible("the Vulkan loader exports no vkGetDeviceProcAddr"));
      return;
    }
    vkGetDeviceProcAddr = reinterpret_cast<PFN_vkGetDeviceProcAddr>(gdpa);
    result = new Status();
  });
  return *result;
}

}  // namespace univk::vulkan
