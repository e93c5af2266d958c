#include "univk/tensor/tensor.h"

#include <cstdlib>

namespace univk {
namespace {
constexpr size_t kAlignment = 64;

uint8_t* allocate_zeroed(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, rounded));
  if (p != nullptr) std::memset(p, 0, rounded);
  return p;
}
}  // namespace

void HostTensor::AlignedFree::operator()(uint8_t* p) const { std::free(p); }

HostTensor::HostTensor(DType dtype, Shape shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      byte_size_(static_cast<size_t>(shape_.numel()) * dtype_size(dtype)),
      data_(allocate_zeroed(byte_size_)) {}

HostTensor::HostTensor(const HostTensor& other) { *this = other; }

HostTensor& HostTensor::operator=(const HostTensor& other) {
  if (this == &other) return *this;
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  byte_size_ = other.byte_size_;
  data_.reset(allocate_zeroed(byte_size_));
  if (byte_size_ > 0) std::memcpy(data_.get(), other.data_.get(), byte_size_);
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

std::string HostTensor::describe() const { return std::string(dtype_name(dtype_)) + shape_.to_string(); }

}  // namespace univk
