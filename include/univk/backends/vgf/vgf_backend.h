// VgfBackend: runs VGF files (Arm ML SDK for Vulkan containers) on any Vulkan device.
//
// Payload: one VGF file (univk's encoder or Arm's tools). GRAPH segments (TOSA 1.0 operators in
// SPIR-V graphs) are lowered to univk's own TOSA compute shaders (GLSL compiled at build time),
// with chains of elementwise operators fused into one dispatch and boundary TRANSPOSEs folded
// into neighbouring kernels; COMPUTE segments run the module's own SPIR-V compute shader.
// A native VK_ARM_data_graph path is not implemented (see docs/VGF_BACKEND.md).
//
// Ownership: make_vgf_backend() returns a stateless factory owned by the caller (usually a
// runtime::BackendRegistry). Each Delegate it creates owns its buffers, pipelines, descriptor
// and command pools and holds a DeviceLease; its destructor waits only for its own submissions.
#pragma once

#include <memory>
#include <string_view>

#include "univk/backend/backend.h"

namespace univk::backends {

inline constexpr std::string_view kVgfBackendId = "VgfBackend";

std::unique_ptr<backend::Backend> make_vgf_backend();

}  // namespace univk::backends
