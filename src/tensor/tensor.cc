#include "univk/tensor/tensor.h"

#include <cstdlib>
#include <optional>

namespace univk {
namespace {

std::string describe_type(DType dtype, const Shape& shape) {
  return std::string(dtype_name(dtype)) + shape.to_string();
}

// numel * element size, or nothing on a negative dimension or overflow.
std::optional<size_t> checked_byte_size(DType dtype, const Shape& shape) {
  size_t bytes = dtype_size(dtype);
  for (int64_t d : shape.dims()) {
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) return std::nullopt;
  }
  return bytes;
}

size_t byte_size_or_throw(DType dtype, const Shape& shape) {
  std::optional<size_t> bytes = checked_byte_size(dtype, shape);
  if (!bytes)
    throw HostAllocationError("cannot allocate host memory for " + describe_type(dtype, shape) +
                              ": its size is negative or overflows");
  return *bytes;
}

}  // namespace

void HostTensor::AlignedFree::operator()(uint8_t* p) const { std::free(p); }

HostTensor::HostTensor(DType dtype, Shape shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      byte_size_(byte_size_or_throw(dtype, shape_)),
      data_(allocate_host_tensor_bytes(byte_size_, dtype, shape_)) {}

Result<HostTensor> HostTensor::allocate(DType dtype, Shape shape) {
  for (int64_t d : shape.dims()) {
    if (d < 0) return invalid_argument("tensor " + describe_type(dtype, shape) + " has a negative dimension");
  }
  return catch_out_of_memory([&]() -> Result<HostTensor> { return HostTensor(dtype, std::move(shape)); });
}

HostTensor::HostTensor(const HostTensor& other) { *this = other; }

HostTensor& HostTensor::operator=(const HostTensor& other) {
  if (this == &other) return *this;
  // Allocate and copy everything that can throw before changing anything, so a failure leaves
  // this tensor as it was.
  std::unique_ptr<uint8_t, AlignedFree> data(allocate_host_tensor_bytes(other.byte_size_, other.dtype_, other.shape_));
  if (other.byte_size_ > 0) std::memcpy(data.get(), other.data_.get(), other.byte_size_);
  Shape shape = other.shape_;
  dtype_ = other.dtype_;
  shape_ = std::move(shape);
  byte_size_ = other.byte_size_;
  data_ = std::move(data);
  return *this;
}

HostTensor HostTensor::from_floats(Shape shape, std::span<const float> values) {
  HostTensor t(DType::kFloat32, std::move(shape));
  size_t n = std::min(values.size(), static_cast<size_t>(t.numel()));
  if (n > 0) std::memcpy(t.data_.get(), values.data(), n * sizeof(float));
  return t;
}

Result<HostTensor> HostTensor::reshaped(Shape shape) const {
  if (shape.numel() != numel()) {
    return invalid_argument("cannot reshape " + describe() + " to " + shape.to_string());
  }
  HostTensor out(*this);
  out.shape_ = std::move(shape);
  return out;
}

double HostTensor::element_as_double(size_t i) const {
  switch (dtype_) {
    case DType::kFloat32:
      return data<float>()[i];
    case DType::kFloat16:
      return half_to_float(data<uint16_t>()[i]);
    case DType::kInt8:
      return data<int8_t>()[i];
    case DType::kUint8:
      return data<uint8_t>()[i];
    case DType::kInt16:
      return data<int16_t>()[i];
    case DType::kInt32:
      return data<int32_t>()[i];
    case DType::kInt64:
      return static_cast<double>(data<int64_t>()[i]);
    case DType::kBool:
      return data<uint8_t>()[i] != 0 ? 1.0 : 0.0;
  }
  return 0.0;
}

std::string HostTensor::describe() const { return std::string(dtype_name(dtype_)) + shape_.to_string(); }

}  // namespace univk
