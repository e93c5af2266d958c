// TOSA 1.0 elementwise operators (CEIL, FLOOR, SIN, COS among the fp32 unary ones). fp32 for all; integer types where
// the spec defines them: ADD/SUB/MAXIMUM/MINIMUM/ABS int32, MUL int8/int16 -> int32 and int32 (with shift), NEGATE
// int8/int16/int32 (with zero points), CLAMP int8/int16/int32.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tosa_common.h"

namespace univk::reference::detail {
namespace {

float max_nan(float a, float b, bool ignore) {
  if (std::isnan(a) || std::isnan(b)) {
    if (!ignore) return NAN;
    return std::isnan(a) ? b : a;  // IGNORE: the non-NaN operand (NaN only when both are)
  }
  return a > b ? a : b;
}
float min_nan(float a, float b, bool ignore) { return -max_nan(-a, -b, ignore); }

Result<Tensors> float_unary(std::string_view op, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  HostTensor out(DType::kFloat32, inputs[0].shape());
  auto in = inputs[0].data<float>();
  auto o = out.data<float>();
  auto apply = [&](auto fn) {
    for (size_t i = 0; i < in.size(); ++i) o[i] = fn(in[i]);
  };
  if (op == "SIGMOID")
    apply([](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  else if (op == "TANH")
    apply([](float v) { return std::tanh(v); });
  else if (op == "EXP")
    apply([](float v) { return std::exp(v); });
  else if (op == "LOG")
    apply([](float v) { return std::log(v); });
  else if (op == "RECIPROCAL")
    apply([](float v) { return 1.0f / v; });
  else if (op == "RSQRT")
    apply([](float v) { return 1.0f / std::sqrt(v); });
  else if (op == "ERF")
    apply([](float v) { return std::erf(v); });
  else if (op == "CEIL")
    apply([](float v) { return std::ceil(v); });
  else if (op == "FLOOR")
    apply([](float v) { return std::floor(v); });
  else if (op == "SIN")
    apply([](float v) { return std::sin(v); });
  else if (op == "COS")
    apply([](float v) { return std::cos(v); });
  else
    return internal_error("no float function for '" + std::string(op) + "'");
  return single(std::move(out));
}

Result<Tensors> abs_op(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  HostTensor out(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat32) {
    for (int64_t i = 0; i < x.numel(); ++i) out.data<float>()[i] = std::fabs(x.data<float>()[i]);
  } else if (x.dtype() == DType::kInt32) {
    // abs(INT32_MIN) is a REQUIRE violation in the spec; we wrap.
    for (int64_t i = 0; i < x.numel(); ++i) write_int(out, i, std::llabs(read_int(x, i)));
  } else {
    return unsupported("dtype " + std::string(dtype_name(x.dtype())) + " (float32 or int32 only)");
  }
  return single(std::move(out));
}

Result<Tensors> negate(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  HostTensor out(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat32) {
    for (int64_t i = 0; i < x.numel(); ++i) out.data<float>()[i] = -x.data<float>()[i];
    return single(std::move(out));
  }
  if (x.dtype() != DType::kInt8 && x.dtype() != DType::kInt16 && x.dtype() != DType::kInt32) {
    return unsupported("dtype " + std::string(dtype_name(x.dtype())) + " (float32, int8, int16, int32 only)");
  }
  UNIVK_ASSIGN_OR_RETURN(int64_t in_zp, zero_point(attrs, "input1_zp", x.dtype()));
  UNIVK_ASSIGN_OR_RETURN(int64_t out_zp, zero_point(attrs, "output_zp", x.dtype()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t v = -(read_int(x, i) - in_zp) + out_zp;
    write_int(out, i, std::clamp(v, int_min(x.dtype()), int_max(x.dtype())));
  }
  return single(std::move(out));
}

Result<Tensors> clamp(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(bool ignore, nan_ignore(attrs));
  HostTensor out(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat32) {
    UNIVK_ASSIGN_OR_RETURN(double lo_d, attrs.get_float("min_val"));
    UNIVK_ASSIGN_OR_RETURN(double hi_d, attrs.get_float("max_val"));
    const float lo = static_cast<float>(lo_d), hi = static_cast<float>(hi_d);
    if (lo > hi) return invalid_argument("attribute 'min_val' is greater than 'max_val'");
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float v = x.data<float>()[i];
      // PROPAGATE keeps NaN; IGNORE clamps NaN to min_val (the spec's apply_max_s(NaN, min)).
      out.data<float>()[i] = std::isnan(v) ? (ignore ? lo : v) : std::fmin(std::fmax(v, lo), hi);
    }
    return single(std::move(out));
  }
  if (x.dtype() != DType::kInt8 && x.dtype() != DType::kInt16 && x.dtype() != DType::kInt32) {
    return unsupported("dtype " + std::string(dtype_name(x.dtype())) + " (float32, int8, int16, int32 only)");
  }
  UNIVK_ASSIGN_OR_RETURN(int64_t lo, attrs.get_int("min_val"));
  UNIVK_ASSIGN_OR_RETURN(int64_t hi, attrs.get_int("max_val"));
  if (lo > hi || lo < int_min(x.dtype()) || hi > int_max(x.dtype())) {
    return invalid_argument("attributes 'min_val'/'max_val' must be ordered and fit " +
                            std::string(dtype_name(x.dtype())));
  }
  for (int64_t i = 0; i < x.numel(); ++i) write_int(out, i, std::clamp(read_int(x, i), lo, hi));
  return single(std::move(out));
}

Result<Tensors> binary(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  const HostTensor& a = inputs[0];
  const HostTensor& b = inputs[1];
  UNIVK_RETURN_IF_ERROR(check_same_dtypes(a, b));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, tosa_broadcast(a.shape(), b.shape()));
  const std::vector<std::vector<int64_t>> strides = {broadcast_strides(a.shape(), shape),
                                                     broadcast_strides(b.shape(), shape)};
  const bool is_mul = op == "MUL";
  UNIVK_ASSIGN_OR_RETURN(int64_t shift, attrs.get_int_or("shift", 0));
  if (!is_mul && attrs.has("shift")) return invalid_argument("attribute 'shift' is only valid for MUL");
  if (shift != 0 && a.dtype() != DType::kInt32) {
    return invalid_argument("attribute 'shift'=" + std::to_string(shift) + " must be 0 unless the inputs are int32");
  }
  if (shift < 0 || shift > 63)
    return invalid_argument("attribute 'shift'=" + std::to_string(shift) + " not in [0, 63]");
  UNIVK_ASSIGN_OR_RETURN(bool ignore, nan_ignore(attrs));

  if (a.dtype() == DType::kFloat32) {
    HostTensor out(DType::kFloat32, shape);
    const float* pa = a.data<float>().data();
    const float* pb = b.data<float>().data();
    float* o = out.data<float>().data();
    auto apply = [&](auto fn) {
      for_each_broadcast(shape, strides,
                         [&](int64_t i, const std::vector<int64_t>& off) { o[i] = fn(pa[off[0]], pb[off[1]]); });
    };
    if (op == "ADD")
      apply([](float x, float y) { return x + y; });
    else if (op == "SUB")
      apply([](float x, float y) { return x - y; });
    else if (op == "MUL")
      apply([](float x, float y) { return x * y; });
    else if (op == "POW")
      apply([](float x, float y) { return std::pow(x, y); });
    else if (op == "MAXIMUM")
      apply([&](float x, float y) { return max_nan(x, y, ignore); });
    else if (op == "MINIMUM")
      apply([&](float x, float y) { return min_nan(x, y, ignore); });
    else
      return internal_error("no float function for '" + std::string(op) + "'");
    return single(std::move(out));
  }

  // Integer paths: MUL takes int8/int16/int32 and produces int32; the others are int32 only.
  const bool int_ok =
      a.dtype() == DType::kInt32 || (is_mul && (a.dtype() == DType::kInt8 || a.dtype() == DType::kInt16));
  if (!int_ok || op == "POW") {
    return unsupported("dtype " + std::string(dtype_name(a.dtype())) + " is not defined for this op");
  }
  HostTensor out(DType::kInt32, shape);
  auto apply = [&](auto fn) {
    for_each_broadcast(shape, strides, [&](int64_t i, const std::vector<int64_t>& off) {
      write_int(out, i, fn(read_int(a, off[0]), read_int(b, off[1])));
    });
  };
  // Results are computed in int64 and truncated to 32 bits: the spec makes int32 overflow a
  // REQUIRE violation (unpredictable), so wrapping is one valid outcome.
  if (op == "ADD")
    apply([](int64_t x, int64_t y) { return x + y; });
  else if (op == "SUB")
    apply([](int64_t x, int64_t y) { return x - y; });
  else if (op == "MAXIMUM")
    apply([](int64_t x, int64_t y) { return std::max(x, y); });
  else if (op == "MINIMUM")
    apply([](int64_t x, int64_t y) { return std::min(x, y); });
  else if (shift > 0) {
    apply([&](int64_t x, int64_t y) {
      return static_cast<int64_t>((static_cast<__int128>(x) * y + (static_cast<__int128>(1) << (shift - 1))) >> shift);
    });
  } else {
    apply([](int64_t x, int64_t y) { return x * y; });
  }
  return single(std::move(out));
}

}  // namespace

OpTable tosa_elementwise_ops() {
  OpTable t;
  for (std::string_view name :
       {"SIGMOID", "TANH", "EXP", "LOG", "RECIPROCAL", "RSQRT", "ERF", "CEIL", "FLOOR", "SIN", "COS"}) {
    t.emplace_back(name, float_unary);
  }
  for (std::string_view name : {"ADD", "SUB", "MUL", "POW", "MAXIMUM", "MINIMUM"}) t.emplace_back(name, binary);
  t.emplace_back("ABS", abs_op);
  t.emplace_back("NEGATE", negate);
  t.emplace_back("CLAMP", clamp);
  return t;
}

}  // namespace univk::reference::detail
