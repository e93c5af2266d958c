#include "univk/tensor/shape.h"

#include <algorithm>

namespace univk {

Result<Shape> Shape::checked(std::vector<int64_t> dims) {
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return invalid_argument("negative dimension " + std::to_string(dims[i]) + " at index " + std::to_string(i));
    }
    if (dims[i] != 0 && count > INT64_MAX / dims[i]) return invalid_argument("shape element count overflows int64");
    count *= dims[i];
  }
  return Shape(std::move(dims));
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<int64_t> Shape::contiguous_strides() const {
  std::vector<int64_t> strides(dims_.size(), 1);
  for (size_t i = dims_.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(dims_[i], 1);
  return strides;
}

std::string Shape::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    if (da != db && da != 1 && db != 1) {
      return invalid_argument("shapes " + a.to_string() + " and " + b.to_string() + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return Shape(std::move(out));
}

}  // namespace univk
