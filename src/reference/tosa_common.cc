#include "tosa_common.h"

#include <algorithm>
#include <limits>

namespace univk::reference::detail {

bool is_tosa_int(DType t) {
  return t == DType::kInt8 || t == DType::kUint8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

int64_t int_min(DType t) {
  switch (t) {
    case DType::kInt8:
      return -128;
    case DType::kInt16:
      return -32768;
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::min();
    default:
      return 0;  // uint8, bool
  }
}

int64_t int_max(DType t) {
  switch (t) {
    case DType::kInt8:
      return 127;
    case DType::kUint8:
      return 255;
    case DType::kInt16:
      return 32767;
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::max();
    default:
      return 1;  // bool
  }
}

int64_t read_int(const HostTensor& t, int64_t i) {
  const size_t k = static_cast<size_t>(i);
  switch (t.dtype()) {
    case DType::kInt8:
      return t.data<int8_t>()[k];
    case DType::kUint8:
      return t.data<uint8_t>()[k];
    case DType::kBool:
      return t.data<uint8_t>()[k] != 0;
    case DType::kInt16:
      return t.data<int16_t>()[k];
    case DType::kInt32:
      return t.data<int32_t>()[k];
    case DType::kInt64:
      return t.data<int64_t>()[k];
    default:
      return 0;
  }
}

void write_int(HostTensor& t, int64_t i, int64_t v) {
  const size_t k = static_cast<size_t>(i);
  switch (t.dtype()) {
    case DType::kInt8:
      t.data<int8_t>()[k] = static_cast<int8_t>(v);
      break;
    case DType::kUint8:
      t.data<uint8_t>()[k] = static_cast<uint8_t>(v);
      break;
    case DType::kBool:
      t.data<uint8_t>()[k] = v != 0;
      break;
    case DType::kInt16:
      t.data<int16_t>()[k] = static_cast<int16_t>(v);
      break;
    case DType::kInt32:
      t.data<int32_t>()[k] = static_cast<int32_t>(v);
      break;
    case DType::kInt64:
      t.data<int64_t>()[k] = v;
      break;
    default:
      break;
  }
}

Result<Shape> tosa_broadcast(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) {
    return invalid_argument("inputs " + a.to_string() + " and " + b.to_string() + " must have equal rank");
  }
  std::vector<int64_t> dims(a.rank());
  for (size_t d = 0; d < a.rank(); ++d) {
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1) {
      return invalid_argument("inputs " + a.to_string() + " and " + b.to_string() + " do not broadcast in dim " +
                              std::to_string(d));
    }
    dims[d] = a[d] == 1 ? b[d] : a[d];
  }
  return Shape(dims);
}

Result<int64_t> zero_point(const Attributes& attrs, const std::string& name, DType t) {
  UNIVK_ASSIGN_OR_RETURN(int64_t zp, attrs.get_int_or(name, 0));
  if (zp != 0 && t != DType::kInt8 && t != DType::kUint8 && t != DType::kInt16) {
    return invalid_argument("attribute '" + name + "'=" + std::to_string(zp) + " must be 0 for " +
                            std::string(dtype_name(t)));
  }
  // A zero point is stored in the element type; accept its signed or unsigned spelling.
  if (zp < int_min(t) || zp > std::max(int_max(t), int_max(t) * 2 + 1)) {
    return invalid_argument("attribute '" + name + "'=" + std::to_string(zp) + " does not fit " +
                            std::string(dtype_name(t)));
  }
  return zp;
}

Result<int64_t> apply_scale_32(int64_t value, int64_t multiplier, int64_t shift, bool double_round) {
  if (multiplier < 0 || multiplier > std::numeric_limits<int32_t>::max()) {
    return invalid_argument("multiplier " + std::to_string(multiplier) + " must be in [0, 2^31)");
  }
  if (shift < 2 || shift > 62) return invalid_argument("shift " + std::to_string(shift) + " must be in [2, 62]");
  __int128 round = static_cast<__int128>(1) << (shift - 1);
  if (double_round && shift > 31) round += value >= 0 ? (1 << 30) : -(1 << 30);
  const __int128 result = (static_cast<__int128>(value) * multiplier + round) >> shift;
  return static_cast<int64_t>(
      std::clamp<__int128>(result, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

Result<int64_t> apply_scale_16(int64_t value, int64_t multiplier, int64_t shift) {
  if (multiplier < 0 || multiplier > std::numeric_limits<int16_t>::max()) {
    return invalid_argument("multiplier " + std::to_string(multiplier) + " must be in [0, 2^15)");
  }
  if (shift < 2 || shift > 62) return invalid_argument("shift " + std::to_string(shift) + " must be in [2, 62]");
  const __int128 round = static_cast<__int128>(1) << (shift - 1);
  const __int128 result = (static_cast<__int128>(value) * multiplier + round) >> shift;
  return static_cast<int64_t>(
      std::clamp<__int128>(result, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

Result<DType> output_type(const Attributes& attrs) {
  UNIVK_ASSIGN_OR_RETURN(std::string name, attrs.get_string("output_type"));
  auto t = dtype_from_name(name);
  if (!t) return invalid_argument("attribute 'output_type'='" + name + "' is not a dtype name");
  return *t;
}

Result<bool> nan_ignore(const Attributes& attrs) {
  UNIVK_ASSIGN_OR_RETURN(int64_t mode, attrs.get_int_or("nan_mode", 1));
  if (mode != 1 && mode != 2) {
    return invalid_argument("attribute 'nan_mode'=" + std::to_string(mode) + " must be 1 (PROPAGATE) or 2 (IGNORE)");
  }
  return mode == 2;
}

}  // namespace univk::reference::detail
