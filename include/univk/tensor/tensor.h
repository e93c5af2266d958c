// HostTensor: a dense, contiguous tensor in host memory that owns its bytes. The storage is
// 64-byte aligned so it can be handed to memcpy/SIMD code and mapped GPU buffers alike.
// A tensor always has storage for its bytes: the constructor and the copy throw
// HostAllocationError (host_allocation.h) when memory runs out, and allocate() returns
// OutOfMemory instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "univk/tensor/dtype.h"
#include "univk/tensor/host_allocation.h"
#include "univk/tensor/shape.h"

namespace univk {

class HostTensor {
 public:
  HostTensor() = default;
  // Zero-filled tensor. Throws HostAllocationError when the bytes cannot be allocated (or the
  // size overflows); use allocate() where a Status can be returned.
  HostTensor(DType dtype, Shape shape);
  // Zero-filled tensor; OutOfMemory naming the size when it cannot be allocated,
  // InvalidArgument for a negative dimension.
  static Result<HostTensor> allocate(DType dtype, Shape shape);

  HostTensor(const HostTensor& other);
  HostTensor& operator=(const HostTensor& other);
  HostTensor(HostTensor&&) noexcept = default;
  HostTensor& operator=(HostTensor&&) noexcept = default;

  static HostTensor from_floats(Shape shape, std::span<const float> values);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return shape_.numel(); }
  size_t byte_size() const { return byte_size_; }

  std::span<uint8_t> bytes() { return {data_.get(), byte_size_}; }
  std::span<const uint8_t> bytes() const { return {data_.get(), byte_size_}; }

  // Typed views; the caller names the C++ type matching dtype().
  template <typename T>
  std::span<T> data() {
    return {reinterpret_cast<T*>(data_.get()), byte_size_ / sizeof(T)};
  }
  template <typename T>
  std::span<const T> data() const {
    return {reinterpret_cast<const T*>(data_.get()), byte_size_ / sizeof(T)};
  }
  // Element `i` (row-major, below numel()) of any dtype as a double, for comparisons and
  // reports: float16 widened, bool 0 or 1, int64 exact up to 2^53.
  double element_as_double(size_t i) const;

  // Same bytes, new shape with the same element count (InvalidArgument otherwise).
  Result<HostTensor> reshaped(Shape shape) const;
  std::string describe() const;  // "float32[1,3,8,8]"

 private:
  struct AlignedFree {
    void operator()(uint8_t* p) const;
  };
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  size_t byte_size_ = 0;
  std::unique_ptr<uint8_t, AlignedFree> data_;
};

}  // namespace univk
