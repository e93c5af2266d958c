// Lowerings of index_select (TOSA GATHER), argmax/argmin (ARGMAX) and cumsum (a MATMUL with a
// constant triangular matrix: TOSA has no scan), all over the input seen as [outer, size, inner].
#include <algorithm>
#include <limits>

#include "tosa_lowering.h"
#include "univk/ops/torch_index_ops.h"

namespace univk::compiler::detail {
namespace {

using spirv::TosaOp;

}  // namespace

bool TosaLowering::is_index_op(std::string_view op) { return op == "index_select" || op == "argmax" || op == "argmin"; }

// ARGMAX (int32; argmin as ARGMAX of the NEGATEd input) returns the first index of the extreme,
// and with nan_mode PROPAGATE the first NaN's: PyTorch's rule for both (NEGATE keeps NaN and
// turns the first minimum into the first maximum). The int64 result is held as int32 inside
// the graph and widened where it leaves it (add_output).
Status TosaLowering::lower_arg_reduce(const Node& node) {
  const Value& x = graph_.value(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(ops::ArgReduce r, ops::arg_reduce(node.attrs, std::vector<Shape>{x.shape}));
  if (x.dtype != DType::kFloat32) return unsupported("input '" + x.name + "' is " + std::string(dtype_name(x.dtype)));
  if (graph_.value(node.outputs[0]).dtype != DType::kInt64) return unsupported("a result that is not int64");
  const auto& g = r.geometry;
  if (g.size > std::numeric_limits<int32_t>::max()) return unsupported("an int32 index cannot hold the dim's size");
  UNIVK_ASSIGN_OR_RETURN(TosaId in, get(node.inputs[0], Layout::kNatural));
  TosaId lines = reshape(in, {g.outer, g.size, g.inner});
  if (node.op == "argmin") {
    Attributes a;
    a.set("input1_zp", int64_t{0});
    a.set("output_zp", int64_t{0});
    lines = op(TosaOp::kNegate, {lines}, std::move(a), shape_of(lines));
  }
  Attributes a;
  a.set("axis", int64_t{1});
  a.set("nan_mode", spirv::kNanPropagate);
  const TosaId index = op(TosaOp::kArgmax, {lines}, std::move(a), {g.outer, g.inner}, DType::kInt32);
  set(node.outputs[0], Layout::kNatural, reshape(index, r.output.dims()));
  return ok_status();
}

Status TosaLowering::lower_index_select(const Node& node) {
  const Value& x = graph_.value(node.inputs[0]);
  const Value& index = graph_.value(node.inputs[1]);
  UNIVK_ASSIGN_OR_RETURN(ops::IndexSelect r, ops::index_select(node.attrs, std::vector<Shape>{x.shape, index.shape}));
  if (x.dtype != DType::kFloat32) return unsupported("input '" + x.name + "' is " + std::string(dtype_name(x.dtype)));
  if (x.shape.rank() == 0) return unsupported("index_select of a 0-d tensor");
  const auto& g = r.geometry;
  TosaId indices;
  if (index.kind == ValueKind::kConstant) {
    // A constant index becomes the int32 [outer, count] table GATHER takes, checked here.
    HostTensor table(DType::kInt32, Shape{g.outer, r.count});
    for (int64_t j = 0; j < r.count; ++j) {
      const int64_t i = index.dtype == DType::kInt64 ? index.constant->data<int64_t>()[static_cast<size_t>(j)]
                                                     : index.constant->data<int32_t>()[static_cast<size_t>(j)];
      if (i < 0 || i >= g.size) {
        return invalid_argument("index " + std::to_string(i) + " is out of range for dim " + std::to_string(g.dim) +
                                " of size " + std::to_string(g.size));
      }
      for (int64_t o = 0; o < g.outer; ++o) table.data<int32_t>()[static_cast<size_t>(o * r.count + j)] = int32_t(i);
    }
    indices = constant(table);
  } else if (index.dtype == DType::kInt32) {
    UNIVK_ASSIGN_OR_RETURN(TosaId flat, get(node.inputs[1], Layout::kNatural));
    indices = reshape(flat, {1, r.count});
    if (g.outer > 1) {
      Attributes tile;
      tile.set("multiples", std::vector<int64_t>{g.outer, 1});
      indices = op(TosaOp::kTile, {indices}, std::move(tile), {g.outer, r.count}, DType::kInt32);
    }
  } else {
    return unsupported("index '" + index.name + "' is " + std::string(dtype_name(index.dtype)) +
                       " and not a constant (TOSA GATHER takes int32 indices)");
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId in, get(node.inputs[0], Layout::kNatural));
  const TosaId values = reshape(in, {g.outer, g.size, g.inner});
  const TosaId y = op(TosaOp::kGather, {values, indices}, {}, {g.outer, r.count, g.inner});
  set(node.outputs[0], Layout::kNatural, reshape(y, r.output.dims()));
  return ok_status();
}

Status TosaLowering::lower_cumsum(const Node& node) {
  const Value& x = graph_.value(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(ops::Cumsum c, ops::cumsum(node.attrs, std::vector<Shape>{x.shape}));
  const auto& g = c.geometry;
  if (x.shape.rank() == 0) return unsupported("cumsum of a 0-d tensor");
  if (g.size > kMaxCumsumLength) {
    return unsupported("cumsum over " + std::to_string(g.size) + " elements (the triangular MATMUL takes at most " +
                       std::to_string(kMaxCumsumLength) + ")");
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId in, get(node.inputs[0], Layout::kNatural));
  // Rows [outer * inner, size] times the upper-triangular ones U (U[k][j] = k <= j).
  TosaId rows = reshape(in, {g.outer, g.size, g.inner});
  if (g.inner > 1) rows = transpose(rows, {0, 2, 1});
  rows = reshape(rows, {1, g.outer * g.inner, g.size});
  HostTensor upper(DType::kFloat32, Shape{1, g.size, g.size});
  float* u = upper.data<float>().data();
  for (int64_t k = 0; k < g.size; ++k)
    for (int64_t j = 0; j < g.size; ++j) u[k * g.size + j] = k <= j ? 1.0f : 0.0f;
  Attributes zero_points;
  zero_points.set("a_zp", int64_t{0});
  zero_points.set("b_zp", int64_t{0});
  TosaId y = op(TosaOp::kMatmul, {rows, constant(upper)}, std::move(zero_points), {1, g.outer * g.inner, g.size});
  if (g.inner > 1) y = transpose(reshape(y, {g.outer, g.inner, g.size}), {0, 2, 1});
  set(node.outputs[0], Layout::kNatural, reshape(y, c.output.dims()));
  return ok_status();
}

}  // namespace univk::compiler::detail
