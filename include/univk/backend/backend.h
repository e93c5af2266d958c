// The backend contract: how the method runtime turns one delegate call into work on a device.
// It sits below both the backends that implement it and the runtime that calls it
// (docs/ARCHITECTURE.md, "Layers").
//
// Life of a delegate call (docs/RUNTIME.md, "What load_method does"):
//   1. Backend::prepare(spec)          parses and checks the payload once, before any device
//                                      exists; a bad payload fails here;
//   2. PreparedPayload::requirements() what the payload needs from a device; the method merges
//                                      the requirements of all its delegates per device key, so
//                                      load order never matters;
//   3. PreparedPayload::init(lease, options)
//                                      the Delegate (delegate.h) on the resolved device: buffers,
//                                      pipelines, constants, command buffers.
//
// Ownership: a Backend is a stateless factory owned by its registry. prepare() returns a
// PreparedPayload owned by the caller; it borrows spec.payload (valid for as long as the
// program is loaded) and may be destroyed once init() has returned: the Delegate keeps what it
// needs.
//
// Threading: Backend::prepare and Backend::option_keys may run on many threads at once. A
// PreparedPayload is used by one thread at a time; requirements() is a const accessor.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "univk/backend/delegate.h"
#include "univk/backend/delegate_spec.h"
#include "univk/base/status.h"
#include "univk/vulkan/device_requirements.h"
#include "univk/vulkan/registry.h"

namespace univk::backend {

// One delegate call's payload, parsed and checked.
class PreparedPayload {
 public:
  virtual ~PreparedPayload();
  // What the payload needs from a device. Pure data; computed by prepare().
  virtual const vulkan::DeviceRequirements& requirements() const = 0;
  // Creates the delegate on `device`, which meets requirements(). `options` are this backend's
  // runtime options (keys from Backend::option_keys plus the shared-device keys).
  virtual Result<std::unique_ptr<Delegate>> init(vulkan::DeviceLease device, const BackendOptions& options) const = 0;
};

class Backend {
 public:
  virtual ~Backend();
  virtual std::string_view id() const = 0;  // "VgfBackend", "VulkanBackend"
  // Parses and checks spec.payload against spec's tensors. Creates no Vulkan object.
  virtual Result<std::unique_ptr<PreparedPayload>> prepare(const DelegateSpec& spec) const = 0;
  // The runtime option keys init() reads. The method reads the shared-device keys
  // (vulkan::SharedDeviceOptions::kOptionKeys) for every backend, so they are not listed here.
  // Program::load_method refuses any key that neither lists (LoadOptions::check_keys).
  virtual std::vector<std::string_view> option_keys() const { return {}; }
};

// prepare() then init(), for callers that already hold their device (tools, tests). Errors
// from prepare() are returned as they are: the payload is bad whatever the device.
Result<std::unique_ptr<Delegate>> create_delegate(const Backend& backend, const DelegateSpec& spec,
                                                  vulkan::DeviceLease device, const BackendOptions& options);

}  // namespace univk::backend
