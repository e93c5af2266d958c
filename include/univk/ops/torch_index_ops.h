// The meaning of univk's comparison, selection, indexing and scan operators (PyTorch
// semantics; docs/OPERATORS.md, "Comparison, selection and indexing"): attributes parsed with
// PyTorch's defaults, validated against the input shapes, and the output shape with the
// geometry a kernel needs. Conventions as torch_ops.h (errors name the attribute or input, not
// the op; pure functions, thread-safe). Dtypes are the kernels' business.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "univk/ops/torch_ops.h"

namespace univk::ops {

// eq ne lt le gt ge: two broadcast tensors, or one tensor and the scalar attribute `other`
// (right operand unless scalar_first=1). The result is bool.
std::span<const std::string_view> compare_op_names();
struct Compare {
  bool has_scalar = false;
  double other = 0.0;
  bool scalar_first = false;
  Shape output;
};
Result<Compare> compare(std::string_view op, const Attributes& attrs, Shapes inputs);

// logical_and, logical_or (two broadcast tensors) and logical_not (one): bool results, an
// operand is true where it is non-zero.
std::span<const std::string_view> logical_op_names();
Result<Shape> logical(std::string_view op, const Attributes& attrs, Shapes inputs);

// Integer operators on tensors of one integer dtype (int8, int16, int32, int64), broadcast, the
// result of that dtype: bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift,
// bitwise_right_shift (arithmetic), floor_divide, trunc_divide (torch.div with rounding_mode
// "floor" / "trunc") take two tensors, bitwise_not one.
std::span<const std::string_view> integer_op_names();
Result<Shape> integer_op(std::string_view op, const Attributes& attrs, Shapes inputs);

// where(condition, x, y): the three broadcast to one shape; x where condition, else y.
Result<Shape> where(const Attributes& attrs, Shapes inputs);

// masked_fill(x, mask): `value` (required, a float) where mask is true; mask broadcasts to x,
// the result has x's shape.
struct MaskedFill {
  double value = 0.0;
  Shape output;
};
Result<MaskedFill> masked_fill(const Attributes& attrs, Shapes inputs);

// A tensor seen as [outer, size, inner] around one dim.
struct AlongDim {
  int64_t dim = 0;
  int64_t outer = 1, size = 1, inner = 1;
};

// index_select(x, index): `dim` (0); index 1-d (or 0-d: one index). The result is x with dim's
// size replaced by the index count. Index values must lie in [0, size) (a kernel's check).
struct IndexSelect {
  AlongDim geometry;
  int64_t count = 1;  // indices
  Shape output;
};
Result<IndexSelect> index_select(const Attributes& attrs, Shapes inputs);

// argmax, argmin: `dim` (absent: over the flattened input), keepdim (0). The first index of
// the extreme value; NaN counts as the extreme (as PyTorch). The result is int64.
struct ArgReduce {
  AlongDim geometry;  // over the flattened input when dim is absent
  Shape output;
};
Result<ArgReduce> arg_reduce(const Attributes& attrs, Shapes inputs);

// cumsum: `dim` (required). The result has the input's shape.
struct Cumsum {
  AlongDim geometry;
  Shape output;
};
Result<Cumsum> cumsum(const Attributes& attrs, Shapes inputs);

}  // namespace univk::ops
