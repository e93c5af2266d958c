// The device's compute pipelines, shared by every delegate of every backend on the device: one
// VkPipeline per (SPIR-V module, entry point, descriptor layout, push-constant size,
// specialization constants), created on first use and kept while someone holds it. On devices
// whose driver compiles at the first dispatch (CPU devices: lavapipe), a created pipeline is
// dispatched once with zero workgroups before it is returned, so its compilation happens here,
// at load, and never in a method's first execute.
//
// Ownership: entries live in the device's SharedObjectCache (shared_objects.h), which holds them
// weakly: a pipeline lives while a caller holds the shared_ptr returned here (a delegate keeps
// the pipelines its command buffers use) and is destroyed with the last holder. Each pipeline
// holds the Device.
// Thread safety: may be called concurrently. Creation runs outside the cache's lock; when two
// threads create one key at once both get the pipeline stored first and the other is dropped.
#pragma once

#include <chrono>
#include <cstdint>
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

// What one delegate's pipeline lookups cost while it loads. Program::load_method keeps one per
// delegate, logs it (docs/RUNTIME.md, "Log") and reports it in DelegateCallInfo.
struct PipelineLoadStats {
  uint32_t expected = 0;      // lookups the backend announced with expect_pipelines (0: unknown)
  uint32_t looked_up = 0;     // get_or_create_pipeline calls
  uint32_t created = 0;       // of those, pipelines created; the others were in the device's cache
  double create_seconds = 0;  // time spent creating (and warming up) those pipelines
};

// Makes `stats` the accumulator of get_or_create_pipeline calls on the calling thread while the
// scope lives; scopes nest (the innermost counts). Lookups on other threads are not counted.
// While a scope has been open for more than a second, each lookup may write a progress line
// (log_progress, at most one a second) naming `label` and the lookups done out of those
// expected. `stats` must outlive the scope; a scope belongs to the thread that opened it.
class PipelineLoadScope {
 public:
  PipelineLoadScope(PipelineLoadStats& stats, std::string label);
  ~PipelineLoadScope();
  PipelineLoadScope(const PipelineLoadScope&) = delete;
  PipelineLoadScope& operator=(const PipelineLoadScope&) = delete;

 private:
  friend void note_pipeline_lookup(bool created, double seconds);
  friend void expect_pipelines(uint32_t count);
  PipelineLoadStats& stats_;
  std::string label_;
  PipelineLoadScope* outer_;
  std::chrono::steady_clock::time_point start_, last_progress_;
};

// A backend about to look up `count` pipelines says so, for progress lines (done/total). No-op
// without a scope on this thread.
void expect_pipelines(uint32_t count);

// The cache key of `desc` (exposed for tests): a hash of the SPIR-V words plus everything else
// the pipeline depends on, spelled out.
std::string pipeline_cache_key(const ComputePipelineDesc& desc);

}  // namespace univk::vulkan
