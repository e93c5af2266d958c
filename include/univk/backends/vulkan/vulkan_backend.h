// The VulkanBackend: runs a ComputeGraph payload (compute_graph.h) with univk's built-in
// compute-shader operator library on a shared univk::vulkan::Device.
//
// Backend id "VulkanBackend". Requirements: Vulkan 1.2 with the timelineSemaphore feature and a
// compute queue; every shader is plain fp32 compute.
//
// Ownership: the returned Backend is a stateless factory (register it in a
// runtime::BackendRegistry). Each Delegate it creates owns its buffers, pipelines, descriptor
// pool and command pool, and holds a lease on the device; destroying it waits only for its own
// last submission.
#pragma once

#include <memory>

#include "univk/backend/backend.h"

namespace univk::backends {

inline constexpr const char* kVulkanBackendId = "VulkanBackend";

std::unique_ptr<backend::Backend> make_vulkan_backend();

}  // namespace univk::backends
