// Helpers shared by the per-family lowering files (lowering_*.cc). Internal.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "op_lowering.h"
#include "univk/ops/torch_ops.h"

namespace univk::backends::vulkan {

using Inputs = std::span<const ComputeTensorType>;
using LowerFn = Result<LoweredOp> (*)(std::string_view op, const Attributes& attrs, Inputs inputs);
using LowerTable = std::vector<std::pair<std::string_view, LowerFn>>;

LowerTable elementwise_lowerings();
LowerTable shape_lowerings();
LowerTable pool_conv_lowerings();
LowerTable matmul_lowerings();
LowerTable normalization_lowerings();
LowerTable index_lowerings();  // lowering_index.cc

inline uint32_t float_bits(float v) { return std::bit_cast<uint32_t>(v); }
inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// Unsupported unless every input is float32.
Status check_float(Inputs inputs);
// Unsupported unless every input's dtype is 4 bytes wide (copies move 32-bit words).
Status check_word_dtype(Inputs inputs);
// Unsupported for empty tensors and for more than 2^32-1 elements (shaders index with uint).
Status check_extent(const Shape& shape, const std::string& what);

// Attributes, validation and shape rules come from univk_ops, as for the reference kernels:
// a lowering adds only what its shaders cannot do.
using ops::broadcast_strides;
// The shapes of `inputs`, for the ops:: resolvers.
std::vector<Shape> shapes_of(Inputs inputs);

// Dims plus one stride list per operand, with size-1 dims dropped and adjacent dims merged
// where every operand is contiguous across them. Never empty: a scalar becomes one dim of 1.
struct StridedLayout {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;
};
StridedLayout coalesce(const std::vector<int64_t>& dims, const std::vector<std::vector<int64_t>>& strides);

// Workgroup counts for `groups` workgroups laid out 2-d (x up to kMaxGroupCount, then y).
Result<std::array<uint32_t, 3>> grid_for_groups(uint64_t groups);
// Workgroup counts for `threads` invocations of kWorkgroupSize-thread groups.
Result<std::array<uint32_t, 3>> grid_for_threads(uint64_t threads);

// Appends a strided copy of `dims` elements (input 0 -> output) with the given strides/offsets.
Status append_strided_copy(LoweredOp& lowered, const std::vector<int64_t>& dims, const std::vector<int64_t>& in_strides,
                           const std::vector<int64_t>& out_strides, int64_t in_offset, int64_t out_offset,
                           uint32_t input_index);

inline Result<LoweredOp> with_output(DType dtype, Shape shape) {
  LoweredOp op;
  op.output = {dtype, std::move(shape)};
  UNIVK_RETURN_IF_ERROR(check_extent(op.output.shape, "output"));
  return op;
}

}  // namespace univk::backends::vulkan
