// PreparedGraph: what one VulkanBackend payload needs on a device, whoever calls it: the plan,
// the pipelines and the constant buffer (uploaded once). Delegates that run the same payload
// with the same tensor types on one device share one PreparedGraph (through the device's
// SharedObjectCache), so a program that calls a small delegate thousands of times prepares it
// once. Each delegate keeps its own arena, descriptor pools and per_delegate IO buffers.
//
// Ownership: immutable after create; held through shared_ptr by the delegates that use it. Its
// buffers and pipelines hold the Device.
#pragma once

#include <memory>

#include "graph_plan.h"
#include "pipeline_set.h"
#include "univk/backend/backend.h"
#include "univk/kernels/kernel.h"
#include "univk/vulkan/buffer.h"

namespace univk::backends::vulkan {

struct PreparedGraph {
  GraphPlan plan;
  PipelineSet pipelines;
  univk::vulkan::Buffer constants;  // device-local, plan.constant_bytes, written before create returns

  // Shared when the device already holds one for the same payload bytes, tensor types, binding
  // limit and precision (the library kernels', kernels/kernel.h). Payloads over
  // kMaxSharedPayloadBytes are prepared per delegate: sharing keys hold a copy of the payload,
  // and large payloads are rarely repeated.
  // The binding limit is min(maxStorageBufferRange, `max_binding_bytes`): kernel-library
  // dispatches are split to fit it (kernels/split.h); any other dispatch over it is Unsupported.
  static Result<std::shared_ptr<const PreparedGraph>> get_or_create(
      const std::shared_ptr<univk::vulkan::Device>& device, const backend::DelegateSpec& spec,
      const ComputeGraph& graph, uint64_t max_binding_bytes = UINT64_MAX,
      kernels::Precision precision = kernels::Precision::kFp32);
  static constexpr size_t kMaxSharedPayloadBytes = 1 << 20;
};

// minStorageBufferOffsetAlignment, at least 16 (the vec4 kernels read 16-byte elements).
uint64_t storage_alignment(const univk::vulkan::Device& device);

}  // namespace univk::backends::vulkan
