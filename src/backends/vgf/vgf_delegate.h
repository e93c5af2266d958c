// VgfDelegate: one VGF payload initialised on a device.
//
// Ownership: the delegate owns every Vulkan object it creates (resource/constant/scratch/
// parameter/output staging buffers, descriptor pools, its command pool) and holds a DeviceLease;
// it shares its pipelines with every delegate on the device through the device's pipeline cache
// and holds the ones its command buffers use. It borrows the payload bytes (the Method keeps them alive). The
// destructor waits for this delegate's own last submission only, never for the whole queue or device.
//
// Execution: at init every segment is prepared (GRAPH: lowered plan; COMPUTE: the module's
// pipeline). prepare_execute() (per_delegate mode, called by the Method at load) allocates the
// model's input/output buffers and records a command buffer once over them; execute() resubmits
// it. record() records the same work into the method's command buffer over the method's device
// tensors (fused mode); both go through VgfDelegate::record_work (vgf_recording.cc), which
// hands every dispatch to the device runtime's DispatchRecorder (barriers, descriptors) and
// takes pipelines from the device's pipeline cache.
// Fused mode binds a model input or output resource to the method's packed tensor directly
// when it is packed and alone in its alias group; otherwise (padded or permuted strides, or an
// alias group holding several model inputs/outputs) the resource keeps a buffer of its own and
// copy dispatches move the data between it and the tensor, before and after the segments.
// per_delegate outputs are read from host memory: straight from their device-local mapped
// buffers when that memory is HOST_CACHED (integrated GPUs, lavapipe), else (discrete GPUs,
// where it is uncached BAR memory) from HOST_CACHED staging buffers that the command buffer
// fills with vkCmdCopyBuffer after the last dispatch.
// Thread safety: calls are serialised by the owning Method (delegate.h), so the delegate has no
// lock of its own; a caller driving it directly serialises its calls the same way.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "dispatch_plan.h"
#include "graph_path.h"
#include "native_graph.h"
#include "univk/backend/backend.h"
#include "univk/kernels/kernel.h"
#include "univk/vgf/vgf_file.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline.h"

namespace univk::backends::vgf {

// Load-time settings from the backend's runtime options (parsed in vgf_backend.cc).
struct DelegateOptions {
  // Bytes one descriptor may cover, on top of the device's maxStorageBufferRange (option
  // `max_binding_bytes`); dispatches over larger views are split into slices.
  uint64_t max_binding_bytes = UINT64_MAX;
  // per_delegate outputs through staging copies even when the mapped memory is HOST_CACHED
  // (option `vgf_output_staging=always`; default `auto`).
  bool always_stage_outputs = false;
  // COMPUTE segments (shaders from the program file) run only on a device with robustBufferAccess
  // enabled, so they cannot touch memory outside their bindings (option
  // `vgf_robust_buffer_access=on|off`; default on).
  bool robust_buffer_access = true;
  // The library kernels' multiply precision (option `precision=fp32|fp16`, kernels/kernel.h).
  kernels::Precision precision = kernels::Precision::kFp32;
  // Whether 3x3 stride-1 CONV2Ds run as Winograd F(m x m, 3x3) (option
  // `winograd=auto|f2|f4|off`, kernels/kernel.h).
  kernels::Winograd winograd = kernels::Winograd::kAuto;
  // How GRAPH segments run (option `vgf_graph_path=auto|native|lowered`, graph_path.h).
  GraphPath graph_path = GraphPath::kAuto;
};

class VgfDelegate final : public backend::Delegate {
 public:
  // `file` is spec.payload decoded (VgfBackend::prepare); the delegate keeps a copy, which
  // borrows the payload bytes like `spec`.
  static Result<std::unique_ptr<VgfDelegate>> create(const backend::DelegateSpec& spec, const univk::vgf::VgfFile& file,
                                                     vulkan::DeviceLease device, const DelegateOptions& options = {});
  ~VgfDelegate() override;

  const vulkan::DeviceLease& device() const override { return device_; }
  Status prepare_execute() override;
  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs) override;
  Status record(VkCommandBuffer cmd, std::span<const backend::DeviceTensor> inputs,
                std::span<const backend::DeviceTensor> outputs) override;
  backend::ExecuteStats stats() const override { return last_stats_; }
  // "native" (GRAPH segments as VK_ARM_data_graph pipelines) or "lowered", resolved at init.
  std::string_view graph_path() const override { return graph_path_name(graph_path_); }
  void set_gpu_timer(vulkan::GpuTimer* timer) override { timer_ = timer; }

  // Labels of the lowered GRAPH segments' dispatches in dispatch order (tests, tools, logs).
  std::vector<std::string> dispatch_labels() const;
  // per_delegate outputs read through staging copies (known after prepare_execute()).
  size_t staged_outputs() const;

 private:
  struct ComputeSegment {
    std::shared_ptr<const vulkan::ComputePipeline> pipeline;  // set_layouts()[i] is descriptor set i
    std::array<uint32_t, 3> groups{};
    uint32_t push_constant_bytes = 0;
  };
  struct PreparedSegment {
    std::optional<SegmentPlan> graph;       // lowered GRAPH segment
    std::unique_ptr<NativeGraph> native;    // native GRAPH segment
    std::optional<ComputeSegment> compute;  // COMPUTE segment
  };
  // GPU objects one recording needs for its whole life.
  struct Recording {
    vulkan::Buffer params;
    vulkan::DescriptorPool pool;
    std::vector<std::shared_ptr<const vulkan::ComputePipeline>> pipelines;  // of its dispatches
    std::vector<std::unique_ptr<NativeGraphBinding>> native_bindings;       // of its data-graph dispatches
    uint32_t native_dispatches = 0;
    backend::ExecuteStats stats;
  };
  // Recording (vgf_recording.cc).
  struct Step;           // a lowered dispatch or a COMPUTE segment, in recording order
  struct BoundDispatch;  // a dispatch's descriptor ranges, accesses and parameter-word offset

  VgfDelegate() = default;
  Status init(const backend::DelegateSpec& spec, const univk::vgf::VgfFile& file);
  // Buffers for the alias groups (each resource outside a group is a group of one) that `wanted`
  // selects by their members, unless they have one already.
  Status allocate_resources(const std::function<bool(const std::vector<uint32_t>& members)>& wanted);
  bool is_model_io(uint32_t resource) const;
  // The resource's alias group id, or a key of its own (negative) when it has none.
  int64_t group_key(uint32_t resource) const;
  std::vector<vulkan::BufferRange> own_resource_ranges() const;
  Result<ComputeSegment> prepare_compute_segment(const univk::vgf::Segment& segment, const univk::vgf::Module& module);
  // The buffer range resource `index` is bound to: `ranges` for tensors, the constant buffer for
  // CONSTANT entries.
  Result<vulkan::BufferRange> resource_range(uint32_t index, const std::vector<vulkan::BufferRange>& ranges) const;
  // Records `before`, every segment, then `after` through `recorder`, resolving resource i to
  // resource_ranges[i] (`before`/`after` may use indices past the resource table).
  Status record_work(vulkan::DispatchRecorder& recorder, const std::vector<vulkan::BufferRange>& resource_ranges,
                     Recording& recording, std::span<const Dispatch> before = {}, std::span<const Dispatch> after = {});
  std::vector<Step> work_steps(std::span<const Dispatch> before, std::span<const Dispatch> after) const;
  // The descriptor ranges and accesses of every dispatch in `steps`, and their parameter words
  // (the base words, then the dispatch's own) in `words`, each dispatch's aligned for its descriptor.
  Result<std::vector<BoundDispatch>> bind_dispatches(const std::vector<Step>& steps,
                                                     const std::vector<vulkan::BufferRange>& resource_ranges,
                                                     std::vector<uint32_t>& words) const;
  // The parameter buffer and a descriptor pool with room for every dispatch of the recording.
  Status create_recording_objects(const std::vector<BoundDispatch>& bound, const std::vector<uint32_t>& words,
                                  Recording& recording) const;
  Status record_dispatch(vulkan::DispatchRecorder& recorder, const BoundDispatch& bound,
                         const std::vector<uint32_t>& words, Recording& recording);
  Status record_compute_segment(vulkan::DispatchRecorder& recorder, size_t segment,
                                const std::vector<vulkan::BufferRange>& resource_ranges, Recording& recording);
  // A native GRAPH segment: its tensors over the resources' memory, the barrier the recorder
  // decides, the data-graph dispatch.
  Status record_native_segment(vulkan::DispatchRecorder& recorder, size_t segment,
                               const std::vector<vulkan::BufferRange>& resource_ranges, Recording& recording);
  // Resolves options_.graph_path on this device (graph_path_) from the decoded graphs.
  Status choose_path(const std::vector<std::optional<spirv::TosaGraph>>& graphs);
  // per_delegate: makes the model outputs readable by the host after the wait (staging copies
  // where the mapped memory is not host-cached).
  Status record_output_readback(vulkan::DispatchRecorder& recorder, const std::vector<vulkan::BufferRange>& ranges);
  // min(maxStorageBufferRange, max_binding_bytes).
  uint64_t binding_limit() const;

  vulkan::DeviceLease device_;
  DelegateOptions options_;
  GraphPath graph_path_ = GraphPath::kLowered;
  vulkan::DataGraphDispatch arm_;  // loaded when graph_path_ is native
  univk::vgf::VgfFile file_;
  backend::DelegateSpec spec_;
  std::vector<uint32_t> input_resources_;   // model input i -> resource index
  std::vector<uint32_t> output_resources_;  // model output i -> resource index
  // resource index -> fused mode copies it to/from the method's tensor (see the header comment).
  std::vector<bool> copied_io_;
  std::vector<PreparedSegment> segments_;
  std::vector<uint8_t> constant_bytes_;
  std::map<uint32_t, uint64_t> constant_offsets_;  // VGF constant index -> byte offset
  vulkan::Buffer constants_;
  vulkan::Buffer scratch_;
  // Delegate-owned storage of resources (intermediates at init; model io in prepare_execute).
  std::vector<vulkan::Buffer> resource_buffers_;
  std::vector<int> resource_buffer_of_;  // resource index -> resource_buffers_ index, -1 none
  std::vector<std::unique_ptr<Recording>> recordings_;
  vulkan::CommandPool command_pool_;
  VkCommandBuffer own_cmd_ = VK_NULL_HANDLE;
  Recording* own_recording_ = nullptr;
  // per_delegate: model output i -> its staging buffer (empty when read from the mapped buffer).
  std::vector<vulkan::Buffer> output_staging_;
  uint64_t last_submission_ = 0;
  backend::ExecuteStats last_stats_;
  vulkan::GpuTimer* timer_ = nullptr;  // borrowed (set_gpu_timer)
};

}  // namespace univk::backends::vgf
