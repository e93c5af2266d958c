#include "graph_plan.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>

#include "univk/vulkan/arena_plan.h"

namespace univk::backends::vulkan {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

std::string type_string(DType dtype, const Shape& shape) { return std::string(dtype_name(dtype)) + shape.to_string(); }

uint64_t value_bytes(const ComputeValue& v) { return static_cast<uint64_t>(v.shape.numel()) * dtype_size(v.dtype); }

Status check_io(const ComputeGraph& graph, std::span<const uint32_t> ids, std::span<const ComputeTensorType> types,
                const char* what) {
  if (ids.size() != types.size()) {
    return invalid_argument(std::string("the delegate call has ") + std::to_string(types.size()) + " " + what +
                            "s, the graph " + std::to_string(ids.size()));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const ComputeValue& v = graph.values[ids[i]];
    if (v.dtype != types[i].dtype || v.shape != types[i].shape) {
      return invalid_argument(std::string(what) + " " + std::to_string(i) + " is " +
                              type_string(types[i].dtype, types[i].shape) + " in the delegate call but " +
                              type_string(v.dtype, v.shape) + " in the graph");
    }
  }
  return ok_status();
}

// A copy of a whole value in 32-bit words (the copy shader moves words).
Result<Dispatch> whole_value_copy(const ComputeValue& v, uint32_t id) {
  const uint64_t bytes = value_bytes(v);
  if (bytes % 4 != 0) {
    return unsupported("value " + std::to_string(id) + " (" + type_string(v.dtype, v.shape) +
                       ") must be copied into an output buffer, and copies move whole 32-bit words");
  }
  return contiguous_copy(static_cast<uint32_t>(bytes / 4));
}

// A kernel piece's operand regions narrowed to its element windows (kernels/split.h): each
// starts at its window's first element aligned down to `alignment`, and the slack goes into the
// piece's offset words. A scratch binding that stands in for absent scratch (the output, see
// below) follows the narrowed output.
Status narrow_to_windows(Dispatch& d, std::vector<BufferRef>& buffers, uint64_t alignment) {
  std::array<uint32_t, kernels::kOperandBindings> slack{};
  for (uint32_t b = 0; b < kernels::kOperandBindings; ++b) {
    BufferRef& ref = buffers[b];
    const uint64_t begin = d.windows[b].begin * sizeof(float), end = d.windows[b].end * sizeof(float);
    if (end > ref.size || begin >= end) {
      return internal_error("kernel piece window [" + std::to_string(begin) + ", " + std::to_string(end) +
                            ") outside its operand of " + std::to_string(ref.size) + " bytes");
    }
    const uint64_t aligned = begin / alignment * alignment;
    ref.offset += aligned;
    ref.size = end - aligned;
    slack[b] = static_cast<uint32_t>((begin - aligned) / sizeof(float));
  }
  if (d.kernel->scratch_bytes == 0) buffers[kernels::kOperandBindings] = buffers[3];
  return kernels::add_binding_offsets(*d.kernel, slack);
}

// Where a value's bytes live, before the arena is laid out.
struct Storage {
  BufferKind kind = BufferKind::kArena;
  uint32_t slot = 0;  // IO slot
};

}  // namespace

Result<GraphPlan> plan_graph(const ComputeGraph& graph, std::span<const ComputeTensorType> inputs,
                             std::span<const ComputeTensorType> outputs, uint64_t alignment,
                             const kernels::DeviceTraits& traits) {
  UNIVK_RETURN_IF_ERROR(validate_compute_graph(graph));
  // Kernel pieces bind their windows at this alignment: the split counts its slack.
  kernels::DeviceTraits device = traits;
  device.binding_alignment = std::max(device.binding_alignment, alignment);
  UNIVK_RETURN_IF_ERROR(check_io(graph, graph.inputs, inputs, "input"));
  UNIVK_RETURN_IF_ERROR(check_io(graph, graph.outputs, outputs, "output"));
  const size_t value_count = graph.values.size();
  auto align_up = [alignment](uint64_t v) { return (v + alignment - 1) & ~(alignment - 1); };

  // 1. Lower every op and check its result against the declared value type.
  std::vector<LoweredOp> lowered;
  lowered.reserve(graph.ops.size());
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    const ComputeOp& op = graph.ops[o];
    const std::string where = "ops[" + std::to_string(o) + "] (" + op.name + ")";
    if (op.outputs.size() != 1) return unsupported(where + " has " + std::to_string(op.outputs.size()) + " outputs");
    std::vector<ComputeTensorType> types;
    for (uint32_t id : op.inputs) types.push_back({graph.values[id].dtype, graph.values[id].shape});
    auto result = lower_op(op.name, op.attrs, types);
    if (!result.ok()) return result.status().with_context(where);
    // Kernel-library dispatches were planned for the minimum limits; cut them into pieces for
    // the device's binding limit and plan those for the device.
    std::vector<Dispatch> dispatches;
    for (Dispatch& d : result->dispatches) {
      if (!d.kernel) {
        dispatches.push_back(std::move(d));
        continue;
      }
      auto pieces = kernel_pieces(d, device);
      if (!pieces.ok()) return pieces.status().with_context(where);
      for (Dispatch& piece : *pieces) dispatches.push_back(std::move(piece));
    }
    result->dispatches = std::move(dispatches);
    const ComputeValue& out = graph.values[op.outputs[0]];
    if (result->output.dtype != out.dtype || result->output.shape != out.shape) {
      return invalid_argument(where + " produces " + type_string(result->output.dtype, result->output.shape) +
                              " but its output value " + std::to_string(op.outputs[0]) + " is declared " +
                              type_string(out.dtype, out.shape));
    }
    lowered.push_back(std::move(result).value());
  }

  // 2. Storage of every value. A graph output produced by an op is written straight into its
  //    output slot; a reshape-like's result that is a graph output becomes a copy.
  std::vector<uint32_t> root(value_count);
  for (size_t v = 0; v < value_count; ++v) root[v] = static_cast<uint32_t>(v);
  std::vector<Storage> storage(value_count);
  std::vector<bool> produced(value_count, false);
  for (const ComputeOp& op : graph.ops) produced[op.outputs[0]] = true;
  for (size_t i = 0; i < graph.inputs.size(); ++i) storage[graph.inputs[i]] = {BufferKind::kInput, uint32_t(i)};
  for (size_t v = 0; v < value_count; ++v) {
    if (graph.values[v].is_constant()) storage[v] = {BufferKind::kConstant, 0};
  }
  std::vector<uint32_t> output_slot(value_count, kNone);
  std::vector<std::pair<uint32_t, uint32_t>> final_copies;  // (value, output slot)
  for (size_t j = 0; j < graph.outputs.size(); ++j) {
    const uint32_t v = graph.outputs[j];
    if (produced[v] && output_slot[v] == kNone) {
      output_slot[v] = static_cast<uint32_t>(j);
      storage[v] = {BufferKind::kOutput, uint32_t(j)};
    } else {
      final_copies.emplace_back(v, static_cast<uint32_t>(j));
    }
  }
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    LoweredOp& low = lowered[o];
    const uint32_t out = graph.ops[o].outputs[0];
    if (!low.alias_of_input) continue;
    if (output_slot[out] == kNone) {
      root[out] = root[graph.ops[o].inputs[0]];
    } else {
      UNIVK_ASSIGN_OR_RETURN(Dispatch copy, whole_value_copy(graph.values[out], out));
      low.dispatches.push_back(std::move(copy));
    }
  }

  // 3. Dispatches over value ids, in execution order.
  struct Step {
    Dispatch dispatch;
    std::vector<uint32_t> values;  // per binding
    uint32_t op_index;
    std::optional<uint32_t> output_slot;  // final copies write an output slot, not a value
  };
  std::vector<Step> steps;
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    const ComputeOp& op = graph.ops[o];
    for (Dispatch& d : lowered[o].dispatches) {
      Step step{std::move(d), {}, static_cast<uint32_t>(o), std::nullopt};
      for (const Operand& operand : step.dispatch.bindings) {
        switch (operand.kind) {
          case Operand::kOutput:
            step.values.push_back(op.outputs[0]);
            break;
          case Operand::kInput:
            step.values.push_back(op.inputs[operand.index]);
            break;
          case Operand::kScratch:
            step.values.push_back(kNone);  // planned in the arena below
            break;
        }
      }
      steps.push_back(std::move(step));
    }
  }
  for (const auto& [v, slot] : final_copies) {
    UNIVK_ASSIGN_OR_RETURN(Dispatch copy, whole_value_copy(graph.values[v], v));
    Step step{std::move(copy), {v, v}, static_cast<uint32_t>(graph.ops.size()), slot};
    steps.push_back(std::move(step));
  }

  // 4. Arena lifetimes per root value and per kernel scratch (live for its dispatch), then
  //    offsets.
  std::vector<uint32_t> arena_index(value_count, kNone);
  std::vector<univk::vulkan::ArenaRequest> lifetimes;
  std::vector<uint32_t> scratch_index(steps.size(), kNone);
  for (size_t s = 0; s < steps.size(); ++s) {
    const Dispatch& d = steps[s].dispatch;
    if (d.kernel && d.kernel->scratch_bytes > 0) {
      scratch_index[s] = static_cast<uint32_t>(lifetimes.size());
      lifetimes.push_back({d.kernel->scratch_bytes, s, s});
    }
    for (uint32_t v : steps[s].values) {
      if (v == kNone) continue;
      const uint32_t r = root[v];
      if (storage[r].kind != BufferKind::kArena) continue;
      if (arena_index[r] == kNone) {
        arena_index[r] = static_cast<uint32_t>(lifetimes.size());
        lifetimes.push_back({value_bytes(graph.values[r]), s, s});
      }
      lifetimes[arena_index[r]].last = s;
    }
  }
  const univk::vulkan::ArenaPlan memory = univk::vulkan::plan_arena(lifetimes, alignment);

  GraphPlan plan;
  plan.arena_bytes = memory.total;
  std::vector<uint64_t> constant_offset(value_count, 0);
  for (size_t v = 0; v < value_count; ++v) {
    if (!graph.values[v].is_constant()) continue;
    constant_offset[v] = plan.constant_bytes;
    plan.constants.push_back({static_cast<uint32_t>(v), plan.constant_bytes});
    plan.constant_bytes = align_up(plan.constant_bytes + value_bytes(graph.values[v]));
  }
  for (uint32_t id : graph.inputs) plan.input_bytes.push_back(value_bytes(graph.values[id]));
  for (uint32_t id : graph.outputs) plan.output_bytes.push_back(value_bytes(graph.values[id]));

  // 5. Bind value ids to buffer regions.
  auto ref_of = [&](uint32_t v) {
    const uint32_t r = root[v];
    const uint64_t size = value_bytes(graph.values[v]);
    switch (storage[r].kind) {
      case BufferKind::kInput:
        return BufferRef{BufferKind::kInput, storage[r].slot, 0, size};
      case BufferKind::kOutput:
        return BufferRef{BufferKind::kOutput, storage[r].slot, 0, size};
      case BufferKind::kConstant:
        return BufferRef{BufferKind::kConstant, 0, constant_offset[r], size};
      case BufferKind::kArena:
        break;
    }
    return BufferRef{BufferKind::kArena, 0, memory.offsets[arena_index[r]], size};
  };
  plan.push_bytes.assign(kShaderCount, 0);
  for (size_t s = 0; s < steps.size(); ++s) {
    Step& step = steps[s];
    PlannedDispatch pd;
    for (size_t b = 0; b < step.values.size(); ++b) {
      const bool is_output = step.dispatch.bindings[b].kind == Operand::kOutput;
      if (step.dispatch.bindings[b].kind == Operand::kScratch) {
        // Without scratch the binding still needs a buffer: the op's output, bound before it.
        // The shader writes that binding in its split-K path, so validation counts it as
        // written even when that path is off: the output is written anyway.
        if (scratch_index[s] == kNone) {
          BufferRef output;
          for (size_t o = 0; o < b; ++o) {
            if (step.dispatch.bindings[o].kind == Operand::kOutput) output = pd.buffers[o];
          }
          pd.buffers.push_back(output);
        } else {
          pd.buffers.push_back(
              {BufferKind::kArena, 0, memory.offsets[scratch_index[s]], step.dispatch.kernel->scratch_bytes});
        }
      } else if (is_output && step.output_slot) {
        pd.buffers.push_back({BufferKind::kOutput, *step.output_slot, 0, plan.output_bytes[*step.output_slot]});
      } else {
        pd.buffers.push_back(ref_of(step.values[b]));
      }
    }
    if (step.dispatch.kernel) {
      UNIVK_RETURN_IF_ERROR(narrow_to_windows(step.dispatch, pd.buffers, alignment));
      pd.dispatch = std::move(step.dispatch);
      pd.op_index = step.op_index;
      plan.dispatches.push_back(std::move(pd));
      continue;
    }
    uint32_t& push = plan.push_bytes[static_cast<size_t>(step.dispatch.shader)];
    const uint32_t bytes = static_cast<uint32_t>(step.dispatch.push.size() * 4);
    if (push != 0 && push != bytes) {
      return internal_error(std::string("shader ") + shader_name(step.dispatch.shader) +
                            " lowered with two push-constant sizes");
    }
    push = bytes;
    pd.dispatch = std::move(step.dispatch);
    pd.op_index = step.op_index;
    plan.dispatches.push_back(std::move(pd));
  }
  return plan;
}

}  // namespace univk::backends::vulkan
