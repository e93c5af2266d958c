// The VgfBackend factory: requirements from the VGF, delegates on the lowered compute path.
#include "univk/backends/vgf/vgf_backend.h"

#include <charconv>

#include "requirements.h"
#include "vgf_delegate.h"
#include "univk/vgf/vgf_file.h"

namespace univk::backends {

namespace {

// The runtime option keys the VgfBackend reads (LoadOptions::check_keys refuses others).
constexpr std::string_view kOptionKeys[] = {"vgf_execution_path", "max_binding_bytes", "vgf_output_staging",
                                             "vgf_robust_buffer_access"};

// The VgfBackend's runtime options; options of other backends and of the runtime pass through.
Result<vgf::DelegateOptions> parse_options(const runtime::BackendOptions& options) {
  vgf::DelegateOptions parsed;
  for (const auto& [name, value] : options) {
    // Device selection (shared or standalone) happened in the Method from these options; a
    // native VK_ARM_data_graph path would be chosen here when the device had it. It is not
    // implemented, so every device takes the lowered compute path.
    if (name == "vgf_execution_path" && value != "lowered")
      return unsupported("VgfBackend: vgf_execution_path '" + value +
                         "': only 'lowered' exists; the native VK_ARM_data_graph path is not implemented");
    if (name == "max_binding_bytes") {
      uint64_t bytes = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
      if (ec != std::errc() || end != value.data() + value.size() || bytes == 0)
        return invalid_argument("VgfBackend: max_binding_bytes '" + value + "' is not a positive byte count");
      parsed.max_binding_bytes = bytes;
    }
    if (name == "vgf_output_staging") {
      if (value != "auto" && value != "always")
        return invalid_argument("VgfBackend: vgf_output_staging '" + value + "' (auto or always)");
      parsed.always_stage_outputs = value == "always";
    }
    if (name == "vgf_robust_buffer_access") {
      if (value != "on" && value != "off")
        return invalid_argument("VgfBackend: vgf_robust_buffer_access '" + value + "' (on or off)");
      parsed.robust_buffer_access = value == "on";
    }
  }
  return parsed;
}

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
    auto parsed = parse_options(options);
    if (!parsed.ok()) return parsed.status();
    auto delegate = vgf::VgfDelegate::create(spec, std::move(device), *parsed);
    if (!delegate.ok()) return delegate.status();
    return std::unique_ptr<runtime::Delegate>(std::move(delegate.value()));
  }

  std::vector<std::string_view> option_keys() const override {
    return {std::begin(kOptionKeys), std::end(kOptionKeys)};
  }
};

}  // namespace

std::unique_ptr<runtime::Backend> make_vgf_backend() { return std::make_unique<VgfBackend>(); }

}  // namespace univk::backends
