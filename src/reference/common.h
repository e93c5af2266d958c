// Internal helpers shared by the reference kernel families: input checks, dim normalisation,
// broadcast indexing and the per-family operator tables. Not part of the public API.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "univk/base/status.h"
#include "univk/ops/torch_ops.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/tensor.h"

namespace univk::reference::detail {

// Operator semantics (attributes, validation, shape rules) live in univk_ops.
using ops::broadcast_strides;
using ops::check_permutation;
using ops::infer_reshape;
using ops::kMaxWindowAttr;
using ops::wrap_dim;

using Tensors = std::vector<HostTensor>;
using Inputs = std::span<const HostTensor>;
// `op` is passed so one function can serve several related operators (e.g. all unary ops).
using OpFn = Result<Tensors> (*)(std::string_view op, const Attributes& attrs, Inputs inputs);
using OpTable = std::vector<std::pair<std::string_view, OpFn>>;

// Operator tables of each family (PyTorch semantics).
OpTable elementwise_ops();
OpTable pooling_ops();
OpTable convolution_ops();
OpTable matmul_ops();
OpTable normalization_ops();
OpTable shape_ops();
OpTable upsample_ops();
OpTable volume_ops();    // flip, conv3d
OpTable indexing_ops();  // comparisons, logical, where, masked_fill, index_select, argmax/argmin, cumsum
OpTable integer_ops();   // bitwise operators, shifts, floor/trunc division of integer tensors
// TOSA families.
OpTable tosa_elementwise_ops();
OpTable tosa_tensor_ops();   // pools, convolutions, matmul
OpTable tosa_data_ops();     // reshape, transpose, concat, slice, pad, tile, reductions, argmax
OpTable tosa_resize_ops();   // RESIZE (fp32)
OpTable tosa_quant_ops();    // cast, rescale, table
OpTable tosa_logic_ops();    // equal, greater, greater_equal, logical and/or/xor/not, select, gather
OpTable tosa_bitwise_ops();  // bitwise and/or/xor/not, shifts, intdiv, clz
OpTable tosa_index_ops();    // reverse, scatter
OpTable tosa_fft_ops();      // FFT2D, RFFT2D (two results each)

// InvalidArgument unless min <= inputs.size() <= max.
Status check_input_count(Inputs inputs, size_t min, size_t max);
// InvalidArgument naming the input index when its dtype differs.
Status check_dtype(const HostTensor& t, size_t index, DType expected);
// InvalidArgument naming both dtypes when a binary op's two inputs differ.
Status check_same_dtypes(const HostTensor& a, const HostTensor& b);
// Checks every input is float32 (Unsupported otherwise: other dtypes are valid tensors that
// the op does not implement).
Status check_all_float(Inputs inputs);
// The shapes of `inputs`, for the ops:: resolvers.
std::vector<Shape> shapes_of(Inputs inputs);

// Visits every index of `shape` in row-major order, calling fn(flat_index, offsets) where
// offsets[k] is the element offset into operand k computed from strides[k].
template <typename Fn>
void for_each_broadcast(const Shape& shape, const std::vector<std::vector<int64_t>>& strides, Fn&& fn) {
  const size_t rank = shape.rank();
  const int64_t total = shape.numel();
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> offsets(strides.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    fn(flat, offsets);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < strides.size(); ++k) offsets[k] += strides[k][d];
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < strides.size(); ++k) offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

// Elementwise choice of `shape`: x where cond (bool) is true, else y; cond, x and y broadcast to
// `shape` (already validated), x and y of one dtype (any).
HostTensor select_broadcast(const HostTensor& cond, const HostTensor& x, const HostTensor& y, const Shape& shape);

// Copies `in` permuted: output dim i is input dim perm[i] (perm already validated).
HostTensor permute_tensor(const HostTensor& in, const std::vector<int64_t>& perm);

// Concatenation of same-dtype, same-rank tensors along `axis` (already wrapped).
Result<HostTensor> concat_tensors(Inputs inputs, int64_t axis);

// Allocates an output tensor after checking its dims: non-negative, no int64 overflow, and at
// most kMaxOutputBytes (attributes such as padding or multiples come from untrusted programs).
inline constexpr uint64_t kMaxOutputBytes = uint64_t{1} << 32;
Result<HostTensor> make_output(DType dtype, std::vector<int64_t> dims);
inline Result<Tensors> single(HostTensor t) {
  Tensors out;
  out.push_back(std::move(t));
  return out;
}

}  // namespace univk::reference::detail
