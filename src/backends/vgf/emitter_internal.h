// Helpers the per-family emitters share (dispatch_emitters.h is the public side): parameter words
// (param_words.cc), slicing of work that exceeds the binding limit (slicing.cc), and the
// data-movement emitter that emit_dispatches hands copies to (copy_emitters.cc). Pure data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dispatch_emitters.h"
#include "shader_variants.h"

namespace univk::backends::vgf {

// Parameter words. Shaders index with 32-bit unsigned words: Unsupported names `what` when a
// value does not fit.
Status check_u32(int64_t value, const char* what);
Status append_u32(std::vector<uint32_t>& params, int64_t value, const char* what);
// dims/strides left-padded with `fill` to kMaxRank.
Status append_padded(std::vector<uint32_t>& params, const std::vector<int64_t>& values, int64_t fill, const char* what);
// Strides of `input` read at the coordinates of `out_shape` (equal rank, 1-dims broadcast).
Result<std::vector<int64_t>> broadcast_strides(const TensorView& input, const std::vector<int64_t>& out_shape);

// Slicing. More dispatches than this for one operator means the binding limit is absurdly small.
inline constexpr size_t kMaxSlices = 4096;
// Rows [start, start + count) of dim `dim` of `view`.
TensorView slice_dim(TensorView view, size_t dim, int64_t start, int64_t count);
// The views of rows [start, start + count) of one iteration dim.
using SliceViews = std::function<std::vector<TensorView>(int64_t start, int64_t count)>;
// Slices of [0, n) whose views fit `limit`: the fewest equal slices the first slice allows
// (rounded up to a multiple of 64 rows where that still fits, so slices of a packed dim start
// aligned and keep vector access), shrunk where a later start binds more alignment slack.
// Empty when a single row does not fit or more than kMaxSlices slices would be needed.
std::vector<std::pair<int64_t, int64_t>> plan_slices(int64_t n, const SliceViews& views, const BindingLimit& limit);
// Splits views sharing one iteration shape (output first) until every piece fits `limit`:
// along `dim`, and row by row along the next dim where one row of `dim` is too big.
Status split_iteration(const std::vector<TensorView>& views, size_t dim, const BindingLimit& limit,
                       const std::string& what, std::vector<std::vector<TensorView>>& pieces);

// TRANSPOSE, SLICE, RESHAPE, PAD, TILE, CONCAT and REVERSE on the copy shaders.
Result<std::vector<Dispatch>> emit_data_movement(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                                                 const TensorView& output, const BindingLimit& limit);

}  // namespace univk::backends::vgf
