// The VulkanBackend factory: prepare() parses and checks the compute graph once; delegates share
// the parsed graph.
#include "univk/backends/vulkan/vulkan_backend.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "graph_plan.h"
#include "univk/kernels/kernel.h"
#include "vulkan_delegate.h"

namespace univk::backends {
namespace {

// The runtime option keys the VulkanBackend reads (LoadOptions::check_keys refuses others).
constexpr std::string_view kOptionKeys[] = {"max_binding_bytes", "precision"};

// The VulkanBackend's runtime options; options of other backends and of the runtime pass
// through. `max_binding_bytes` (a test and tuning option, shared with the VgfBackend) lowers the
// binding limit below maxStorageBufferRange, so kernel-library dispatches split on small
// tensors; `precision` (shared with the VgfBackend) is the library kernels' multiply precision.
Result<vulkan::DelegateOptions> parse_options(const backend::BackendOptions& options) {
  vulkan::DelegateOptions parsed;
  for (const auto& [name, value] : options) {
    if (name == "max_binding_bytes") {
      uint64_t bytes = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
      if (ec != std::errc() || end != value.data() + value.size() || bytes == 0) {
        return invalid_argument("VulkanBackend: max_binding_bytes '" + value + "' is not a positive byte count");
      }
      parsed.max_binding_bytes = bytes;
    }
    if (name == "precision") {
      auto precision = kernels::parse_precision(value);
      if (!precision.ok()) return precision.status().with_context("VulkanBackend");
      parsed.precision = *precision;
    }
  }
  return parsed;
}

// A parsed compute graph, checked against the call's tensors. Its requirements: every shader
// is plain compute; the shared Queue orders submissions with a timeline semaphore; a graph
// holding 1-byte values (bool results of comparisons, masks) reads and writes them with 8-bit
// storage, which every other graph asks for as optional features, so that a shared device
// created for it can later run such a graph; the kernel library's optional extras
// (cooperative matrices for precision=fp16).
class PreparedComputeGraph final : public backend::PreparedPayload {
 public:
  PreparedComputeGraph(backend::DelegateSpec spec, std::shared_ptr<const ComputeGraph> graph)
      : spec_(std::move(spec)), graph_(std::move(graph)) {
    requirements_.min_api_version = VK_API_VERSION_1_2;
    requirements_.required_features = {univk::vulkan::Feature::kTimelineSemaphore};
    const bool bytes = std::any_of(graph_->values.begin(), graph_->values.end(),
                                   [](const ComputeValue& v) { return dtype_size(v.dtype) == 1; });
    for (auto feature : {univk::vulkan::Feature::kStorageBuffer8BitAccess, univk::vulkan::Feature::kShaderInt8}) {
      (bytes ? requirements_.required_features : requirements_.optional_features).insert(feature);
    }
    requirements_.queue_flags = VK_QUEUE_COMPUTE_BIT;
    requirements_.merge(kernels::optional_requirements());
  }

  const univk::vulkan::DeviceRequirements& requirements() const override { return requirements_; }

  Result<std::unique_ptr<backend::Delegate>> init(univk::vulkan::DeviceLease device,
                                                  const backend::BackendOptions& options) const override {
    auto parsed = parse_options(options);
    if (!parsed.ok()) return parsed.status();
    auto delegate = vulkan::VulkanDelegate::create(spec_, graph_, std::move(device), *parsed);
    if (!delegate.ok()) return delegate.status().with_context("VulkanBackend");
    return std::unique_ptr<backend::Delegate>(std::move(delegate).value());
  }

 private:
  backend::DelegateSpec spec_;
  std::shared_ptr<const ComputeGraph> graph_;
  univk::vulkan::DeviceRequirements requirements_;
};

class VulkanBackend final : public backend::Backend {
 public:
  std::string_view id() const override { return kVulkanBackendId; }

  // The payload is parsed and planned here (with the smallest storage alignment any device has)
  // so a bad one fails before any device is created; each device plans it again with its own
  // alignment.
  Result<std::unique_ptr<backend::PreparedPayload>> prepare(const backend::DelegateSpec& spec) const override {
    auto graph = parse_compute_graph(spec.payload);
    if (!graph.ok()) return graph.status().with_context("VulkanBackend");
    std::vector<ComputeTensorType> inputs, outputs;
    for (const auto& t : spec.inputs) inputs.push_back({t.dtype, t.shape});
    for (const auto& t : spec.outputs) outputs.push_back({t.dtype, t.shape});
    auto plan = vulkan::plan_graph(*graph, inputs, outputs, 16);
    if (!plan.ok()) return plan.status().with_context("VulkanBackend");
    return std::unique_ptr<backend::PreparedPayload>(
        std::make_unique<PreparedComputeGraph>(spec, std::make_shared<const ComputeGraph>(std::move(graph).value())));
  }

  std::vector<std::string_view> option_keys() const override {
    return {std::begin(kOptionKeys), std::end(kOptionKeys)};
  }
};

}  // namespace

std::unique_ptr<backend::Backend> make_vulkan_backend() { return std::make_unique<VulkanBackend>(); }

}  // namespace univk::backends
