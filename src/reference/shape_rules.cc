#include "univk/reference/shape_rules.h"

#include <algorithm>
#include <limits>

namespace univk::reference {

Result<SliceRange> resolve_slice(const Attributes& attrs, const Shape& in) {
  const int64_t rank = static_cast<int64_t>(in.rank());
  if (rank == 0) return invalid_argument("cannot slice a 0-d tensor");
  SliceRange r;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  UNIVK_ASSIGN_OR_RETURN(r.dim, wrap_dim(dim_attr, rank, "dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t start, attrs.get_int_or("start", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t end, attrs.get_int_or("end", std::numeric_limits<int64_t>::max()));
  UNIVK_ASSIGN_OR_RETURN(r.step, attrs.get_int_or("step", 1));
  if (r.step <= 0) return invalid_argument("attribute 'step'=" + std::to_string(r.step) + " must be positive");
  const int64_t size = in[static_cast<size_t>(r.dim)];
  if (start < 0) start += size;
  if (end < 0) end += size;
  r.start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, r.start, size);
  r.length = (end - r.start + r.step - 1) / r.step;
  std::vector<int64_t> dims = in.dims();
  dims[static_cast<size_t>(r.dim)] = r.length;
  r.output = Shape(dims);
  return r;
}

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
