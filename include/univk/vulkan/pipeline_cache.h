// The device's compute pipelines, shared by every delegate of every backend on the device: one
// VkPipeline per (SPIR-V module, entry point, descriptor layout, push-constant size,
// specialization constants), created on first use and kept while someone holds it.
//
// Ownership: entries live in the device's SharedObjectCache (shared_objects.h), which holds them
// weakly: a pipeline lives while a caller holds the shared_ptr returned here (a delegate keeps
// the pipelines its command buffers use) and is destroyed with the last holder. Each pipeline
// holds the Device.
// Thread safety: may be called concurrently. Creation runs outside the cache's lock; when two
// threads create one key at once both get the pipeline stored first and the other is dropped.
#pragma once

#include <memory>
#include <string>

#include "univk/base/status.h"
#include "univk/vulkan/pipeline.h"

namespace univk::vulkan {

class Device;

// The pipeline for `desc` on `device`. `desc.debug_name` is not part of the key: it names the
// pipeline in error messages of its creation only.
Result<std::shared_ptr<const ComputePipeline>> get_or_create_pipeline(const std::shared_ptr<Device>& device,
                                                                      const ComputePipelineDesc& desc);

// The cache key of `desc` (exposed for tests): a hash of the SPIR-V words plus everything else
// the pipeline depends on, spelled out.
std::string pipeline_cache_key(const ComputePipelineDesc& desc);

}  // namespace univk::vulkan
