// PyTorch's shape rules, shared by the CPU reference kernels and the backends' lowerings so that
// a backend computes exactly the shapes the oracle does. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/shape.h"

namespace univk::reference {

// PyTorch dim wrapping: dim in [-rank, rank) (rank 0 behaves as rank 1); InvalidArgument naming
// the attribute otherwise.
Result<int64_t> wrap_dim(int64_t dim, int64_t rank, const std::string& name);

// Strides (in elements) of contiguous `in` broadcast, right-aligned, to `out`: 0 on broadcast
// dims.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out);

// PyTorch's pooling output size for one spatial dim (input `in`, kernel `k`, stride `s`,
// padding `p`, dilation `d`), with the ceil_mode rule that the last window must start inside
// the input or the left padding. InvalidArgument when the result is not positive.
Result<int64_t> pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);

// What `slice` (attributes dim, start, end, step) selects of `in`: PyTorch's rules (negative
// indices count from the end, then both are clamped to [0, size]; step must be positive).
// InvalidArgument for a 0-d input or bad attributes.
struct SliceRange {
  int64_t dim = 0;
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;  // elements selected along dim
  Shape output;        // `in` with dim's size replaced by length
};
Result<SliceRange> resolve_slice(const Attributes& attrs, const Shape& in);

// The result shape of the run_op operator `op` (PyTorch semantics) from its input shapes and
// attributes, without running it: the shape run_op's result has whenever run_op succeeds.
// InvalidArgument (prefixed with the op name) when the shapes or attributes contradict the op;
// Unsupported for an op that has no shape rule (every run_op op has one).
Result<Shape> infer_op_shape(std::string_view op, const Attributes& attrs, std::span<const Shape> inputs);

}  // namespace univk::reference
