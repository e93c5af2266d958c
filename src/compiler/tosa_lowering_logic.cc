// Lowerings of the comparison, logical and selection operators (torch_index_ops.h) to TOSA's
// EQUAL, GREATER, GREATER_EQUAL, LOGICAL_AND/OR/XOR/NOT and SELECT, in the layout their operands
// already have (NHWC when a rank-4 operand exists as NHWC), like the binary operators.
#include "tosa_lowering.h"
#include "univk/ops/torch_index_ops.h"

namespace univk::compiler::detail {
namespace {

using spirv::TosaOp;

Status check_dtype(const Value& v, DType want, const char* what) {
  if (v.dtype != want) {
    return unsupported(std::string(what) + " '" + v.name + "' is " + std::string(dtype_name(v.dtype)) + " (" +
                       std::string(dtype_name(want)) + " is lowered to TOSA)");
  }
  return ok_status();
}

}  // namespace

bool TosaLowering::is_logic_op(std::string_view op) {
  for (std::string_view name : ops::compare_op_names())
    if (op == name) return true;
  for (std::string_view name : ops::logical_op_names())
    if (op == name) return true;
  return op == "where" || op == "masked_fill" || op == "all" || op == "any";
}

Layout TosaLowering::elementwise_layout(const Node& node) const {
  if (graph_.value(node.outputs[0]).shape.rank() != 4) return Layout::kNatural;
  for (ValueId in : node.inputs) {
    if (graph_.value(in).shape.rank() == 4 && has(in, Layout::kNhwc)) return Layout::kNhwc;
  }
  return Layout::kNatural;
}

Status TosaLowering::lower_compare(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::Compare c, ops::compare(node.op, node.attrs, shapes));
  for (ValueId in : node.inputs) UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(in), DType::kFloat32, "input"));
  const size_t rank = c.output.rank();
  const Layout layout = elementwise_layout(node);
  const std::vector<int64_t> shape = layout == Layout::kNhwc ? permuted(c.output.dims(), kToNhwc) : c.output.dims();
  UNIVK_ASSIGN_OR_RETURN(TosaId a, operand(node.inputs[0], rank, layout));
  TosaId b;
  if (c.has_scalar) {
    b = scalar_constant(static_cast<float>(c.other), rank);
    if (c.scalar_first) std::swap(a, b);
  } else {
    UNIVK_ASSIGN_OR_RETURN(b, operand(node.inputs[1], rank, layout));
  }
  // a < b is b > a; a != b is NOT(a == b), true where either is NaN, as in PyTorch.
  const std::string& o = node.op;
  TosaId y;
  if (o == "eq" || o == "ne") {
    y = op(TosaOp::kEqual, {a, b}, {}, shape, DType::kBool);
    if (o == "ne") y = op(TosaOp::kLogicalNot, {y}, {}, shape, DType::kBool);
  } else if (o == "gt" || o == "lt") {
    y = o == "gt" ? op(TosaOp::kGreater, {a, b}, {}, shape, DType::kBool)
                  : op(TosaOp::kGreater, {b, a}, {}, shape, DType::kBool);
  } else {
    y = o == "ge" ? op(TosaOp::kGreaterEqual, {a, b}, {}, shape, DType::kBool)
                  : op(TosaOp::kGreaterEqual, {b, a}, {}, shape, DType::kBool);
  }
  set(node.outputs[0], layout, y);
  return ok_status();
}

Status TosaLowering::lower_logical(const Node& node) {
  for (ValueId in : node.inputs) UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(in), DType::kBool, "input"));
  const Shape& out = graph_.value(node.outputs[0]).shape;
  const Layout layout = elementwise_layout(node);
  const std::vector<int64_t> shape = layout == Layout::kNhwc ? permuted(out.dims(), kToNhwc) : out.dims();
  UNIVK_ASSIGN_OR_RETURN(TosaId a, operand(node.inputs[0], out.rank(), layout));
  TosaId y;
  if (node.op == "logical_not") {
    y = op(TosaOp::kLogicalNot, {a}, {}, shape, DType::kBool);
  } else {
    UNIVK_ASSIGN_OR_RETURN(TosaId b, operand(node.inputs[1], out.rank(), layout));
    const TosaOp t = node.op == "logical_and"   ? TosaOp::kLogicalAnd
                     : node.op == "logical_xor" ? TosaOp::kLogicalXor
                                                : TosaOp::kLogicalOr;
    y = op(t, {a, b}, {}, shape, DType::kBool);
  }
  set(node.outputs[0], layout, y);
  return ok_status();
}

Status TosaLowering::lower_where(const Node& node) {
  UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(node.inputs[0]), DType::kBool, "condition"));
  UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(node.inputs[1]), DType::kFloat32, "x"));
  UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(node.inputs[2]), DType::kFloat32, "y"));
  const Shape& out = graph_.value(node.outputs[0]).shape;
  const Layout layout = elementwise_layout(node);
  const std::vector<int64_t> shape = layout == Layout::kNhwc ? permuted(out.dims(), kToNhwc) : out.dims();
  std::vector<TosaId> operands;
  for (ValueId in : node.inputs) {
    UNIVK_ASSIGN_OR_RETURN(TosaId t, operand(in, out.rank(), layout));
    operands.push_back(t);
  }
  set(node.outputs[0], layout, op(TosaOp::kSelect, std::move(operands), {}, shape));
  return ok_status();
}

Status TosaLowering::lower_masked_fill(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::MaskedFill m, ops::masked_fill(node.attrs, shapes));
  UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(node.inputs[0]), DType::kFloat32, "input"));
  UNIVK_RETURN_IF_ERROR(check_dtype(graph_.value(node.inputs[1]), DType::kBool, "mask"));
  const size_t rank = m.output.rank();
  const Layout layout = elementwise_layout(node);
  const std::vector<int64_t> shape = layout == Layout::kNhwc ? permuted(m.output.dims(), kToNhwc) : m.output.dims();
  UNIVK_ASSIGN_OR_RETURN(TosaId x, operand(node.inputs[0], rank, layout));
  UNIVK_ASSIGN_OR_RETURN(TosaId mask, operand(node.inputs[1], rank, layout));
  const TosaId value = scalar_constant(static_cast<float>(m.value), rank);
  set(node.outputs[0], layout, op(TosaOp::kSelect, {mask, value, x}, {}, shape));
  return ok_status();
}

}  // namespace univk::compiler::detail
