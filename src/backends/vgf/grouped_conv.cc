#include "grouped_conv.h"

namespace univk::backends::vgf {

using spirv::TosaGraph;
using spirv::TosaOp;
using spirv::TosaOperation;
using spirv::ValueId;

namespace {

// The operation producing each value.
std::vector<std::optional<size_t>> producers(const TosaGraph& g) {
  std::vector<std::optional<size_t>> producer(g.values.size());
  for (size_t i = 0; i < g.operations.size(); ++i) producer[g.operations[i].outputs[0]] = i;
  return producer;
}

// The value `v` is a SLICE of, when that SLICE starts at `offset` along `axis` (0 elsewhere)
// and keeps `length` there and every other dim whole.
std::optional<ValueId> slice_source(const TosaGraph& g, const std::vector<std::optional<size_t>>& producer, ValueId v,
                                    size_t axis, int64_t offset, int64_t length) {
  if (!producer[v]) return std::nullopt;
  const TosaOperation& op = g.operations[*producer[v]];
  if (op.op != TosaOp::kSlice || op.inputs.size() != 1) return std::nullopt;
  const ValueId source = op.inputs[0];
  const std::vector<int64_t>& whole = g.values[source].type.shape;
  auto start = op.attrs.get_ints("start");
  auto size = op.attrs.get_ints("size");
  if (!start.ok() || !size.ok() || start->size() != whole.size() || size->size() != whole.size() ||
      axis >= whole.size())
    return std::nullopt;
  for (size_t d = 0; d < whole.size(); ++d) {
    const bool sliced = d == axis;
    if ((*start)[d] != (sliced ? offset : 0) || (*size)[d] != (sliced ? length : whole[d])) return std::nullopt;
  }
  return source;
}

std::optional<GroupedConv> match(const TosaGraph& g, const std::vector<std::vector<size_t>>& consumers,
                                 const std::vector<bool>& is_output, const std::vector<std::optional<size_t>>& producer,
                                 size_t concat) {
  const TosaOperation& cat = g.operations[concat];
  const int64_t groups = static_cast<int64_t>(cat.inputs.size());
  const auto& out = g.values[cat.outputs[0]].type;
  auto axis = cat.attrs.get_int("axis");
  if (cat.op != TosaOp::kConcat || groups < 2 || out.shape.size() != 4 || out.dtype != DType::kFloat32 || !axis.ok() ||
      *axis != 3)
    return std::nullopt;
  GroupedConv gc;
  gc.concat = concat;
  const TosaOperation* first = nullptr;
  for (int64_t grp = 0; grp < groups; ++grp) {
    const ValueId v = cat.inputs[static_cast<size_t>(grp)];
    if (is_output[v] || consumers[v].size() != 1 || !producer[v]) return std::nullopt;
    const TosaOperation& conv = g.operations[*producer[v]];
    if (conv.op != TosaOp::kConv2d || conv.inputs.size() != 3) return std::nullopt;
    for (ValueId in : conv.inputs)
      if (g.values[in].type.dtype != DType::kFloat32) return std::nullopt;
    if (first && (conv.attrs.values() != first->attrs.values() ||
                  g.values[conv.outputs[0]].type.shape != g.values[first->outputs[0]].type.shape))
      return std::nullopt;
    if (!first) first = &conv;
    const std::vector<int64_t>& x = g.values[conv.inputs[0]].type.shape;
    const std::vector<int64_t>& w = g.values[conv.inputs[1]].type.shape;
    if (x.size() != 4 || w.size() != 4) return std::nullopt;
    const auto input = slice_source(g, producer, conv.inputs[0], 3, grp * x[3], x[3]);
    const auto weight = slice_source(g, producer, conv.inputs[1], 0, grp * w[0], w[0]);
    const auto bias = slice_source(g, producer, conv.inputs[2], 0, grp * w[0], w[0]);
    if (!input || !weight || !bias) return std::nullopt;
    if (grp == 0) {
      gc.input = *input, gc.weight = *weight, gc.bias = *bias;
    } else if (*input != gc.input || *weight != gc.weight || *bias != gc.bias) {
      return std::nullopt;
    }
    gc.convs.push_back(*producer[v]);
  }
  // The groups cover the whole input, weight and bias.
  const std::vector<int64_t>& x0 = g.values[first->inputs[0]].type.shape;
  const std::vector<int64_t>& w0 = g.values[first->inputs[1]].type.shape;
  if (g.values[gc.input].type.shape[3] != groups * x0[3] || g.values[gc.weight].type.shape[0] != groups * w0[0] ||
      g.values[gc.bias].type.shape.size() != 1 || out.shape[3] != groups * w0[0])
    return std::nullopt;
  return gc;
}

}  // namespace

GroupedConvPlan find_grouped_convs(const TosaGraph& g, const std::vector<std::vector<size_t>>& consumers,
                                   const std::vector<bool>& is_output) {
  GroupedConvPlan plan;
  plan.of_op.assign(g.operations.size(), std::nullopt);
  const std::vector<std::optional<size_t>> producer = producers(g);
  for (size_t i = 0; i < g.operations.size(); ++i) {
    if (g.operations[i].op != TosaOp::kConcat) continue;
    std::optional<GroupedConv> gc = match(g, consumers, is_output, producer, i);
    if (!gc) continue;
    plan.of_op[gc->concat] = plan.convs.size();
    for (size_t conv : gc->convs) plan.of_op[conv] = plan.convs.size();
    plan.convs.push_back(std::move(*gc));
  }
  return plan;
}

}  // namespace univk::backends::vgf
