#include "fusion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>

#include "univk/tensor/dtype.h"

namespace univk::backends::vgf {

using spirv::TosaGraph;
using spirv::TosaOp;
using spirv::TosaOperation;
using spirv::ValueId;
using spirv::ValueKind;

namespace {

const spirv::TosaTensorType& type_of(const TosaGraph& g, ValueId v) { return g.values[v].type; }

bool fusable_member(const TosaGraph& g, size_t i, DType* dtype) {
  const TosaOperation& op = g.operations[i];
  const DType dt = type_of(g, op.outputs[0]).dtype;
  if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kInt32) return false;
  for (ValueId v : op.inputs)
    if (type_of(g, v).dtype != dt) return false;
  if (!elementwise_op(op, dt == DType::kInt32)) return false;
  *dtype = dt;
  return true;
}

bool is_anchor(const TosaGraph& g, size_t i) {
  const TosaOperation& op = g.operations[i];
  const DType dt = type_of(g, op.outputs[0]).dtype;
  return (op.op == TosaOp::kAvgPool2d || op.op == TosaOp::kMaxPool2d) &&
         (dt == DType::kFloat32 || dt == DType::kFloat16) && type_of(g, op.inputs[0]).dtype == dt;
}

bool is_scalar_constant(const TosaGraph& g, ValueId v) {
  return g.values[v].kind == ValueKind::kConstant && type_of(g, v).element_count() == 1;
}

// A scalar constant as program immediate bits: int32 or fp32 (fp16 widened to fp32).
uint32_t immediate_bits(const TosaGraph& g, ValueId v) {
  const auto& data = g.values[v].data;
  uint32_t bits = 0;
  if (type_of(g, v).dtype == DType::kFloat16) {
    uint16_t half = 0;
    std::memcpy(&half, data.data(), 2);
    const float f = half_to_float(half);
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  std::memcpy(&bits, data.data(), 4);
  return bits;
}

bool program_fits(const TosaGraph& g, const FusionGroup& group) {
  std::vector<ValueId> inputs;
  if (fusion_group_program(g, group, &inputs, true)) return true;
  inputs.clear();
  return fusion_group_program(g, group, &inputs, false).has_value();
}

}  // namespace

std::optional<EwProgram> fusion_group_program(const TosaGraph& g, const FusionGroup& group,
                                              std::vector<ValueId>* inputs, bool immediates) {
  ProgramBuilder builder;
  uint32_t next_slot = 0;
  std::set<ValueId> internal;
  if (group.anchor) {
    const ValueId pooled = g.operations[*group.anchor].outputs[0];
    builder.seed_register_value(pooled);
    internal.insert(pooled);
    next_slot = 1;  // slot 0 is the pool input
    inputs->push_back(g.operations[*group.anchor].inputs[0]);
  }
  for (size_t i : group.ops) internal.insert(g.operations[i].outputs[0]);
  for (size_t i : group.ops) {
    const TosaOperation& op = g.operations[i];
    const EwOp ew = *elementwise_op(op, group.is_int);
    uint32_t imm0 = 0, imm1 = 0;
    if (ew == EwOp::kClamp) {
      if (group.is_int) {
        imm0 = static_cast<uint32_t>(static_cast<int32_t>(op.attrs.get_int_or("min_val", INT32_MIN).value()));
        imm1 = static_cast<uint32_t>(static_cast<int32_t>(op.attrs.get_int_or("max_val", INT32_MAX).value()));
      } else {
        float lo = static_cast<float>(op.attrs.get_float_or("min_val", -INFINITY).value());
        float hi = static_cast<float>(op.attrs.get_float_or("max_val", INFINITY).value());
        std::memcpy(&imm0, &lo, 4);
        std::memcpy(&imm1, &hi, 4);
      }
    }
    if (ew == EwOp::kMulShift) imm0 = static_cast<uint32_t>(op.attrs.get_int_or("shift", 0).value());
    size_t imm_operands = 0;
    for (ValueId v : op.inputs) {
      if (internal.count(v) || builder.is_bound(v)) continue;
      const bool imm_room = ew == EwOp::kClamp ? false : (ew == EwOp::kMulShift ? imm_operands < 1 : imm_operands < 2);
      if (immediates && is_scalar_constant(g, v) && imm_room) {
        builder.bind_immediate(v, immediate_bits(g, v));
        ++imm_operands;
        continue;
      }
      if (next_slot >= kProgramInputs) return std::nullopt;
      builder.bind_input(v, next_slot++);
      inputs->push_back(v);
    }
    builder.add(op.outputs[0], ew, std::vector<uint64_t>(op.inputs.begin(), op.inputs.end()), imm0, imm1);
  }
  return builder.build(group.output);
}

namespace {

bool is_f32(const TosaGraph& g, ValueId v) { return type_of(g, v).dtype == DType::kFloat32; }

// An fp32 operation the VgfBackend lowers to a kernel-library kernel with an epilogue.
bool is_kernel_anchor(const TosaGraph& g, const TosaOperation& op) {
  if (op.op != TosaOp::kConv2d && op.op != TosaOp::kDepthwiseConv2d && op.op != TosaOp::kMatmul) return false;
  for (ValueId v : op.inputs)
    if (!is_f32(g, v)) return false;
  return is_f32(g, op.outputs[0]);
}

// An int8 CONV2D or DEPTHWISE_CONV2D with an int32 result (the kernel library's int8 kernel).
bool is_int8_anchor(const TosaGraph& g, const TosaOperation& op) {
  if (op.op != TosaOp::kConv2d && op.op != TosaOp::kDepthwiseConv2d) return false;
  return op.inputs.size() == 3 && type_of(g, op.inputs[0]).dtype == DType::kInt8 &&
         type_of(g, op.outputs[0]).dtype == DType::kInt32;
}

// An int CLAMP's bounds, when they fit int32.
std::optional<std::pair<int32_t, int32_t>> int_clamp_bounds(const TosaOperation& clamp) {
  auto lo = clamp.attrs.get_int_or("min_val", INT32_MIN);
  auto hi = clamp.attrs.get_int_or("max_val", INT32_MAX);
  if (!lo.ok() || !hi.ok() || *lo < INT32_MIN || *hi > INT32_MAX || *lo > *hi) return std::nullopt;
  return std::pair{static_cast<int32_t>(*lo), static_cast<int32_t>(*hi)};
}

// The requantization chain of int8 anchor `i`: CLAMP (int32), RESCALE (int32 -> int8), CLAMP
// (int8), each optional and taken in that order.
template <typename OnlyReader>
void extend_int8_chain(const TosaGraph& g, EpilogueChain& chain, OnlyReader&& only_reader) {
  chain.int8 = true;
  const auto& shape = type_of(g, chain.output).shape;
  auto next_of = [&](TosaOp want, DType in, DType out) -> std::optional<size_t> {
    auto next = only_reader(chain.output);
    if (!next) return std::nullopt;
    const TosaOperation& op = g.operations[*next];
    if (op.op != want || op.inputs.size() != 1 || type_of(g, op.inputs[0]).dtype != in ||
        type_of(g, op.outputs[0]).dtype != out || type_of(g, op.outputs[0]).shape != shape)
      return std::nullopt;
    return next;
  };
  if (auto clamp = next_of(TosaOp::kClamp, DType::kInt32, DType::kInt32)) {
    if (auto bounds = int_clamp_bounds(g.operations[*clamp])) {
      chain.clamp = clamp;
      std::tie(chain.acc_lo, chain.acc_hi) = *bounds;
      chain.output = g.operations[*clamp].outputs[0];
    }
  }
  auto rescale = next_of(TosaOp::kRescale, DType::kInt32, DType::kInt8);
  if (!rescale) return;
  chain.rescale = rescale;
  chain.output = g.operations[*rescale].outputs[0];
  if (auto clamp = next_of(TosaOp::kClamp, DType::kInt8, DType::kInt8)) {
    if (auto bounds = int_clamp_bounds(g.operations[*clamp])) {
      chain.rescale_clamp = clamp;
      chain.out_lo = std::max(bounds->first, -128);
      chain.out_hi = std::min(bounds->second, 127);
      chain.output = g.operations[*clamp].outputs[0];
    }
  }
  auto table = only_reader(chain.output);
  if (!table) return;
  const TosaOperation& op = g.operations[*table];
  if (op.op != TosaOp::kTable || op.inputs.size() != 2 || op.inputs[0] != chain.output) return;
  const auto& t = g.values[op.inputs[1]];
  if ((t.kind != ValueKind::kConstant && t.kind != ValueKind::kGraphConstant) || t.type.dtype != DType::kInt8 ||
      t.type.shape != std::vector<int64_t>{256} || type_of(g, op.outputs[0]).dtype != DType::kInt8)
    return;
  chain.table = table;
  chain.table_value = op.inputs[1];
  chain.output = op.outputs[0];
}

// The residual add after int8 chain `chain`'s RESCALE (fusion.h): RESCALE of its value to
// int32, ADD with the RESCALE to int32 of another int8 value of that shape, CLAMP, RESCALE to
// int8, CLAMP. `sole_reader(v, i)`: operation i is the only reader of v, an intermediate value
// no chain took.
template <typename OnlyReader, typename SoleReader>
void extend_residual(const TosaGraph& g, EpilogueChain& chain, OnlyReader&& only_reader, SoleReader&& sole_reader) {
  const auto& shape = type_of(g, chain.output).shape;
  auto is = [&](size_t i, TosaOp want, size_t inputs, DType out) {
    const TosaOperation& op = g.operations[i];
    return op.op == want && op.inputs.size() == inputs && type_of(g, op.outputs[0]).dtype == out &&
           type_of(g, op.outputs[0]).shape == shape;
  };
  auto y_rescale = only_reader(chain.output);
  if (!y_rescale || !is(*y_rescale, TosaOp::kRescale, 1, DType::kInt32)) return;
  const ValueId y32 = g.operations[*y_rescale].outputs[0];
  auto add = only_reader(y32);
  if (!add || !is(*add, TosaOp::kAdd, 2, DType::kInt32)) return;
  const TosaOperation& add_op = g.operations[*add];
  const ValueId skip32 = add_op.inputs[0] == y32 ? add_op.inputs[1] : add_op.inputs[0];
  if (skip32 == y32 || g.values[skip32].kind != ValueKind::kOperation) return;
  const size_t skip_rescale = g.values[skip32].producer;
  if (!sole_reader(skip32, *add) || !is(skip_rescale, TosaOp::kRescale, 1, DType::kInt32)) return;
  const ValueId skip = g.operations[skip_rescale].inputs[0];
  if (type_of(g, skip).dtype != DType::kInt8 || type_of(g, skip).shape != shape) return;
  ValueId sum = add_op.outputs[0];
  std::optional<size_t> sum_clamp;
  std::pair<int32_t, int32_t> sum_bounds{INT32_MIN, INT32_MAX};
  auto next = only_reader(sum);
  if (next && is(*next, TosaOp::kClamp, 1, DType::kInt32)) {
    auto bounds = int_clamp_bounds(g.operations[*next]);
    if (!bounds) return;
    sum_clamp = next, sum_bounds = *bounds;
    sum = g.operations[*next].outputs[0];
    next = only_reader(sum);
  }
  if (!next || !is(*next, TosaOp::kRescale, 1, DType::kInt8)) return;
  chain.requantized = chain.output;
  chain.y_rescale = y_rescale, chain.skip_rescale = skip_rescale, chain.residual_add = add;
  chain.sum_clamp = sum_clamp, chain.sum_rescale = next;
  std::tie(chain.sum_lo, chain.sum_hi) = sum_bounds;
  chain.skip = skip;
  chain.output = g.operations[*next].outputs[0];
  auto clamp = only_reader(chain.output);
  if (clamp && is(*clamp, TosaOp::kClamp, 1, DType::kInt8)) {
    if (auto bounds = int_clamp_bounds(g.operations[*clamp])) {
      chain.residual_clamp = clamp;
      chain.residual_lo = std::max(bounds->first, -128);
      chain.residual_hi = std::min(bounds->second, 127);
      chain.output = g.operations[*clamp].outputs[0];
    }
  }
}

// Whether `from` (broadcast) can be added to a value of shape `to` in place.
bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() != to.size()) return false;
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != to[d] && from[d] != 1) return false;
  return true;
}

}  // namespace

std::vector<size_t> EpilogueChain::residual_ops() const {
  std::vector<size_t> ops;
  for (auto op : {y_rescale, skip_rescale, residual_add, sum_clamp, sum_rescale, residual_clamp})
    if (op) ops.push_back(*op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

EpilogueChain EpilogueChain::without_residual() const {
  EpilogueChain head = *this;
  if (!residual_add) return head;
  head.y_rescale = head.skip_rescale = head.residual_add = head.sum_clamp = head.sum_rescale = head.residual_clamp =
      std::nullopt;
  head.output = requantized;
  return head;
}

EpiloguePlan form_epilogue_chains(const TosaGraph& g, const std::vector<std::vector<size_t>>& consumers,
                                  const std::vector<bool>& is_output, const std::vector<bool>& grouped_anchor) {
  EpiloguePlan plan;
  plan.chain_of_op.assign(g.operations.size(), std::nullopt);
  // The one operation reading `v`, when `v` is an intermediate value of that one reader and
  // no earlier chain took that reader (an ADD of two convolutions joins the first one's chain).
  auto only_reader = [&](ValueId v) -> std::optional<size_t> {
    if (is_output[v] || consumers[v].size() != 1 || plan.chain_of_op[consumers[v][0]]) return std::nullopt;
    return consumers[v][0];
  };
  for (size_t i = 0; i < g.operations.size(); ++i) {
    const TosaOperation& op = g.operations[i];
    if (plan.chain_of_op[i]) continue;
    EpilogueChain chain;
    chain.anchor = i;
    chain.output = op.outputs[0];
    if (is_int8_anchor(g, op)) {
      extend_int8_chain(g, chain, only_reader);
      if (!chain.clamp && !chain.rescale) continue;
      if (chain.rescale) {
        extend_residual(g, chain, only_reader, [&](ValueId v, size_t reader) {
          return !is_output[v] && consumers[v] == std::vector<size_t>{reader} && !plan.chain_of_op[reader] &&
                 !plan.chain_of_op[g.values[v].producer];
        });
      }
      for (auto member :
           {std::optional<size_t>(chain.anchor), chain.clamp, chain.rescale, chain.rescale_clamp, chain.table})
        if (member) plan.chain_of_op[*member] = plan.chains.size();
      for (size_t member : chain.residual_ops()) plan.chain_of_op[member] = plan.chains.size();
      plan.chains.push_back(chain);
      continue;
    }
    if (!(is_kernel_anchor(g, op) || grouped_anchor[i])) continue;
    const auto& out_shape = type_of(g, chain.output).shape;
    auto next = only_reader(chain.output);
    if (next && g.operations[*next].op == TosaOp::kAdd) {
      const TosaOperation& add = g.operations[*next];
      const ValueId a = add.inputs[0], b = add.inputs.size() == 2 ? add.inputs[1] : a;
      const ValueId other = a == chain.output ? b : a;
      const bool matmul = op.op == TosaOp::kMatmul;
      const auto& other_shape = type_of(g, other).shape;
      if (add.inputs.size() == 2 && a != b && is_f32(g, other) && is_f32(g, add.outputs[0]) &&
          type_of(g, add.outputs[0]).shape == out_shape &&
          (matmul ? broadcasts_to(other_shape, out_shape) : other_shape == out_shape)) {
        chain.add = *next;
        chain.addend = other;
        chain.output = add.outputs[0];
        next = only_reader(chain.output);
      }
    }
    if (next && g.operations[*next].op == TosaOp::kClamp) {
      const TosaOperation& clamp = g.operations[*next];
      auto lo = clamp.attrs.get_float_or("min_val", -INFINITY);
      auto hi = clamp.attrs.get_float_or("max_val", INFINITY);
      if (lo.ok() && hi.ok() && is_f32(g, clamp.outputs[0]) && type_of(g, clamp.outputs[0]).shape == out_shape) {
        chain.clamp = *next;
        chain.lo = static_cast<float>(*lo);
        chain.hi = static_cast<float>(*hi);
        chain.output = clamp.outputs[0];
      }
    }
    if (!chain.add && !chain.clamp) continue;
    for (auto member : {std::optional<size_t>(chain.anchor), chain.add, chain.clamp})
      if (member) plan.chain_of_op[*member] = plan.chains.size();
    plan.chains.push_back(chain);
  }
  return plan;
}

FusionPlan form_fusion_groups(const TosaGraph& g, const std::vector<std::vector<size_t>>& consumers,
                              const std::vector<bool>& is_output, const std::vector<bool>& taken) {
  FusionPlan plan;
  plan.group_of_op.assign(g.operations.size(), std::nullopt);
  std::vector<std::optional<size_t>> group_of_value(g.values.size());
  auto add_group = [&](const FusionGroup& group, size_t op) {
    group_of_value[group.output] = plan.groups.size();
    plan.group_of_op[op] = plan.groups.size();
    plan.groups.push_back(group);
  };
  for (size_t i = 0; i < g.operations.size(); ++i) {
    if (taken[i]) continue;
    const TosaOperation& op = g.operations[i];
    const ValueId out = op.outputs[0];
    if (is_anchor(g, i)) {
      FusionGroup group;
      group.anchor = i;
      group.output = out;
      group.dtype = type_of(g, out).dtype;
      add_group(group, i);
      continue;
    }
    DType dtype = DType::kFloat32;
    if (!fusable_member(g, i, &dtype)) continue;
    bool joined = false;
    for (ValueId v : op.inputs) {
      if (!group_of_value[v]) continue;
      const size_t gi = *group_of_value[v];
      FusionGroup& group = plan.groups[gi];
      if (group.output != v || group.dtype != dtype || consumers[v].size() != 1 || is_output[v] ||
          type_of(g, v).shape != type_of(g, out).shape)
        continue;
      FusionGroup trial = group;
      trial.ops.push_back(i);
      trial.output = out;
      if (!program_fits(g, trial)) continue;
      group = trial;
      group_of_value[out] = gi;
      plan.group_of_op[i] = gi;
      joined = true;
      break;
    }
    if (joined) continue;
    FusionGroup group;
    group.ops.push_back(i);
    group.output = out;
    group.is_int = dtype == DType::kInt32;
    group.dtype = dtype;
    if (!program_fits(g, group)) continue;  // lowered on its own (reported unsupported there)
    add_group(group, i);
  }
  return plan;
}

}  // namespace univk::backends::vgf
