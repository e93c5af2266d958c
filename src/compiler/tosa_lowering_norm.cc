// softmax, log_softmax and layer_norm as TOSA decompositions (TOSA 1.0 has no such operators), so
// attention and transformer blocks stay one VGF graph. See tosa_lowering.h for the layout rules.
#include <cmath>

#include "tosa_lowering.h"
#include "univk/ops/torch_ops.h"

namespace univk::compiler::detail {
namespace {

using spirv::TosaOp;

Attributes axis_attrs(int64_t axis) {
  Attributes a;
  a.set("axis", axis);
  return a;
}

Attributes mul_attrs() {
  Attributes a;
  a.set("shift", int64_t{0});
  return a;
}

}  // namespace

// softmax(x) = exp(x - max) / sum(exp(x - max)); log_softmax(x) = (x - max) - log(sum(...)), as
// PyTorch computes them: subtracting the row maximum keeps exp from overflowing.
Status TosaLowering::lower_softmax(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::Softmax sm, ops::softmax(node.attrs, shapes));
  const ValueId in = node.inputs[0];
  const size_t rank = graph_.value(in).shape.rank();
  if (rank == 0) return unsupported(node.op + " of a scalar");
  const Layout layout = preferred_layout(in);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
  const std::vector<int64_t> shape = shape_of(x);
  // kToNchw[d] is where natural dim d sits in NHWC.
  const int64_t axis = layout == Layout::kNhwc ? kToNchw[static_cast<size_t>(sm.dim)] : sm.dim;
  std::vector<int64_t> reduced = shape;
  reduced[static_cast<size_t>(axis)] = 1;

  Attributes max_attrs = axis_attrs(axis);
  max_attrs.set("nan_mode", spirv::kNanPropagate);
  const TosaId row_max = op(TosaOp::kReduceMax, {x}, std::move(max_attrs), reduced);
  const TosaId shifted = op(TosaOp::kSub, {x, row_max}, {}, shape);
  const TosaId e = op(TosaOp::kExp, {shifted}, {}, shape);
  const TosaId sum = op(TosaOp::kReduceSum, {e}, axis_attrs(axis), reduced);
  TosaId y;
  if (node.op == "log_softmax") {
    y = op(TosaOp::kSub, {shifted, op(TosaOp::kLog, {sum}, {}, reduced)}, {}, shape);
  } else {
    y = op(TosaOp::kMul, {e, op(TosaOp::kReciprocal, {sum}, {}, reduced)}, mul_attrs(), shape);
  }
  set(node.outputs[0], layout, y);
  return ok_status();
}

// layer_norm over the trailing normalized_shape dims: the input seen as [rows, inner] (a packed
// RESHAPE), mean and biased variance by REDUCE_SUM, (x - mean) * rsqrt(var + eps), then the
// optional weight and bias, as PyTorch does.
Status TosaLowering::lower_layer_norm(const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph_.value(in).shape);
  UNIVK_ASSIGN_OR_RETURN(ops::LayerNorm ln, ops::layer_norm(node.attrs, shapes));
  if (ln.rows == 0 || ln.inner == 0) return unsupported("layer_norm of an empty tensor");
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNatural));
  const std::vector<int64_t> rows_shape = {ln.rows, ln.inner};
  const std::vector<int64_t> stat_shape = {ln.rows, 1};
  const TosaId x2 = reshape(x, rows_shape);
  const float inv_count = static_cast<float>(1.0 / static_cast<double>(ln.inner));

  const TosaId mean =
      op(TosaOp::kMul, {op(TosaOp::kReduceSum, {x2}, axis_attrs(1), stat_shape), scalar_constant(inv_count, 2)},
         mul_attrs(), stat_shape);
  const TosaId centered = op(TosaOp::kSub, {x2, mean}, {}, rows_shape);
  const TosaId square = op(TosaOp::kMul, {centered, centered}, mul_attrs(), rows_shape);
  const TosaId var =
      op(TosaOp::kMul, {op(TosaOp::kReduceSum, {square}, axis_attrs(1), stat_shape), scalar_constant(inv_count, 2)},
         mul_attrs(), stat_shape);
  const TosaId inv_std =
      op(TosaOp::kRsqrt, {op(TosaOp::kAdd, {var, scalar_constant(static_cast<float>(ln.eps), 2)}, {}, stat_shape)}, {},
         stat_shape);
  TosaId y = op(TosaOp::kMul, {centered, inv_std}, mul_attrs(), rows_shape);
  // weight and bias have normalized_shape: as a [1, inner] row they broadcast over the rows.
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const Value& p = graph_.value(node.inputs[i]);
    TosaId row;
    if (p.kind == ValueKind::kConstant) {
      UNIVK_ASSIGN_OR_RETURN(HostTensor t, p.constant->reshaped(Shape{1, ln.inner}));
      row = constant(t);
    } else {
      UNIVK_ASSIGN_OR_RETURN(TosaId v, get(node.inputs[i], Layout::kNatural));
      row = reshape(v, {1, ln.inner});
    }
    y = i == 1 ? op(TosaOp::kMul, {y, row}, mul_attrs(), rows_shape) : op(TosaOp::kAdd, {y, row}, {}, rows_shape);
  }
  set(node.outputs[0], Layout::kNatural, reshape(y, ln.output.dims()));
  return ok_status();
}

}  // namespace univk::compiler::detail
