// Iteration spaces and slicing: the canonical iteration space of an elementwise dispatch or copy,
// and the split of work whose views exceed the binding limit into slices that fit.
#include "emitter_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

Status binding_limit_error(const std::vector<TensorView>& views, const BindingLimit& limit, const std::string& what) {
  uint64_t largest = 0;
  for (const TensorView& v : views) largest = std::max(largest, view_binding_bytes(v, 0, limit.offset_alignment));
  return unsupported(what + ": a tensor view of " + std::to_string(largest) + " bytes exceeds the binding limit of " +
                     std::to_string(limit.max_bytes) +
                     " bytes (maxStorageBufferRange, or the max_binding_bytes option) and cannot be split into "
                     "slices that fit");
}

Result<std::vector<TensorView>> canonical_iteration(const TensorView& output, const std::vector<TensorView>& inputs) {
  std::vector<std::vector<int64_t>> strides = {output.strides};
  for (const TensorView& in : inputs) {
    UNIVK_ASSIGN_OR_RETURN(auto s, broadcast_strides(in, output.shape));
    strides.push_back(std::move(s));
  }
  std::vector<size_t> dims;
  for (size_t d = 0; d < output.shape.size(); ++d)
    if (output.shape[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) { return output.strides[a] > output.strides[b]; });
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> merged(strides.size());
  for (size_t d : dims) {
    const int64_t n = output.shape[d];
    bool contiguous = !shape.empty() && n != 0 && shape.back() != 0;
    for (size_t v = 0; v < strides.size() && contiguous; ++v) contiguous = merged[v].back() == strides[v][d] * n;
    if (contiguous) {
      shape.back() *= n;
      for (size_t v = 0; v < strides.size(); ++v) merged[v].back() = strides[v][d];
      continue;
    }
    shape.push_back(n);
    for (size_t v = 0; v < strides.size(); ++v) merged[v].push_back(strides[v][d]);
  }
  if (shape.empty()) {  // one element
    shape = {1};
    for (auto& m : merged) m = {1};
  }
  std::vector<TensorView> views;
  for (size_t v = 0; v < strides.size(); ++v) {
    TensorView view = v == 0 ? output : inputs[v - 1];
    view.shape = shape;
    view.strides = merged[v];
    views.push_back(std::move(view));
  }
  return views;
}

TensorView slice_dim(TensorView view, size_t dim, int64_t start, int64_t count) {
  view.offset += start * view.strides[dim];
  view.shape[dim] = count;
  return view;
}

// Slices of [0, n) whose views fit `limit`: the fewest equal slices the first slice allows
// (rounded up to a multiple of 64 rows where that still fits, so slices of a packed dim start
// aligned and keep vector access), shrunk where a later start binds more alignment slack.
// Empty when a single row does not fit or more than kMaxSlices slices would be needed.
std::vector<std::pair<int64_t, int64_t>> plan_slices(int64_t n, const SliceViews& views, const BindingLimit& limit) {
  auto fits = [&](int64_t start, int64_t count) { return views_fit(views(start, count), limit); };
  auto largest = [&](int64_t start) -> int64_t {
    if (!fits(start, 1)) return 0;
    int64_t lo = 1, hi = n - start;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(start, mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  };
  const int64_t first = largest(0);
  if (first == 0) return {};
  const int64_t slices = (n + first - 1) / first;
  if (slices > static_cast<int64_t>(kMaxSlices)) return {};
  int64_t rows = (n + slices - 1) / slices;
  if ((rows + 63) / 64 * 64 <= first) rows = (rows + 63) / 64 * 64;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t start = 0; start < n;) {
    int64_t count = std::min(rows, n - start);
    if (!fits(start, count)) count = largest(start);
    if (count == 0 || out.size() >= kMaxSlices) return {};
    out.emplace_back(start, count);
    start += count;
  }
  return out;
}

// Splits views sharing one iteration shape (output first) until every piece fits `limit`:
// along `dim`, and row by row along the next dim where one row of `dim` is too big.
Status split_iteration(const std::vector<TensorView>& views, size_t dim, const BindingLimit& limit,
                       const std::string& what, std::vector<std::vector<TensorView>>& pieces) {
  if (views_fit(views, limit)) {
    pieces.push_back(views);
    return ok_status();
  }
  const size_t rank = views[0].shape.size();
  if (dim >= rank) return binding_limit_error(views, limit, what);
  auto slice = [&](int64_t start, int64_t count) {
    std::vector<TensorView> out;
    for (const TensorView& v : views) out.push_back(slice_dim(v, dim, start, count));
    return out;
  };
  const int64_t n = views[0].shape[dim];
  const auto slices = plan_slices(n, slice, limit);
  if (!slices.empty()) {
    if (pieces.size() + slices.size() > kMaxSlices) return binding_limit_error(views, limit, what);
    for (auto [start, count] : slices) pieces.push_back(slice(start, count));
    return ok_status();
  }
  if (pieces.size() + static_cast<size_t>(n) > kMaxSlices) return binding_limit_error(views, limit, what);
  for (int64_t row = 0; row < n; ++row)
    UNIVK_RETURN_IF_ERROR(split_iteration(slice(row, 1), dim + 1, limit, what, pieces));
  return ok_status();
}

}  // namespace univk::backends::vgf
