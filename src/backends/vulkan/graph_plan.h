// GraphPlan: a ComputeGraph turned into an ordered list of dispatches over planned buffer
// regions, without Vulkan objects. Decides
//  - where each value lives: a graph input or output slot, the constant buffer, or an offset
//    in the intermediate arena (reshape-likes alias their input's bytes);
//  - the arena layout: intermediate values whose lifetimes do not overlap share bytes;
//  - the constant buffer layout (uploaded once at init).
// The recorder (recorder.h) binds the slots to real buffers, so per_delegate execution (own IO
// buffers) and fused recording (the method's device tensors) share one plan.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "op_lowering.h"
#include "univk/backends/vulkan/compute_graph.h"

namespace univk::backends::vulkan {

enum class BufferKind : uint8_t { kInput, kOutput, kConstant, kArena };

// A region of one of the delegate's buffers: input/output slot `slot` (offset relative to the
// slot's start), or the constant buffer / arena at `offset`.
struct BufferRef {
  BufferKind kind = BufferKind::kArena;
  uint32_t slot = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct PlannedDispatch {
  Dispatch dispatch;
  std::vector<BufferRef> buffers;  // one per binding (a kernel's scratch: its arena region)
  uint32_t op_index = 0;           // the graph op it belongs to (output copies: ops.size())
};

struct ConstantUpload {
  uint32_t value = 0;
  uint64_t offset = 0;  // in the constant buffer
};

struct GraphPlan {
  std::vector<PlannedDispatch> dispatches;
  std::vector<ConstantUpload> constants;
  uint64_t constant_bytes = 0;
  uint64_t arena_bytes = 0;
  std::vector<uint64_t> input_bytes;   // per graph input slot
  std::vector<uint64_t> output_bytes;  // per graph output slot
  // Push-constant size of each shader used (index: Shader), 0 when unused.
  std::vector<uint32_t> push_bytes;
};

// `inputs`/`outputs` are the DelegateCall's tensor types; they must equal the graph's.
// `alignment` (a power of two) applies to every arena and constant offset. Kernel-library
// dispatches are cut into pieces for traits.max_binding_bytes (kernels/split.h), each binding its
// operands' windows, and planned for `traits` (the device's limits; the default is the spec's
// minimum).
Result<GraphPlan> plan_graph(const ComputeGraph& graph, std::span<const ComputeTensorType> inputs,
                             std::span<const ComputeTensorType> outputs, uint64_t alignment,
                             const kernels::DeviceTraits& traits = {});

}  // namespace univk::backends::vulkan
