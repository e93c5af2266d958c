// The VgfBackend factory: prepare() decodes the VGF once; its requirements and delegates (on the
// lowered compute path) come from the decoded file.
#include "univk/backends/vgf/vgf_backend.h"

#include <charconv>

#include "graph_path.h"
#include "requirements.h"
#include "vgf_delegate.h"
#include "univk/kernels/kernel.h"
#include "univk/vgf/vgf_file.h"

namespace univk::backends {

namespace {

// The runtime option keys the VgfBackend reads (LoadOptions::check_keys refuses others).
constexpr std::string_view kOptionKeys[] = {"vgf_graph_path",           "max_binding_bytes", "vgf_output_staging",
                                            "vgf_robust_buffer_access", "precision",         "winograd"};

// The VgfBackend's runtime options; options of other backends and of the runtime pass through.
Result<vgf::DelegateOptions> parse_options(const backend::BackendOptions& options) {
  vgf::DelegateOptions parsed;
  for (const auto& [name, value] : options) {
    // Device selection (shared or standalone) happened in the Method from these options; the
    // delegate resolves the graph path against the device it got (graph_path.h).
    if (name == "vgf_graph_path") {
      auto path = vgf::parse_graph_path(value);
      if (!path.ok()) return path.status().with_context("VgfBackend");
      parsed.graph_path = *path;
    }
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
    if (name == "precision") {
      auto precision = kernels::parse_precision(value);
      if (!precision.ok()) return precision.status().with_context("VgfBackend");
      parsed.precision = *precision;
    }
    if (name == "winograd") {
      auto winograd = kernels::parse_winograd(value);
      if (!winograd.ok()) return winograd.status().with_context("VgfBackend");
      parsed.winograd = *winograd;
    }
    if (name == "vgf_robust_buffer_access") {
      if (value != "on" && value != "off")
        return invalid_argument("VgfBackend: vgf_robust_buffer_access '" + value + "' (on or off)");
      parsed.robust_buffer_access = value == "on";
    }
  }
  return parsed;
}

// A decoded VGF and what it needs from a device.
class PreparedVgf final : public backend::PreparedPayload {
 public:
  PreparedVgf(backend::DelegateSpec spec, univk::vgf::VgfFile file, vulkan::DeviceRequirements requirements)
      : spec_(std::move(spec)), file_(std::move(file)), requirements_(std::move(requirements)) {}

  const vulkan::DeviceRequirements& requirements() const override { return requirements_; }

  Result<std::unique_ptr<backend::Delegate>> init(vulkan::DeviceLease device,
                                                  const backend::BackendOptions& options) const override {
    auto parsed = parse_options(options);
    if (!parsed.ok()) return parsed.status();
    auto delegate = vgf::VgfDelegate::create(spec_, file_, std::move(device), *parsed);
    if (!delegate.ok()) return delegate.status();
    return std::unique_ptr<backend::Delegate>(std::move(delegate.value()));
  }

 private:
  backend::DelegateSpec spec_;
  univk::vgf::VgfFile file_;
  vulkan::DeviceRequirements requirements_;
};

class VgfBackend final : public backend::Backend {
 public:
  std::string_view id() const override { return kVgfBackendId; }

  Result<std::unique_ptr<backend::PreparedPayload>> prepare(const backend::DelegateSpec& spec) const override {
    auto file = univk::vgf::decode_vgf(spec.payload);
    if (!file.ok()) return file.status().with_context("VgfBackend");
    auto requirements = vgf::vgf_requirements(*file);
    if (!requirements.ok()) return requirements.status().with_context("VgfBackend");
    requirements->merge(kernels::optional_requirements());
    return std::unique_ptr<backend::PreparedPayload>(
        std::make_unique<PreparedVgf>(spec, std::move(file).value(), std::move(requirements).value()));
  }

  std::vector<std::string_view> option_keys() const override {
    return {std::begin(kOptionKeys), std::end(kOptionKeys)};
  }
};

}  // namespace

std::unique_ptr<backend::Backend> make_vgf_backend() { return std::make_unique<VgfBackend>(); }

}  // namespace univk::backends
