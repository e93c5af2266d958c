#include "univk/reference/shape_rules.h"

#include <algorithm>

namespace univk::reference {

Result<int64_t> wrap_dim(int64_t dim, int64_t rank, const std::string& name) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    return invalid_argument("attribute '" + name + "'=" + std::to_string(dim) + " is out of range for rank " +
                            std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.rank(), 0);
  const std::vector<int64_t> in_strides = in.contiguous_strides();
  const size_t lead = out.rank() - in.rank();
  for (size_t d = 0; d < in.rank(); ++d) {
    strides[lead + d] = in[d] == 1 ? 0 : in_strides[d];
  }
  return strides;
}

Result<int64_t> pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  if (out <= 0) return invalid_argument("output size " + std::to_string(out) + " is not positive");
  return out;
}

}  // namespace univk::reference
