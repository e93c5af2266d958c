// Out-of-line destructors (the one translation unit that holds the contract's vtables) and
// create_delegate.
#include "univk/backend/backend.h"

namespace univk::backend {

Delegate::~Delegate() = default;

void Delegate::set_gpu_timer(vulkan::GpuTimer*) {}
PreparedPayload::~PreparedPayload() = default;
Backend::~Backend() = default;

Result<std::unique_ptr<Delegate>> create_delegate(const Backend& backend, const DelegateSpec& spec,
                                                  vulkan::DeviceLease device, const BackendOptions& options) {
  UNIVK_ASSIGN_OR_RETURN(std::unique_ptr<PreparedPayload> prepared, backend.prepare(spec));
  return prepared->init(std::move(device), options);
}

}  // namespace univk::backend
