// Helpers of the VulkanBackend tests: one shared device per test binary, single-op graphs,
// running a graph through the backend (random inputs and comparison: tests/support/univk_test.h).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "univk/backends/vulkan/compute_graph.h"
#include "univk/backends/vulkan/vulkan_backend.h"
#include "univk/backend/backend.h"
#include "univk/kernels/kernel.h"
#include "univk/tensor/tensor.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/runtime_config.h"
#include "univk_test.h"

namespace univk::backends::testing {

using ::univk::testing::random_tensor;
using ::univk::testing::tensors_close;

// A device with the backend's requirements (the kernel library's optional ones included, so
// precision=fp16 takes cooperative matrices where the device has them), created once per
// process (lavapipe device creation with validation is slow) and kept until exit.
inline std::shared_ptr<univk::vulkan::Device> shared_device() {
  static std::shared_ptr<univk::vulkan::Device> device = [] {
    univk::vulkan::DeviceRequirements r;
    r.min_api_version = VK_API_VERSION_1_2;
    r.required_features = {univk::vulkan::Feature::kTimelineSemaphore};
    r.merge(kernels::optional_requirements());
    auto d = univk::vulkan::Device::create(univk::vulkan::RuntimeConfig::from_environment(), r);
    if (!d.ok()) ADD_FAILURE() << "device creation failed: " << d.status().to_string();
    return d.ok() ? *d : nullptr;
  }();
  return device;
}

inline ComputeValue value_of(const HostTensor& t, bool constant) {
  ComputeValue v;
  v.dtype = t.dtype();
  v.shape = t.shape();
  if (constant) v.constant.assign(t.bytes().begin(), t.bytes().end());
  return v;
}

// Runs `graph` through the backend in per_delegate mode with `inputs` (graph input order) and
// the backend's runtime `options`.
struct RunResult {
  std::vector<HostTensor> outputs;
  backend::ExecuteStats stats;
};
inline Result<RunResult> run_graph(const ComputeGraph& graph, const std::vector<HostTensor>& inputs,
                                   const backend::BackendOptions& options = {}) {
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> payload, serialize_compute_graph(graph));
  backend::DelegateSpec spec;
  spec.backend_id = kVulkanBackendId;
  spec.payload = payload;
  for (uint32_t id : graph.inputs) spec.inputs.push_back({graph.values[id].dtype, graph.values[id].shape});
  for (uint32_t id : graph.outputs) spec.outputs.push_back({graph.values[id].dtype, graph.values[id].shape});
  UNIVK_ASSIGN_OR_RETURN(auto prepared, make_vulkan_backend()->prepare(spec));
  auto device = shared_device();
  if (!device) return internal_error("no device");
  UNIVK_ASSIGN_OR_RETURN(auto delegate, prepared->init(device, options));
  UNIVK_RETURN_IF_ERROR(delegate->prepare_execute());
  UNIVK_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, delegate->execute(inputs));
  return RunResult{std::move(outputs), delegate->stats()};
}

}  // namespace univk::backends::testing
