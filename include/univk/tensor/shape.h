// Tensor shapes and strides, in elements. Dimensions are int64 as in PyTorch.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "univk/base/status.h"

namespace univk {

class Shape {
 public:
  Shape() = default;  // a scalar (rank 0, one element)
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // InvalidArgument for negative dims or an element count that overflows int64.
  static Result<Shape> checked(std::vector<int64_t> dims);

  size_t rank() const { return dims_.size(); }
  int64_t dim(size_t i) const { return dims_[i]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t numel() const;
  // Row-major (contiguous) strides in elements.
  std::vector<int64_t> contiguous_strides() const;
  std::string to_string() const;  // "[1,3,8,8]"

  bool operator==(const Shape& other) const { return dims_ == other.dims_; }
  bool operator!=(const Shape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

// NumPy/PyTorch broadcasting of two shapes; InvalidArgument naming both when incompatible.
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace univk
