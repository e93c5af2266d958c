// Parameter words of the VgfBackend shaders (the binding-0 buffer each dispatch reads): 32-bit
// checked values, dims and strides left-padded to kMaxRank, broadcast strides.
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

// Shaders index with 32-bit unsigned words.
Status check_u32(int64_t value, const char* what) {
  if (value < 0 || value > static_cast<int64_t>(UINT32_MAX))
    return unsupported(std::string(what) + " " + std::to_string(value) + " does not fit the shaders' 32-bit indexing");
  return ok_status();
}

Status append_u32(std::vector<uint32_t>& params, int64_t value, const char* what) {
  UNIVK_RETURN_IF_ERROR(check_u32(value, what));
  params.push_back(static_cast<uint32_t>(value));
  return ok_status();
}

// dims/strides left-padded to kMaxRank.
Status append_padded(std::vector<uint32_t>& params, const std::vector<int64_t>& values, int64_t fill,
                     const char* what) {
  if (values.size() > kMaxRank)
    return unsupported("rank " + std::to_string(values.size()) + " exceeds " + std::to_string(kMaxRank));
  for (size_t i = values.size(); i < kMaxRank; ++i) params.push_back(static_cast<uint32_t>(fill));
  for (int64_t v : values) UNIVK_RETURN_IF_ERROR(append_u32(params, v, what));
  return ok_status();
}

// Strides of `input` read at the coordinates of `out_shape` (equal rank, 1-dims broadcast).
Result<std::vector<int64_t>> broadcast_strides(const TensorView& input, const std::vector<int64_t>& out_shape) {
  if (input.shape.size() > out_shape.size()) return invalid_argument("operand rank exceeds the output rank");
  const size_t lead = out_shape.size() - input.shape.size();
  std::vector<int64_t> strides(out_shape.size(), 0);
  for (size_t d = 0; d < input.shape.size(); ++d) {
    const int64_t n = input.shape[d], o = out_shape[lead + d];
    if (n == o)
      strides[lead + d] = input.strides[d];
    else if (n != 1)
      return invalid_argument("operand shape " + Shape(input.shape).to_string() + " does not broadcast to " +
                              Shape(out_shape).to_string());
  }
  return strides;
}

}  // namespace univk::backends::vgf
