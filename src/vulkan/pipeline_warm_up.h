// Pipeline warm-up (internal to src/vulkan; get_or_create_pipeline calls it).
//
// Some drivers generate a pipeline's machine code at its first dispatch instead of in
// vkCreateComputePipelines: Mesa's lavapipe JIT-compiles a compute shader when a grid is first
// launched with it (0.05-0.2 s per shader on one core), so without a warm-up a method's first
// execute pays every shader of the model. warm_up_pipeline dispatches the pipeline once with
// zero workgroups: no invocation runs, but the driver compiles, so the cost lands where the
// pipeline is created, in load_method.
//
// Thread safety: may be called from any thread; it records into its own command pool and
// submits through the device's Queue.
#pragma once

#include <memory>

#include "univk/base/status.h"
#include "univk/vulkan/pipeline.h"

namespace univk::vulkan {

class Device;

// True for devices whose driver compiles at first dispatch: CPU devices (lavapipe). GPU drivers
// compile in vkCreateComputePipelines, so warming up there would only add a submission.
bool compiles_at_first_dispatch(const Device& device);

// Binds `pipeline` with every descriptor of `desc` pointing at one scratch buffer, sets its push
// constants to zero, dispatches zero workgroups, submits and waits. Leaves nothing behind.
Status warm_up_pipeline(const std::shared_ptr<Device>& device, const ComputePipeline& pipeline,
                        const ComputePipelineDesc& desc);

}  // namespace univk::vulkan
