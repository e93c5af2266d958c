// The VgfBackend factory: requirements from the VGF, delegates on the lowered compute path.
#include "univk/backends/vgf/vgf_backend.h"

#include "requirements.h"
#include "vgf_delegate.h"
#include "univk/vgf/vgf_file.h"

namespace univk::backends {

namespace {

class VgfBackend final : public runtime::Backend {
 public:
  std::string_view id() const override { return kVgfBackendId; }

  Result<vulkan::DeviceRequirements> requirements(const runtime::DelegateSpec& spec) const override {
    auto file = univk::vgf::decode_vgf(spec.payload);
    if (!file.ok()) return file.status().with_context("VgfBackend");
    auto r = vgf::vgf_requirements(*file);
    if (!r.ok()) return r.status().with_context("VgfBackend");
    return r;
  }

  Result<std::unique_ptr<runtime::Delegate>> init(const runtime::DelegateSpec& spec, vulkan::DeviceLease device,
                                                  const runtime::BackendOptions& options) const override {
    // Device selection (shared or standalone) happened in the Method from these options; a
    // native VK_ARM_data_graph path would be chosen here when the device had it. It is not
    // implemented, so every device takes the lowered compute path.
    for (const auto& [name, value] : options) {
      if (name == "vgf_execution_path" && value != "lowered")
        return unsupported("VgfBackend: vgf_execution_path '" + value +
                           "': only 'lowered' exists; the native VK_ARM_data_graph path is not implemented");
    }
    auto delegate = vgf::VgfDelegate::create(spec, std::move(device));
    if (!delegate.ok()) return delegate.status();
    return std::unique_ptr<runtime::Delegate>(std::move(delegate.value()));
  }
};

}  // namespace

std::unique_ptr<runtime::Backend> make_vgf_backend() { return std::make_unique<VgfBackend>(); }

}  // namespace univk::backends
