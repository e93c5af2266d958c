// TOSA 1.0 CAST, RESCALE and TABLE. The result dtype of CAST and RESCALE is not implied by the
// operands (in SPIR-V it is the result type), so both take the attribute `output_type`
// (dtype name: "float32", "int8", "int16", "int32", "bool", ...).
#include <algorithm>
#include <cmath>
#include <limits>

#include "tosa_common.h"

namespace univk::reference::detail {
namespace {

bool castable(DType t) { return t == DType::kFloat32 || t == DType::kBool || is_tosa_int(t); }

Result<Tensors> cast(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(DType to, output_type(attrs));
  if (!castable(x.dtype()) || !castable(to)) {
    return unsupported("cast from " + std::string(dtype_name(x.dtype())) + " to " + std::string(dtype_name(to)));
  }
  HostTensor out(to, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (x.dtype() == DType::kFloat32) {
      const float v = x.data<float>()[static_cast<size_t>(i)];
      if (to == DType::kFloat32) {
        out.data<float>()[static_cast<size_t>(i)] = v;
      } else if (to == DType::kBool) {
        write_int(out, i, v != 0.0f);
      } else {
        // Round to nearest, ties to even, then saturate; NaN (undefined in the spec) gives 0.
        const double r = std::isnan(v) ? 0.0 : std::nearbyint(static_cast<double>(v));
        const double lo = static_cast<double>(int_min(to)), hi = static_cast<double>(int_max(to));
        write_int(out, i, r <= lo ? int_min(to) : (r >= hi ? int_max(to) : static_cast<int64_t>(r)));
      }
    } else {
      const int64_t v = read_int(x, i);
      if (to == DType::kFloat32)
        out.data<float>()[static_cast<size_t>(i)] = static_cast<float>(v);
      else if (to == DType::kBool)
        write_int(out, i, v != 0);
      else
        write_int(out, i, v);  // int -> int: sign-extend when widening, keep low bits when narrowing
    }
  }
  return single(std::move(out));
}

Result<Tensors> rescale(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  if (!is_tosa_int(x.dtype())) return unsupported("input dtype " + std::string(dtype_name(x.dtype())));
  UNIVK_ASSIGN_OR_RETURN(DType to, output_type(attrs));
  if (to != DType::kInt8 && to != DType::kUint8 && to != DType::kInt16 && to != DType::kInt32) {
    return unsupported("output_type " + std::string(dtype_name(to)) + " (int8, uint8, int16, int32 only)");
  }
  UNIVK_ASSIGN_OR_RETURN(bool scale32, attrs.get_bool_or("scale32", true));
  UNIVK_ASSIGN_OR_RETURN(int64_t rounding, attrs.get_int_or("rounding_mode", 1));
  UNIVK_ASSIGN_OR_RETURN(bool per_channel, attrs.get_bool_or("per_channel", false));
  UNIVK_ASSIGN_OR_RETURN(bool in_unsigned, attrs.get_bool_or("input_unsigned", x.dtype() == DType::kUint8));
  UNIVK_ASSIGN_OR_RETURN(bool out_unsigned, attrs.get_bool_or("output_unsigned", to == DType::kUint8));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> multiplier, attrs.get_ints("multiplier"));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> shift, attrs.get_ints("shift"));
  UNIVK_ASSIGN_OR_RETURN(int64_t in_zp, attrs.get_int_or("input_zp", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t out_zp, attrs.get_int_or("output_zp", 0));
  if (rounding < 1 || rounding > 3) {
    return invalid_argument("attribute 'rounding_mode'=" + std::to_string(rounding) +
                            " must be 1 (SINGLE_ROUND), 2 (INEXACT_ROUND) or 3 (DOUBLE_ROUND)");
  }
  if (rounding == 3 && !scale32) return invalid_argument("DOUBLE_ROUND requires scale32");
  if ((in_unsigned && (x.dtype() == DType::kInt32 || x.dtype() == DType::kInt64)) ||
      (out_unsigned && to == DType::kInt32)) {
    return invalid_argument("unsigned int32/int48 is not allowed");
  }
  const int64_t channels = per_channel ? (x.shape().rank() == 0 ? 1 : x.shape()[x.shape().rank() - 1]) : 1;
  if (static_cast<int64_t>(multiplier.size()) != channels || static_cast<int64_t>(shift.size()) != channels) {
    return invalid_argument("attributes 'multiplier' and 'shift' need " + std::to_string(channels) + " values each");
  }
  // Zero points: only 8-bit (or unsigned 16-bit) types may have a non-zero one.
  const bool in_zp_ok = in_zp == 0 || x.dtype() == DType::kInt8 || x.dtype() == DType::kUint8 ||
                        (x.dtype() == DType::kInt16 && in_unsigned);
  const bool out_zp_ok =
      out_zp == 0 || to == DType::kInt8 || to == DType::kUint8 || (to == DType::kInt16 && out_unsigned);
  if (!in_zp_ok) return invalid_argument("attribute 'input_zp' must be 0 for this input type");
  if (!out_zp_ok) return invalid_argument("attribute 'output_zp' must be 0 for this output type");
  const int bits_in = static_cast<int>(dtype_size(x.dtype()) * 8);
  const int bits_out = static_cast<int>(dtype_size(to) * 8);
  const int64_t lo = out_unsigned ? 0 : -(int64_t{1} << (bits_out - 1));
  const int64_t hi = out_unsigned ? (int64_t{1} << bits_out) - 1 : (int64_t{1} << (bits_out - 1)) - 1;
  HostTensor out(to, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t v = read_int(x, i);
    if (in_unsigned && bits_in < 64) v &= (int64_t{1} << bits_in) - 1;  // zero-extend
    const size_t ch = static_cast<size_t>(per_channel ? i % channels : 0);
    Result<int64_t> scaled = scale32 ? apply_scale_32(v - in_zp, multiplier[ch], shift[ch], rounding == 3)
                                     : apply_scale_16(v - in_zp, multiplier[ch], shift[ch]);
    if (!scaled.ok()) return scaled.status().with_context("channel " + std::to_string(ch));
    write_int(out, i, std::clamp(*scaled + out_zp, lo, hi));
  }
  return single(std::move(out));
}

Result<Tensors> table(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  const HostTensor& x = inputs[0];
  const HostTensor& tab = inputs[1];
  if (x.dtype() == DType::kInt8) {
    if (tab.dtype() != DType::kInt8 || tab.shape() != Shape{256}) {
      return invalid_argument("int8 TABLE needs an int8 table of shape [256], got " + tab.describe());
    }
    HostTensor out(DType::kInt8, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) write_int(out, i, read_int(tab, read_int(x, i) + 128));
    return single(std::move(out));
  }
  if (x.dtype() == DType::kInt16) {
    if (tab.dtype() != DType::kInt16 || tab.shape() != Shape{513}) {
      return invalid_argument("int16 TABLE needs an int16 table of shape [513], got " + tab.describe());
    }
    // Linear interpolation between entries, 7 fractional bits; result int32.
    HostTensor out(DType::kInt32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t index = read_int(x, i) + 32768;
      const int64_t base = read_int(tab, index >> 7), next = read_int(tab, (index >> 7) + 1);
      write_int(out, i, base * 128 + (next - base) * (index & 0x7F));
    }
    return single(std::move(out));
  }
  return unsupported("input dtype " + std::string(dtype_name(x.dtype())) + " (int8 or int16 only)");
}

}  // namespace

OpTable tosa_quant_ops() { return {{"CAST", cast}, {"RESCALE", rescale}, {"TABLE", table}}; }

}  // namespace univk::reference::detail
