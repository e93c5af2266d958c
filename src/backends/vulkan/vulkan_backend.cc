// The VulkanBackend factory: requirements (pure) and init.
#include "univk/backends/vulkan/vulkan_backend.h"

#include <vector>

#include "graph_plan.h"
#include "vulkan_delegate.h"

namespace univk::backends {
namespace {

class VulkanBackend final : public runtime::Backend {
 public:
  std::string_view id() const override { return kVulkanBackendId; }

  // Every shader is plain fp32 compute; the shared Queue orders submissions with a timeline
  // semaphore. The payload is parsed and planned here so a bad one fails before any device
  // is created.
  Result<vulkan::DeviceRequirements> requirements(const runtime::DelegateSpec& spec) const override {
    UNIVK_ASSIGN_OR_RETURN(ComputeGraph graph, parse_compute_graph(spec.payload));
    std::vector<ComputeTensorType> inputs, outputs;
    for (const auto& t : spec.inputs) inputs.push_back({t.dtype, t.shape});
    for (const auto& t : spec.outputs) outputs.push_back({t.dtype, t.shape});
    auto plan = detail::plan_graph(graph, inputs, outputs, 16);
    if (!plan.ok()) return plan.status().with_context("VulkanBackend");
    vulkan::DeviceRequirements r;
    r.min_api_version = VK_API_VERSION_1_2;
    r.required_features = {vulkan::Feature::kTimelineSemaphore};
    r.queue_flags = VK_QUEUE_COMPUTE_BIT;
    return r;
  }

  Result<std::unique_ptr<runtime::Delegate>> init(const runtime::DelegateSpec& spec, vulkan::DeviceLease device,
                                                  const runtime::BackendOptions&) const override {
    auto delegate = detail::VulkanDelegate::create(spec, std::move(device));
    if (!delegate.ok()) return delegate.status().with_context("VulkanBackend");
    return std::unique_ptr<runtime::Delegate>(std::move(delegate).value());
  }
};

}  // namespace

std::unique_ptr<runtime::Backend> make_vulkan_backend() { return std::make_unique<VulkanBackend>(); }

}  // namespace univk::backends
