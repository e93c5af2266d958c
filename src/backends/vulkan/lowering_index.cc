// Lowering of the comparison, logical, selection, indexing and scan operators
// (torch_index_ops.h): logic.comp, select.comp, gather.comp, along_dim.comp. Bool values are
// one byte per element (the shaders' 8-bit storage; PreparedComputeGraph requires it for
// graphs that hold 1-byte values).
#include <map>

#include "lowering_common.h"
#include "univk/ops/torch_index_ops.h"

namespace univk::backends::vulkan {
namespace {

Status check_dtype(const ComputeTensorType& t, DType want, const char* what) {
  if (t.dtype != want) {
    return unsupported(std::string(what) + " is " + std::string(dtype_name(t.dtype)) + "; " +
                       std::string(dtype_name(want)) + " is implemented");
  }
  return ok_status();
}

// Push words of a broadcasting dispatch: dims then one stride list per operand (6 each), after
// `head` (4 words).
Result<std::vector<uint32_t>> broadcast_push(std::vector<uint32_t> head, const Shape& out,
                                             const std::vector<Shape>& operands) {
  std::vector<std::vector<int64_t>> strides;
  for (const Shape& s : operands) strides.push_back(broadcast_strides(s, out));
  const StridedLayout layout = coalesce(out.dims(), strides);
  if (layout.dims.size() > kMaxRank) {
    return unsupported("broadcast to " + out.to_string() + " needs more than " + std::to_string(kMaxRank) + " dims");
  }
  head[1] = u32(static_cast<int64_t>(layout.dims.size()));
  for (uint32_t i = 0; i < kMaxRank; ++i) head.push_back(i < layout.dims.size() ? u32(layout.dims[i]) : 0);
  for (const auto& list : layout.strides) {
    for (uint32_t i = 0; i < kMaxRank; ++i) head.push_back(i < list.size() ? u32(list[i]) : 0);
  }
  return head;
}

Result<LoweredOp> lower_compare(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Compare c, ops::compare(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kBool, c.output));
  static const std::map<std::string_view, LogicOp> kOps = {{"eq", LogicOp::kEq}, {"ne", LogicOp::kNe},
                                                           {"lt", LogicOp::kLt}, {"le", LogicOp::kLe},
                                                           {"gt", LogicOp::kGt}, {"ge", LogicOp::kGe}};
  Dispatch d;
  d.shader = Shader::kLogic;
  d.variant = static_cast<uint32_t>(kOps.at(op));
  std::vector<Shape> operands = {inputs[0].shape, c.has_scalar ? Shape{} : inputs[1].shape};
  if (c.has_scalar) d.variant |= kLogicScalar | (c.scalar_first ? kLogicScalarFirst : 0u);
  UNIVK_ASSIGN_OR_RETURN(d.push, broadcast_push({u32(c.output.numel()), 0, float_bits(static_cast<float>(c.other)), 0},
                                                c.output, operands));
  d.bindings = {Operand::input(0), Operand::input(c.has_scalar ? 0 : 1), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(c.output.numel())));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_logical(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::logical(op, attrs, shapes_of(inputs)));
  for (const auto& t : inputs) UNIVK_RETURN_IF_ERROR(check_dtype(t, DType::kBool, "an operand"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kBool, shape));
  const bool unary = op == "logical_not";
  Dispatch d;
  d.shader = Shader::kLogic;
  const LogicOp binary = op == "logical_and" ? LogicOp::kAnd : (op == "logical_xor" ? LogicOp::kXor : LogicOp::kOr);
  d.variant = static_cast<uint32_t>(unary ? LogicOp::kNot : binary);
  UNIVK_ASSIGN_OR_RETURN(
      d.push, broadcast_push({u32(shape.numel()), 0, 0, 0}, shape, {inputs[0].shape, inputs[unary ? 0 : 1].shape}));
  d.bindings = {Operand::input(0), Operand::input(unary ? 0 : 1), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(shape.numel())));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_where(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::where(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[0], DType::kBool, "condition"));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[1], DType::kFloat32, "x"));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[2], DType::kFloat32, "y"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, shape));
  Dispatch d;
  d.shader = Shader::kSelect;
  UNIVK_ASSIGN_OR_RETURN(d.push, broadcast_push({u32(shape.numel()), 0, 0, 0}, shape,
                                                {inputs[0].shape, inputs[1].shape, inputs[2].shape}));
  d.bindings = {Operand::input(0), Operand::input(1), Operand::input(2), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(shape.numel())));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_masked_fill(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::MaskedFill m, ops::masked_fill(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[0], DType::kFloat32, "input"));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[1], DType::kBool, "mask"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, m.output));
  Dispatch d;
  d.shader = Shader::kSelect;
  d.variant = 1;  // the fill value (a push constant) where the mask is set, else the input
  UNIVK_ASSIGN_OR_RETURN(d.push, broadcast_push({u32(m.output.numel()), 0, float_bits(static_cast<float>(m.value)), 0},
                                                m.output, {inputs[1].shape, Shape{}, inputs[0].shape}));
  d.bindings = {Operand::input(1), Operand::input(0), Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(m.output.numel())));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_index_select(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::IndexSelect r, ops::index_select(attrs, shapes_of(inputs)));
  if (dtype_size(inputs[0].dtype) != 4) {
    return unsupported("input is " + std::string(dtype_name(inputs[0].dtype)) + "; 4-byte dtypes are implemented");
  }
  const DType index = inputs[1].dtype;
  if (index != DType::kInt32 && index != DType::kInt64) {
    return unsupported("index is " + std::string(dtype_name(index)) + "; int32 or int64 is required");
  }
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(inputs[0].dtype, r.output));
  Dispatch d;
  d.shader = Shader::kGather;
  d.variant = index == DType::kInt64 ? 1 : 0;
  d.push = {u32(r.output.numel()), u32(r.geometry.size), u32(r.count), u32(r.geometry.inner)};
  d.bindings = {Operand::input(0), Operand::input(1), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(r.output.numel())));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<Dispatch> along_dim_dispatch(uint32_t variant, const ops::AlongDim& g) {
  Dispatch d;
  d.shader = Shader::kAlongDim;
  d.variant = variant;
  const int64_t lines = g.outer * g.inner;
  d.push = {u32(lines), u32(g.size), u32(g.inner)};
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(lines)));
  return d;
}

Result<LoweredOp> lower_arg_reduce(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::ArgReduce r, ops::arg_reduce(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kInt64, r.output));
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, along_dim_dispatch(op == "argmax" ? 0 : 1, r.geometry));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_cumsum(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Cumsum c, ops::cumsum(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, c.output));
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, along_dim_dispatch(2, c.geometry));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

}  // namespace

LowerTable index_lowerings() {
  LowerTable t;
  for (std::string_view name : ops::compare_op_names()) t.emplace_back(name, lower_compare);
  for (std::string_view name : ops::logical_op_names()) t.emplace_back(name, lower_logical);
  t.emplace_back("where", lower_where);
  t.emplace_back("masked_fill", lower_masked_fill);
  t.emplace_back("index_select", lower_index_select);
  t.emplace_back("argmax", lower_arg_reduce);
  t.emplace_back("argmin", lower_arg_reduce);
  t.emplace_back("cumsum", lower_cumsum);
  return t;
}

}  // namespace univk::backends::vulkan
