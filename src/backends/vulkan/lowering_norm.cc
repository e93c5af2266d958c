// Lowering of softmax, log_softmax (softmax.comp), sum, mean, prod, amax and amin (reduce.comp), layer_norm
// (layer_norm.comp) and batch_norm in inference form (batch_norm.comp).
#include "lowering_common.h"

namespace univk::backends::vulkan {
namespace {

// Variant bits: softmax.comp bit 0 = log_softmax; reduce.comp bit 0 = mean; bit 1 of both (and
// layer_norm.comp's variant 1) = one invocation per row instead of one workgroup per row.
constexpr uint32_t kLogSoftmax = 1;
constexpr uint32_t kReduceMean = 1;
constexpr uint32_t kPerThreadRows = 2;
constexpr uint32_t kReduceMax = 4;  // reduce.comp
constexpr uint32_t kReduceMin = 8;
constexpr uint32_t kReduceProd = 16;
// Rows shorter than this run one invocation per row: a 256-thread workgroup with its barriers
// costs more than a short serial loop (badly so on CPU drivers such as lavapipe).
constexpr int64_t kPerThreadRowLimit = 64;

// Grid for `rows` rows: one invocation or one workgroup per row.
Result<std::array<uint32_t, 3>> row_grid(int64_t rows, bool per_thread) {
  return per_thread ? grid_for_threads(static_cast<uint64_t>(rows)) : grid_for_groups(static_cast<uint64_t>(rows));
}

Result<LoweredOp> lower_softmax(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Softmax sm, ops::softmax(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  const int64_t outer = sm.outer, size = sm.size, inner = sm.inner;
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, sm.output));
  Dispatch d;
  d.shader = Shader::kSoftmax;
  const bool per_thread = size < kPerThreadRowLimit;
  d.variant = (op == "log_softmax" ? kLogSoftmax : 0) | (per_thread ? kPerThreadRows : 0);
  d.push = {u32(outer * inner), u32(size), u32(inner)};  // Params { rows, D, inner }
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, row_grid(outer * inner, per_thread));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_reduce(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Reduce rd, ops::reduce(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  const Shape& s = inputs[0].shape;
  const std::vector<bool>& reduced = rd.reduced;
  const std::vector<int64_t> strides = s.contiguous_strides();
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  for (size_t d = 0; d < s.rank(); ++d) {
    (reduced[d] ? red_dims : kept_dims).push_back(s[d]);
    (reduced[d] ? red_strides : kept_strides).push_back(strides[d]);
  }
  const int64_t count = rd.count;
  const bool extremum = op == "amax" || op == "amin";
  if (extremum && count == 0) return invalid_argument(std::string(op) + " over an empty dim has no identity");
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, rd.output));
  const StridedLayout kept = coalesce(kept_dims, {kept_strides});
  const StridedLayout red = coalesce(red_dims, {red_strides});
  if (kept.dims.size() + red.dims.size() > kMaxRank) {
    return unsupported("reduction of the dims sized " + Shape(red_dims).to_string() + " of " + s.to_string() +
                       " needs more than " + std::to_string(kMaxRank) + " dims");
  }
  const int64_t n_out = lowered.output.shape.numel();
  Dispatch d;
  d.shader = Shader::kReduce;
  const bool per_thread = count < kPerThreadRowLimit;
  d.variant = (op == "mean" ? kReduceMean : 0) | (op == "amax" ? kReduceMax : 0) | (op == "amin" ? kReduceMin : 0) |
              (op == "prod" ? kReduceProd : 0) | (per_thread ? kPerThreadRows : 0);
  // Params { n_out, R, kept_rank, red_rank, dims[6], strides[6] }: kept dims first, then reduced.
  d.push = {u32(n_out), u32(count), u32(static_cast<int64_t>(kept.dims.size())),
            u32(static_cast<int64_t>(red.dims.size()))};
  std::vector<int64_t> all_dims = kept.dims, all_strides = kept.strides[0];
  all_dims.insert(all_dims.end(), red.dims.begin(), red.dims.end());
  all_strides.insert(all_strides.end(), red.strides[0].begin(), red.strides[0].end());
  for (const auto* list : {&all_dims, &all_strides}) {
    for (uint32_t i = 0; i < kMaxRank; ++i) d.push.push_back(i < list->size() ? u32((*list)[i]) : 0);
  }
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, row_grid(n_out, per_thread));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_layer_norm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::LayerNorm ln, ops::layer_norm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, ln.output));
  const int64_t inner = ln.inner, rows = ln.rows;
  const double eps = ln.eps;
  const bool has_weight = inputs.size() > 1, has_bias = inputs.size() > 2;
  const bool per_thread = inner < kPerThreadRowLimit;
  Dispatch d;
  d.shader = Shader::kLayerNorm;
  d.variant = per_thread ? 1 : 0;
  // Params { rows, D, eps, has_weight, has_bias }
  d.push = {u32(rows), u32(inner), float_bits(static_cast<float>(eps)), has_weight, has_bias};
  d.bindings = {Operand::input(0), Operand::input(has_weight ? 1 : 0), Operand::input(has_bias ? 2 : 0),
                Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, row_grid(rows, per_thread));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_batch_norm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::BatchNorm bn, ops::batch_norm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  const Shape& s = inputs[0].shape;
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, bn.output));
  const int64_t c = bn.channels, inner = bn.inner;
  const double eps = bn.eps;
  const int64_t n = s.numel();
  Dispatch d;
  d.shader = Shader::kBatchNorm;
  d.push = {u32(n), u32(c), u32(inner), float_bits(static_cast<float>(eps))};  // Params { n, C, inner, eps }
  d.bindings = {Operand::input(0), Operand::input(1), Operand::input(2),
                Operand::input(3), Operand::input(4), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

}  // namespace

LowerTable normalization_lowerings() {
  return {{"softmax", lower_softmax}, {"log_softmax", lower_softmax},   {"sum", lower_reduce},
          {"mean", lower_reduce},     {"amax", lower_reduce},           {"amin", lower_reduce},
          {"prod", lower_reduce},     {"layer_norm", lower_layer_norm}, {"batch_norm", lower_batch_norm}};
}

}  // namespace univk::backends::vulkan
