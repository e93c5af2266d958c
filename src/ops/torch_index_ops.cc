// Attribute parsing, validation and shape rules of the comparison, selection, indexing and
// scan operators (torch_index_ops.h).
#include "univk/ops/torch_index_ops.h"

#include <array>

namespace univk::ops {
namespace {

AlongDim along(const Shape& s, int64_t dim) {
  AlongDim g;
  g.dim = dim;
  for (size_t d = 0; d < s.rank(); ++d) {
    const auto i = static_cast<int64_t>(d);
    if (i < dim) g.outer *= s[d];
    if (i == dim) g.size = s[d];
    if (i > dim) g.inner *= s[d];
  }
  return g;
}

}  // namespace

std::span<const std::string_view> compare_op_names() {
  static constexpr std::array<std::string_view, 6> kNames = {"eq", "ne", "lt", "le", "gt", "ge"};
  return kNames;
}

std::span<const std::string_view> logical_op_names() {
  static constexpr std::array<std::string_view, 4> kNames = {"logical_and", "logical_or", "logical_xor", "logical_not"};
  return kNames;
}

Result<Compare> compare(std::string_view, const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 2));
  Compare c;
  if (inputs.size() == 2) {
    if (attrs.has("other")) return invalid_argument("attribute 'other' given together with two tensor inputs");
    UNIVK_ASSIGN_OR_RETURN(c.output, broadcast_shapes(inputs[0], inputs[1]));
    return c;
  }
  if (!attrs.has("other")) return invalid_argument("one tensor input needs the scalar attribute 'other'");
  c.has_scalar = true;
  UNIVK_ASSIGN_OR_RETURN(c.other, attrs.get_float("other"));
  UNIVK_ASSIGN_OR_RETURN(c.scalar_first, attrs.get_bool_or("scalar_first", false));
  c.output = inputs[0];
  return c;
}

Result<Shape> logical(std::string_view op, const Attributes&, Shapes inputs) {
  if (op == "logical_not") {
    UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
    return inputs[0];
  }
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 2));
  return broadcast_shapes(inputs[0], inputs[1]);
}

std::span<const std::string_view> integer_op_names() {
  static constexpr std::array<std::string_view, 8> kNames = {
      "bitwise_and",        "bitwise_or",          "bitwise_xor",  "bitwise_not",
      "bitwise_left_shift", "bitwise_right_shift", "floor_divide", "trunc_divide"};
  return kNames;
}

Result<Shape> integer_op(std::string_view op, const Attributes&, Shapes inputs) {
  if (op == "bitwise_not") {
    UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
    return inputs[0];
  }
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 2));
  return broadcast_shapes(inputs[0], inputs[1]);
}

Result<Shape> where(const Attributes&, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 3, 3));
  UNIVK_ASSIGN_OR_RETURN(Shape xy, broadcast_shapes(inputs[1], inputs[2]));
  return broadcast_shapes(inputs[0], xy);
}

Result<MaskedFill> masked_fill(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 2));
  MaskedFill m;
  UNIVK_ASSIGN_OR_RETURN(m.value, attrs.get_float("value"));
  UNIVK_ASSIGN_OR_RETURN(Shape both, broadcast_shapes(inputs[0], inputs[1]));
  if (both != inputs[0]) {
    return invalid_argument("mask " + inputs[1].to_string() + " does not broadcast to the input " +
                            inputs[0].to_string());
  }
  m.output = inputs[0];
  return m;
}

Result<IndexSelect> index_select(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 2));
  const Shape& x = inputs[0];
  if (inputs[1].rank() > 1) return invalid_argument("index " + inputs[1].to_string() + " must be 1-d");
  IndexSelect r;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(x.rank()), "dim"));
  r.geometry = along(x, dim);
  r.count = inputs[1].numel();
  if (x.rank() == 0) {
    r.output = x;
    if (r.count != 1) return invalid_argument("a 0-d input takes one index, got " + std::to_string(r.count));
    return r;
  }
  std::vector<int64_t> dims = x.dims();
  dims[static_cast<size_t>(dim)] = r.count;
  r.output = Shape(std::move(dims));
  return r;
}

Result<ArgReduce> arg_reduce(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& x = inputs[0];
  ArgReduce r;
  UNIVK_ASSIGN_OR_RETURN(bool keepdim, attrs.get_bool_or("keepdim", false));
  if (x.numel() == 0) return invalid_argument("input " + x.to_string() + " is empty");
  if (!attrs.has("dim")) {
    r.geometry.size = x.numel();
    r.output = keepdim ? Shape(std::vector<int64_t>(x.rank(), 1)) : Shape{};
    return r;
  }
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(x.rank()), "dim"));
  r.geometry = along(x, dim);
  std::vector<int64_t> dims = x.dims();
  if (!dims.empty()) {
    if (keepdim)
      dims[static_cast<size_t>(dim)] = 1;
    else
      dims.erase(dims.begin() + dim);
  }
  r.output = Shape(std::move(dims));
  return r;
}

Result<Cumsum> cumsum(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  Cumsum c;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(inputs[0].rank()), "dim"));
  c.geometry = along(inputs[0], dim);
  c.output = inputs[0];
  return c;
}

}  // namespace univk::ops
