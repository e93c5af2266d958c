// Element types of univk tensors. The numeric values are part of the program format (.uvk) and
// the VulkanBackend payload: append only, never renumber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace univk {

enum class DType : uint8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt8 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt64 = 5,
  kBool = 6,
  kInt16 = 7,
};

inline constexpr int kDTypeCount = 8;

size_t dtype_size(DType dtype);
// "float32", "float16", "int8", "uint8", "int32", "int64", "bool", "int16".
std::string_view dtype_name(DType dtype);
std::optional<DType> dtype_from_name(std::string_view name);
// A raw value read from a file, checked.
std::optional<DType> dtype_from_value(uint32_t value);

// IEEE half <-> float conversions (round to nearest even).
uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);

}  // namespace univk
