#include "lower_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "elementwise_program.h"
#include "fusion.h"
#include "dispatch_emitters.h"
#include "grouped_conv.h"
#include "winograd_lowering.h"
#include "univk/kernels/split.h"
#include "univk/ops/tosa_ops.h"
#include "univk/vulkan/arena_plan.h"

namespace univk::backends::vgf {

using spirv::TosaGraph;
using spirv::TosaOp;
using spirv::TosaOperation;
using spirv::ValueId;
using spirv::ValueKind;

// Scratch ids of kernel-library scratch regions start here (value ids are below).
constexpr uint32_t kKernelScratchIds = 0x80000000u;
// Scratch ids of Winograd convolutions' V and M values start here (two per convolution).
constexpr uint32_t kWinogradScratchIds = 0xC0000000u;
// Alignment of scratch offsets, as of resources.
constexpr uint64_t kScratchAlignment = 256;

Result<std::vector<int64_t>> resource_element_strides(const univk::vgf::Resource& resource) {
  auto dtype = univk::vgf::dtype_from_vk_format(resource.vk_format);
  if (!dtype)
    return unsupported("resource format " + univk::vgf::vk_format_name(resource.vk_format) + " has no univk dtype");
  for (int64_t d : resource.shape)
    if (d < 0) return unsupported("resource has a dynamic dimension (shape entry " + std::to_string(d) + ")");
  if (resource.strides.empty()) {
    auto checked = Shape::checked(resource.shape);
    if (!checked.ok()) return checked.status();
    return checked->contiguous_strides();
  }
  if (resource.strides.size() != resource.shape.size())
    return invalid_argument("resource has " + std::to_string(resource.strides.size()) + " strides for rank " +
                            std::to_string(resource.shape.size()));
  const int64_t size = static_cast<int64_t>(dtype_size(*dtype));
  std::vector<int64_t> strides;
  for (int64_t s : resource.strides) {
    if (s < 0 || s % size != 0)
      return unsupported("resource byte stride " + std::to_string(s) +
                         " is not a non-negative multiple of the element size");
    strides.push_back(s / size);
  }
  return strides;
}

Result<uint64_t> resource_byte_size(const univk::vgf::Resource& resource) {
  UNIVK_ASSIGN_OR_RETURN(auto strides, resource_element_strides(resource));
  const DType dtype = *univk::vgf::dtype_from_vk_format(resource.vk_format);
  constexpr uint64_t kMaxBytes = uint64_t{1} << 40;
  uint64_t last = 0;
  for (size_t d = 0; d < resource.shape.size(); ++d) {
    if (resource.shape[d] == 0) return uint64_t{0};
    uint64_t step = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(resource.shape[d] - 1), static_cast<uint64_t>(strides[d]),
                               &step) ||
        __builtin_add_overflow(last, step, &last) || last >= kMaxBytes)
      return unsupported("resource of shape " + Shape(resource.shape).to_string() + " is too large");
  }
  const uint64_t bytes = (last + 1) * dtype_size(dtype);
  if (bytes > kMaxBytes) return unsupported("resource of " + std::to_string(bytes) + " bytes is too large");
  return bytes;
}

namespace {

std::string op_label(const TosaOperation& op) { return std::string(spirv::tosa_op_name(op.op)); }

bool is_view_op(TosaOp op) { return op == TosaOp::kTranspose || op == TosaOp::kSlice || op == TosaOp::kReshape; }

class Lowering {
 public:
  Lowering(const TosaGraph& graph, LoweringContext& context) : g_(graph), ctx_(context) {}

  Result<SegmentPlan> run() {
    UNIVK_RETURN_IF_ERROR(index_graph());
    UNIVK_RETURN_IF_ERROR(bind_interface());
    grouped_ = find_grouped_convs(g_, consumers_, is_output_);
    std::vector<bool> grouped_anchor(g_.operations.size());
    for (size_t i = 0; i < grouped_anchor.size(); ++i) grouped_anchor[i] = grouped_.is_concat(i);
    epilogues_ = form_epilogue_chains(g_, consumers_, is_output_, grouped_anchor);
    std::vector<bool> taken(g_.operations.size());
    for (size_t i = 0; i < taken.size(); ++i)
      taken[i] = epilogues_.chain_of_op[i].has_value() || grouped_.of_op[i].has_value();
    fusion_ = form_fusion_groups(g_, consumers_, is_output_, taken);
    plan_write_through();
    for (size_t i = 0; i < g_.operations.size(); ++i) {
      Status s = lower_operation(i);
      if (!s.ok()) return s.with_context("operation " + std::to_string(i) + " (" + op_label(g_.operations[i]) + ")");
    }
    UNIVK_RETURN_IF_ERROR(copy_unproduced_outputs());
    plan_.operator_count = static_cast<uint32_t>(g_.operations.size());
    plan_scratch();
    UNIVK_RETURN_IF_ERROR(check_binding_limit());
    return std::move(plan_);
  }

 private:
  const spirv::TosaTensorType& type(ValueId v) const { return g_.values[v].type; }

  // The lowered shaders implement nan_mode PROPAGATE (what univk writes, the spec's default and
  // PyTorch's semantics) on float inputs; IGNORE, which another encoder may write, is refused
  // rather than computed another way.
  Status check_nan_mode(const TosaOperation& op, size_t index) const {
    switch (op.op) {
      case TosaOp::kMaximum:
      case TosaOp::kMinimum:
      case TosaOp::kClamp:
      case TosaOp::kMaxPool2d:
      case TosaOp::kReduceMax:
      case TosaOp::kReduceMin:
      case TosaOp::kArgmax:
        break;
      default:
        return ok_status();
    }
    if (op.inputs.empty() || op.inputs[0] >= g_.values.size()) return ok_status();  // index_graph reports it
    const DType dtype = type(op.inputs[0]).dtype;
    if (dtype != DType::kFloat32 && dtype != DType::kFloat16) return ok_status();
    UNIVK_ASSIGN_OR_RETURN(const int64_t mode, op.attrs.get_int_or("nan_mode", spirv::kNanPropagate));
    if (mode == spirv::kNanPropagate) return ok_status();
    return unsupported("operation " + std::to_string(index) + " (" + std::string(spirv::tosa_op_name(op.op)) +
                       "): nan_mode " + std::to_string(mode) +
                       " is not supported by the lowered path, which implements PROPAGATE (1)");
  }

  Status index_graph() {
    const size_t n = g_.values.size();
    consumers_.assign(n, {});
    producer_.assign(n, std::nullopt);
    is_output_.assign(n, false);
    views_.assign(n, std::nullopt);
    for (size_t i = 0; i < g_.operations.size(); ++i) {
      const TosaOperation& op = g_.operations[i];
      const size_t results = op.op == TosaOp::kFft2d || op.op == TosaOp::kRfft2d ? 2 : 1;
      if (op.outputs.size() != results)
        return unsupported("operation " + std::to_string(i) + " has " + std::to_string(op.outputs.size()) + " results");
      for (ValueId v : op.inputs) {
        if (v >= n)
          return invalid_argument("operation " + std::to_string(i) + " reads value " + std::to_string(v) +
                                  " out of range");
        auto& c = consumers_[v];
        if (std::find(c.begin(), c.end(), i) == c.end()) c.push_back(i);
      }
      for (ValueId out : op.outputs) {
        if (out >= n) return invalid_argument("operation result out of range");
        producer_[out] = i;
      }
      UNIVK_RETURN_IF_ERROR(check_nan_mode(op, i));
    }
    for (const auto& out : g_.outputs) {
      if (out.value >= n) return invalid_argument("graph output value out of range");
      is_output_[out.value] = true;
    }
    return ok_status();
  }

  Result<uint32_t> resource_for(uint32_t set, uint32_t binding) const {
    const auto& seg = *ctx_.segment;
    for (size_t i = 0; i < seg.set_infos.size(); ++i) {
      if (seg.set_number(i) != set) continue;
      for (const auto& slot : seg.set_infos[i].bindings)
        if (slot.binding == binding) return slot.resource_index;
    }
    return invalid_argument("graph interface set " + std::to_string(set) + " binding " + std::to_string(binding) +
                            " is not in the segment's descriptor set infos");
  }

  Result<TensorView> resource_view(uint32_t set, uint32_t binding, ValueId v) const {
    UNIVK_ASSIGN_OR_RETURN(uint32_t index, resource_for(set, binding));
    if (index >= ctx_.file->resources.size()) return invalid_argument("resource index out of range");
    const univk::vgf::Resource& r = ctx_.file->resources[index];
    const auto dtype = univk::vgf::dtype_from_vk_format(r.vk_format);
    const auto& t = type(v);
    if (!dtype || *dtype != t.dtype || r.shape != t.shape)
      return invalid_argument("resource " + std::to_string(index) + " (" + univk::vgf::vk_format_name(r.vk_format) +
                              " " + Shape(r.shape).to_string() + ") does not match graph value " + spirv::to_string(t));
    TensorView view;
    UNIVK_ASSIGN_OR_RETURN(view.strides, resource_element_strides(r));
    UNIVK_ASSIGN_OR_RETURN(view.storage.byte_size, resource_byte_size(r));
    view.storage.kind = StorageKind::kResource;
    view.storage.resource = index;
    view.dtype = t.dtype;
    view.shape = t.shape;
    return view;
  }

  TensorView contiguous_view(ValueId v, StorageRef storage) const {
    TensorView view;
    view.storage = storage;
    view.dtype = type(v).dtype;
    view.shape = type(v).shape;
    view.strides = Shape(view.shape).contiguous_strides();
    return view;
  }

  uint64_t byte_size(ValueId v) const {
    return static_cast<uint64_t>(type(v).element_count()) * dtype_size(type(v).dtype);
  }

  Status bind_interface() {
    for (const auto& in : g_.inputs) {
      if (in.value >= g_.values.size()) return invalid_argument("graph input value out of range");
      UNIVK_ASSIGN_OR_RETURN(views_[in.value], resource_view(in.descriptor_set, in.binding, in.value));
    }
    for (ValueId v = 0; v < g_.values.size(); ++v) {
      const auto& value = g_.values[v];
      if (value.kind == ValueKind::kConstant) {
        if (value.data.size() != byte_size(v))
          return invalid_argument("inline constant " + std::to_string(v) + " has the wrong byte size");
        auto& blob = *ctx_.constant_blob;
        blob.resize((blob.size() + 15) / 16 * 16);
        StorageRef storage{StorageKind::kConstant, 0, blob.size(), value.data.size()};
        blob.insert(blob.end(), value.data.begin(), value.data.end());
        views_[v] = contiguous_view(v, storage);
      } else if (value.kind == ValueKind::kGraphConstant) {
        auto index = ctx_.segment->constant_for_graph_constant(value.graph_constant_id, ctx_.file->constants.size());
        if (!index || ctx_.constant_offsets.count(*index) == 0)
          return invalid_argument("graph constant id " + std::to_string(value.graph_constant_id) +
                                  " has no VGF constant");
        const auto& c = ctx_.file->constants[*index];
        if (c.sparsity_dimension >= 0) return unsupported("2:4 sparse constants are not supported");
        if (c.data().size() != byte_size(v))
          return invalid_argument("VGF constant " + std::to_string(*index) + " holds " +
                                  std::to_string(c.data().size()) + " bytes but graph constant " +
                                  std::to_string(value.graph_constant_id) + " is " + spirv::to_string(type(v)));
        views_[v] = contiguous_view(
            v, StorageRef{StorageKind::kConstant, 0, ctx_.constant_offsets.at(*index), c.data().size()});
      }
    }
    out_views_.resize(g_.outputs.size());
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const auto& out = g_.outputs[i];
      UNIVK_ASSIGN_OR_RETURN(out_views_[i], resource_view(out.descriptor_set, out.binding, out.value));
      // The producing dispatch writes straight into the first resource bound to a value.
      if (producer_[out.value] && !views_[out.value]) views_[out.value] = out_views_[i];
    }
    return ok_status();
  }

  // A TRANSPOSE or RESHAPE whose result is a graph output and whose input is written by one
  // dispatch that nothing else reads: that dispatch writes the output resource directly,
  // through the inverse permutation, or under the input's shape when the resource is packed.
  void plan_write_through() {
    for (size_t i = 0; i < g_.operations.size(); ++i) {
      const TosaOperation& op = g_.operations[i];
      if (op.op != TosaOp::kTranspose && op.op != TosaOp::kReshape) continue;
      const ValueId x = op.inputs[0], z = op.outputs[0];
      if (!is_output_[z] || is_output_[x] || consumers_[x].size() != 1 || !producer_[x] || !views_[z]) continue;
      if (is_view_op(g_.operations[*producer_[x]].op)) continue;
      TensorView view = *views_[z];
      view.shape = type(x).shape;
      if (op.op == TosaOp::kReshape) {
        auto reshaped = ops::tosa_reshape(op.attrs, Shape(type(x).shape));
        if (!reshaped.ok() || *reshaped != Shape(type(z).shape) || !views_[z]->contiguous()) continue;
        view.strides = Shape(view.shape).contiguous_strides();
      } else {
        auto t = ops::tosa_transpose(op.attrs, Shape(type(x).shape));
        if (!t.ok()) continue;
        for (size_t d = 0; d < t->perms.size(); ++d) view.strides[t->perms[d]] = views_[z]->strides[d];
      }
      views_[x] = view;
      write_through_.insert(i);
    }
  }

  // The view of `v` for reading, assigning scratch when a dispatch still has to produce it.
  TensorView output_view(ValueId v) {
    if (!views_[v]) views_[v] = contiguous_view(v, StorageRef{StorageKind::kScratch, v, 0, byte_size(v)});
    return *views_[v];
  }

  Result<TensorView> input_view(ValueId v) const {
    if (!views_[v]) return internal_error("value " + std::to_string(v) + " read before it was produced");
    return *views_[v];
  }

  Status lower_operation(size_t i) {
    const TosaOperation& op = g_.operations[i];
    if (epilogues_.chain_of_op[i]) {
      const EpilogueChain& chain = epilogues_.chains[*epilogues_.chain_of_op[i]];
      if (i != chain.last_op()) return ok_status();  // emitted with the chain's last op
      return emit_chain(chain);
    }
    if (grouped_.of_op[i]) {
      if (!grouped_.is_concat(i)) return ok_status();  // a group's CONV2D: emitted with the CONCAT
      UNIVK_ASSIGN_OR_RETURN(std::vector<Dispatch> dispatches, emit_anchor(i, output_view(op.outputs[0])));
      return add_dispatches(std::move(dispatches), anchor_label(i));
    }
    if (fusion_.group_of_op[i]) {
      const FusionGroup& grp = fusion_.groups[*fusion_.group_of_op[i]];
      if (g_.operations[i].outputs[0] != grp.output) return ok_status();  // emitted with the group's last op
      return emit_group(grp);
    }
    if (write_through_.count(i)) return ok_status();
    return emit_single(i);
  }

  // One operation on its own (a view folded into strides where it can be).
  Status emit_single(size_t i) {
    const TosaOperation& op = g_.operations[i];
    if (op.outputs.size() > 1) return lower_multi_result(op);
    const ValueId out = op.outputs[0];
    if (is_view_op(op.op) && !is_output_[out]) {
      UNIVK_ASSIGN_OR_RETURN(TensorView in, input_view(op.inputs[0]));
      UNIVK_ASSIGN_OR_RETURN(auto view, fold_view(op, in));
      if (view) {
        views_[out] = *view;
        return ok_status();
      }
    }
    std::vector<TensorView> inputs;
    for (ValueId v : op.inputs) {
      UNIVK_ASSIGN_OR_RETURN(TensorView view, input_view(v));
      inputs.push_back(view);
    }
    TensorView output = output_view(out);
    UNIVK_ASSIGN_OR_RETURN(std::vector<Dispatch> dispatches, emit_dispatches(op, inputs, output, ctx_.binding_limit));
    return add_dispatches(std::move(dispatches), op_label(op));
  }

  // FFT2D / RFFT2D: one dispatch writing both results.
  Status lower_multi_result(const TosaOperation& op) {
    std::vector<TensorView> inputs, outputs;
    for (ValueId v : op.inputs) {
      UNIVK_ASSIGN_OR_RETURN(TensorView view, input_view(v));
      inputs.push_back(view);
    }
    for (ValueId v : op.outputs) outputs.push_back(output_view(v));
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, emit_dft(op, inputs, outputs));
    return add_dispatches({std::move(k)}, op_label(op));
  }

  // Appends dispatches (kernel-library ones planned for the device); `label` names the
  // unlabelled ones.
  Status add_dispatches(std::vector<Dispatch> dispatches, const std::string& label) {
    for (auto& k : dispatches) {
      if (k.label.empty()) k.label = label;
      if (k.kernel) {
        UNIVK_RETURN_IF_ERROR(plan_kernel_pieces(std::move(k)));
      } else {
        plan_.dispatches.push_back(std::move(k));
      }
    }
    return ok_status();
  }

  // An epilogue chain: one kernel-library dispatch writing the chain's last value when the
  // kernel takes the epilogue (one dispatch, a residual with the output's strides); else the
  // anchor on its own and the ADD/CLAMP as one elementwise group.
  Status emit_chain(const EpilogueChain& chain) {
    const TosaOperation& anchor = g_.operations[chain.anchor];
    std::string label = anchor_label(chain.anchor);
    for (auto member : {chain.add, chain.clamp, chain.rescale, chain.rescale_clamp, chain.table})
      if (member) label += "+" + op_label(g_.operations[*member]);
    for (size_t member : chain.residual_ops()) label += "+" + op_label(g_.operations[member]);
    KernelEpilogue epilogue;
    bool fusable = true;
    if (chain.int8) {
      fusable = int8_epilogue(chain, epilogue);
    } else {
      if (chain.add) {
        UNIVK_ASSIGN_OR_RETURN(epilogue.addend, input_view(chain.addend));
      }
      if (chain.clamp) epilogue.clamp = std::pair{chain.lo, chain.hi};
    }
    if (fusable) {
      TensorView out = output_view(chain.output);
      if (epilogue.requantize) {
        // The convolution writes the requantized int8 value: emitted over its view as int32.
        epilogue.requantized_output = out;
        out.dtype = DType::kInt32;
      }
      UNIVK_ASSIGN_OR_RETURN(std::vector<Dispatch> fused, emit_anchor(chain.anchor, out));
      if (fused.size() == 1 && fuse_kernel_epilogue(fused[0], epilogue)) return add_dispatches(std::move(fused), label);
    }
    if (chain.residual_add) {
      // The convolution and its requantization without the residual add, then the add's
      // operators on their own.
      UNIVK_RETURN_IF_ERROR(emit_chain(chain.without_residual()));
      for (size_t member : chain.residual_ops()) UNIVK_RETURN_IF_ERROR(emit_single(member));
      return ok_status();
    }
    UNIVK_ASSIGN_OR_RETURN(std::vector<Dispatch> dispatches, emit_anchor(chain.anchor, output_view(anchor.outputs[0])));
    UNIVK_RETURN_IF_ERROR(add_dispatches(std::move(dispatches), anchor_label(chain.anchor)));
    if (chain.int8) {
      for (auto member : {chain.clamp, chain.rescale, chain.rescale_clamp, chain.table})
        if (member) UNIVK_RETURN_IF_ERROR(emit_single(*member));
      return ok_status();
    }
    FusionGroup rest;
    for (auto member : {chain.add, chain.clamp})
      if (member) rest.ops.push_back(*member);
    rest.output = chain.output;
    return emit_group(rest);
  }

  // An int8 chain's accumulator clamp and requantization as a kernel epilogue, the RESCALE's
  // multipliers and shifts appended to the constant buffer as int32; false when the kernel
  // cannot take the RESCALE (unsigned operands, an input zero point, or attributes its own
  // lowering refuses and reports).
  bool int8_epilogue(const EpilogueChain& chain, KernelEpilogue& epilogue) {
    if (chain.clamp) epilogue.int_clamp = std::pair{chain.acc_lo, chain.acc_hi};
    if (!chain.rescale) return true;
    auto r = rescale_of(*chain.rescale);
    if (!r.ok() || r->input_unsigned || r->output_unsigned || r->input_zp != 0) return false;
    kernels::Requantize q;
    q.per_channel = r->per_channel;
    q.double_round = r->double_round;
    q.output_zp = static_cast<int32_t>(r->output_zp);
    q.lo = chain.out_lo, q.hi = chain.out_hi;
    std::vector<int32_t> words;
    for (const auto* values : {&r->multiplier, &r->shift})
      for (int64_t v : *values) words.push_back(static_cast<int32_t>(v));
    if (chain.table) {
      const std::span<const uint8_t> table = constant_bytes(chain.table_value);
      if (table.size() != 256) return false;
      q.table = true;
      const size_t at = words.size();
      words.resize(at + 64);
      std::memcpy(words.data() + at, table.data(), 256);
    }
    if (chain.residual_add) {
      auto skip = input_view(chain.skip);
      if (!skip.ok()) return false;
      q.residual = residual_of(chain, *skip);
      if (!q.residual) return false;
      const auto residual = kernels::residual_words(*q.residual);
      words.insert(words.end(), residual.begin(), residual.end());
      epilogue.skip = *skip;
    }
    auto& blob = *ctx_.constant_blob;
    blob.resize((blob.size() + 15) / 16 * 16);
    TensorView params;
    params.storage = {StorageKind::kConstant, 0, blob.size(), words.size() * sizeof(int32_t)};
    params.dtype = DType::kInt32;
    params.shape = {static_cast<int64_t>(words.size())};
    params.strides = {1};
    const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
    blob.insert(blob.end(), bytes, bytes + words.size() * sizeof(int32_t));
    epilogue.requantize = q;
    epilogue.requantize_params = params;
    return true;
  }

  // The attributes of RESCALE operation `i`, checked against its value types.
  Result<RescaleParams> rescale_of(size_t i) const {
    const TosaOperation& op = g_.operations[i];
    TensorView in, out;
    in.dtype = type(op.inputs[0]).dtype, in.shape = type(op.inputs[0]).shape;
    out.dtype = type(op.outputs[0]).dtype, out.shape = type(op.outputs[0]).shape;
    return rescale_params(op, in, out);
  }

  // The residual add of int8 chain `chain` (kernels::Residual, its skip tensor's strides those
  // of `skip`); nullopt when a RESCALE is per channel, unsigned or refused by its own lowering.
  std::optional<kernels::Residual> residual_of(const EpilogueChain& chain, const TensorView& skip) const {
    auto params = [&](size_t i) -> std::optional<RescaleParams> {
      auto r = rescale_of(i);
      if (!r.ok() || r->per_channel || r->input_unsigned || r->output_unsigned) return std::nullopt;
      return *r;
    };
    auto y = params(*chain.y_rescale), s = params(*chain.skip_rescale), sum = params(*chain.sum_rescale);
    if (!y || !s || !sum || skip.dtype != DType::kInt8 || skip.shape.size() != 4) return std::nullopt;
    auto scale = [](const RescaleParams& r) {
      return kernels::RescaleScale{static_cast<int32_t>(r.multiplier[0]), static_cast<int32_t>(r.shift[0]),
                                   r.double_round};
    };
    kernels::Residual res;
    res.y_scale = scale(*y), res.skip_scale = scale(*s), res.sum_scale = scale(*sum);
    res.y_zp = static_cast<int32_t>(y->input_zp), res.skip_zp = static_cast<int32_t>(s->input_zp);
    res.output_zp = static_cast<int32_t>(sum->output_zp);
    res.lo = chain.residual_lo, res.hi = chain.residual_hi;
    res.sum_lo = chain.sum_lo, res.sum_hi = chain.sum_hi;
    // TOSA NHWC by logical dim; the view's offset reaches the kernel as its binding's base.
    res.skip = {skip.strides[0], skip.strides[3], skip.strides[1], skip.strides[2]};
    return res;
  }

  // The bytes of a constant value (inline or a VGF constant); empty for another value.
  std::span<const uint8_t> constant_bytes(ValueId v) const {
    const auto& value = g_.values[v];
    if (value.kind == ValueKind::kConstant) return value.data;
    if (value.kind != ValueKind::kGraphConstant) return {};
    auto index = ctx_.segment->constant_for_graph_constant(value.graph_constant_id, ctx_.file->constants.size());
    if (!index) return {};
    return ctx_.file->constants[*index].data();
  }

  // The dispatches of a kernel-library operation, or of a grouped convolution (its CONCAT),
  // writing `output`.
  Result<std::vector<Dispatch>> emit_anchor(size_t i, const TensorView& output) {
    const TosaOperation& op = g_.operations[i];
    std::vector<TensorView> inputs;
    const bool grouped = grouped_.is_concat(i);
    const GroupedConv* gc = grouped ? &grouped_.convs[*grouped_.of_op[i]] : nullptr;
    const std::vector<ValueId> operands = grouped ? std::vector<ValueId>{gc->input, gc->weight, gc->bias} : op.inputs;
    for (ValueId v : operands) {
      UNIVK_ASSIGN_OR_RETURN(TensorView view, input_view(v));
      inputs.push_back(view);
    }
    if (!grouped) return emit_dispatches(op, inputs, output, ctx_.binding_limit);
    return emit_grouped_conv(g_.operations[gc->convs[0]], static_cast<int64_t>(gc->convs.size()), inputs, output);
  }

  std::string anchor_label(size_t i) const {
    if (!grouped_.is_concat(i)) return op_label(g_.operations[i]);
    return "CONV2D x" + std::to_string(grouped_.convs[*grouped_.of_op[i]].convs.size()) + "+CONCAT";
  }

  // A kernel-library dispatch cut into pieces whose operand windows fit the binding limit
  // (kernels/split.h), each over 1-d views of its windows; one piece keeps the views whole, or
  // becomes Winograd's three dispatches (winograd_lowering.h).
  Status plan_kernel_pieces(Dispatch k) {
    kernels::DeviceTraits traits = ctx_.device;
    traits.max_binding_bytes = std::min(traits.max_binding_bytes, ctx_.binding_limit.max_bytes);
    traits.binding_alignment = std::max(traits.binding_alignment, ctx_.binding_limit.offset_alignment);
    auto pieces = kernels::split_problem(k.problem, traits);
    if (!pieces.ok()) return pieces.status().with_context(k.label);
    if (pieces->size() == 1) {
      const auto n = static_cast<uint32_t>(plan_.dispatches.size());
      auto winograd = lower_winograd(k, traits, *ctx_.constant_blob,
                                     {kWinogradScratchIds + 2 * n, kWinogradScratchIds + 2 * n + 1});
      if (!winograd.ok()) return winograd.status().with_context(k.label);
      if (*winograd) {
        for (Dispatch& step : **winograd) {
          attach_kernel_scratch(step);  // the GEMM's split-K partial sums, when it splits K
          plan_.dispatches.push_back(std::move(step));
        }
        return ok_status();
      }
      UNIVK_RETURN_IF_ERROR(plan_kernel(k, traits));
      plan_.dispatches.push_back(std::move(k));
      return ok_status();
    }
    auto window = [](const TensorView& whole, const kernels::ElementWindow& w) {
      TensorView v = whole;
      v.shape = {static_cast<int64_t>(w.end - w.begin)};
      v.strides = {1};
      v.offset = whole.offset + static_cast<int64_t>(w.begin);
      return v;
    };
    for (kernels::ProblemPiece& piece : *pieces) {
      Dispatch d = k;
      d.problem = std::move(piece.problem);
      // The recorder's binding order: inputs 0, 1, 2 (bias) and 3 (residual) are kernel
      // bindings 0, 1, 2 and 4; the output is binding 3.
      const uint32_t binding_of_input[] = {0, 1, 2, 4};
      for (size_t i = 0; i < d.inputs.size() && i < 4; ++i) {
        d.inputs[i] = window(k.inputs[i], piece.windows[binding_of_input[i]]);
      }
      d.outputs = {window(k.outputs[0], piece.windows[3])};
      d.work_items = output_elements(d.problem);
      UNIVK_RETURN_IF_ERROR(plan_kernel(d, traits));
      plan_.dispatches.push_back(std::move(d));
    }
    return ok_status();
  }

  static uint64_t output_elements(const kernels::Problem& problem) {
    if (const auto* g = std::get_if<kernels::GemmProblem>(&problem)) return uint64_t(g->batch * g->m * g->n);
    if (const auto* c = std::get_if<kernels::Conv2dProblem>(&problem)) {
      return uint64_t(c->batch * c->out_channels * c->out_h * c->out_w);
    }
    if (const auto* t = std::get_if<kernels::ConvTranspose2dProblem>(&problem)) {
      return uint64_t(t->batch * t->out_channels * t->out_h * t->out_w);
    }
    const auto& d = std::get<kernels::DepthwiseProblem>(problem);
    return uint64_t(d.batch * d.channels * d.multiplier * d.out_h * d.out_w);
  }

  // A kernel-library dispatch planned for the device, with its kernel scratch attached.
  Status plan_kernel(Dispatch& k, const kernels::DeviceTraits& traits) {
    auto planned = kernels::plan(k.problem, traits);
    if (!planned.ok()) return planned.status().with_context(k.label);
    k.kernel = std::move(planned).value();
    attach_kernel_scratch(k);
    return ok_status();
  }

  // A planned dispatch's scratch region, when its kernel needs one, for the dispatch that is
  // about to be appended (ids above every value's, so plan_scratch gives it bytes of its own
  // while it runs).
  void attach_kernel_scratch(Dispatch& k) const {
    if (!k.kernel || k.kernel->scratch_bytes == 0) return;
    TensorView scratch;
    scratch.storage = {StorageKind::kScratch, kKernelScratchIds + static_cast<uint32_t>(plan_.dispatches.size()), 0,
                       k.kernel->scratch_bytes};
    scratch.dtype = DType::kFloat32;
    scratch.shape = {static_cast<int64_t>((k.kernel->scratch_bytes + 3) / 4)};
    scratch.strides = {1};
    k.scratch = scratch;
  }

  // The view of a TRANSPOSE/SLICE/RESHAPE result over its input's storage, or nullopt when
  // it needs a copy (RESHAPE of a non-packed view).
  Result<std::optional<TensorView>> fold_view(const TosaOperation& op, const TensorView& in) const {
    const auto& out_type = type(op.outputs[0]);
    TensorView view = in;
    view.shape = out_type.shape;
    if (op.op == TosaOp::kTranspose) {
      UNIVK_ASSIGN_OR_RETURN(ops::TosaTranspose t, ops::tosa_transpose(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("TRANSPOSE", t.output, view));
      for (size_t d = 0; d < t.perms.size(); ++d) view.strides[d] = in.strides[t.perms[d]];
      return std::optional<TensorView>(view);
    }
    if (op.op == TosaOp::kSlice) {
      UNIVK_ASSIGN_OR_RETURN(ops::TosaSlice sl, ops::tosa_slice(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("SLICE", sl.output, view));
      for (size_t d = 0; d < sl.start.size(); ++d) view.offset += sl.start[d] * in.strides[d];
      view.strides = in.strides;
      return std::optional<TensorView>(view);
    }
    UNIVK_ASSIGN_OR_RETURN(Shape reshaped, ops::tosa_reshape(op.attrs, Shape(in.shape)));
    UNIVK_RETURN_IF_ERROR(check_declared_output("RESHAPE", reshaped, view));
    if (!in.contiguous()) return std::optional<TensorView>();
    view.strides = Shape(out_type.shape).contiguous_strides();
    return std::optional<TensorView>(view);
  }

  Status emit_group(const FusionGroup& grp) {
    std::vector<ValueId> input_values;
    auto program = fusion_group_program(g_, grp, &input_values, true);
    if (!program) {
      input_values.clear();
      program = fusion_group_program(g_, grp, &input_values, false);
    }
    if (!program) return internal_error("fused program does not fit");
    std::vector<TensorView> inputs;
    for (ValueId v : input_values) {
      UNIVK_ASSIGN_OR_RETURN(TensorView view, input_view(v));
      inputs.push_back(view);
    }
    std::string label;
    if (grp.anchor) label = op_label(g_.operations[*grp.anchor]);
    for (size_t i : grp.ops) label += (label.empty() ? "" : "+") + op_label(g_.operations[i]);
    TensorView output = output_view(grp.output);
    Result<std::vector<Dispatch>> dispatches =
        grp.anchor ? emit_pool(g_.operations[*grp.anchor], inputs, output, *program, ctx_.binding_limit)
                   : emit_elementwise(grp.dtype, inputs, output, *program, ctx_.binding_limit);
    if (!dispatches.ok()) return dispatches.status();
    for (Dispatch& k : *dispatches) {
      k.label = label;
      plan_.dispatches.push_back(std::move(k));
    }
    return ok_status();
  }

  Status copy_unproduced_outputs() {
    std::set<ValueId> written;
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const ValueId v = g_.outputs[i].value;
      const bool produced_here = producer_[v] && views_[v] && views_[v]->storage == out_views_[i].storage &&
                                 views_[v]->offset == out_views_[i].offset && !written.count(v);
      if (produced_here) {
        written.insert(v);
        continue;
      }
      UNIVK_ASSIGN_OR_RETURN(TensorView in, input_view(v));
      UNIVK_ASSIGN_OR_RETURN(auto dispatches, emit_copy(in, out_views_[i], ctx_.binding_limit));
      for (Dispatch& k : dispatches) {
        k.label = "output copy";
        plan_.dispatches.push_back(std::move(k));
      }
    }
    return ok_status();
  }

  // Dispatches the emitters do not split (reductions, RESCALE, PAD/TILE) must fit the binding
  // limit whole; scratch offsets are 256-byte aligned, like resources.
  Status check_binding_limit() const {
    for (const Dispatch& k : plan_.dispatches) {
      std::vector<TensorView> views = k.outputs;
      views.insert(views.end(), k.inputs.begin(), k.inputs.end());
      if (!views_fit(views, ctx_.binding_limit)) return binding_limit_error(views, ctx_.binding_limit, k.label);
    }
    return ok_status();
  }

  // Scratch values live from the first to the last dispatch that touches them; values whose
  // lifetimes do not overlap share bytes (vulkan::plan_arena). Offsets are 256-byte aligned,
  // like resources.
  void plan_scratch() {
    std::map<uint32_t, size_t> request_of;  // scratch id -> index in requests
    std::vector<vulkan::ArenaRequest> requests;
    for (size_t k = 0; k < plan_.dispatches.size(); ++k) {
      auto note = [&](const TensorView& v) {
        if (v.storage.kind != StorageKind::kScratch) return;
        auto [it, inserted] = request_of.try_emplace(v.storage.resource, requests.size());
        if (inserted) requests.push_back({v.storage.byte_size, k, k});
        vulkan::ArenaRequest& request = requests[it->second];
        request.last = k;
        request.size = v.storage.byte_size;
      };
      for (auto& v : plan_.dispatches[k].outputs) note(v);
      for (auto& v : plan_.dispatches[k].inputs) note(v);
      if (plan_.dispatches[k].scratch) note(*plan_.dispatches[k].scratch);
    }
    const vulkan::ArenaPlan arena = vulkan::plan_arena(requests, kScratchAlignment);
    for (auto& dispatch : plan_.dispatches) {
      auto patch = [&](TensorView& v) {
        if (v.storage.kind == StorageKind::kScratch)
          v.storage.byte_offset = arena.offsets[request_of.at(v.storage.resource)];
      };
      for (auto& v : dispatch.outputs) patch(v);
      for (auto& v : dispatch.inputs) patch(v);
      if (dispatch.scratch) patch(*dispatch.scratch);
    }
    plan_.scratch_bytes = arena.total;
  }

  const TosaGraph& g_;
  LoweringContext& ctx_;
  SegmentPlan plan_;
  std::vector<std::vector<size_t>> consumers_;
  std::vector<std::optional<size_t>> producer_;
  std::vector<bool> is_output_;
  std::vector<std::optional<TensorView>> views_;
  std::vector<TensorView> out_views_;
  GroupedConvPlan grouped_;
  EpiloguePlan epilogues_;
  FusionPlan fusion_;
  std::set<size_t> write_through_;
};

}  // namespace

Result<SegmentPlan> lower_graph(const TosaGraph& graph, LoweringContext& context) {
  if (!context.file || !context.segment || !context.constant_blob)
    return internal_error("lower_graph: incomplete context");
  return Lowering(graph, context).run();
}

}  // namespace univk::backends::vgf
