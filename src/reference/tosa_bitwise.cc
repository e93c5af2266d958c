// TOSA 1.0 integer operators on the bits of int8/int16/int32 tensors: BITWISE_AND/OR/XOR/NOT,
// LOGICAL_LEFT_SHIFT, LOGICAL_RIGHT_SHIFT, ARITHMETIC_RIGHT_SHIFT (attribute `round`), and the
// int32-only INTDIV and CLZ. Binary operands broadcast with TOSA's rule (equal ranks). The
// spec's REQUIREs (shift amounts in [0, 31], a non-zero divisor, a quotient that fits int32) are
// InvalidArgument errors naming the element.
#include <bit>

#include "tosa_common.h"

namespace univk::reference::detail {
namespace {

bool is_bit_type(DType t) { return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32; }

Status check_type(std::string_view op, DType t) {
  const bool int32_only = op == "INTDIV" || op == "CLZ";
  if (int32_only ? t == DType::kInt32 : is_bit_type(t)) return ok_status();
  return unsupported(std::string(op) + " on " + std::string(dtype_name(t)) +
                     (int32_only ? " (int32 only)" : " (int8, int16, int32 only)"));
}

// The element's bits as an unsigned value of the type's width.
uint64_t unsigned_bits(int64_t v, DType t) {
  const unsigned width = static_cast<unsigned>(dtype_size(t) * 8);
  return static_cast<uint64_t>(v) & ((uint64_t{1} << width) - 1);
}

Result<int64_t> shift_amount(int64_t s, int64_t i) {
  if (s < 0 || s > 31)
    return invalid_argument("shift amount " + std::to_string(s) + " at element " + std::to_string(i) +
                            " is outside [0, 31]");
  return s;
}

Result<Tensors> bitwise_not(std::string_view op, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_RETURN_IF_ERROR(check_type(op, x.dtype()));
  HostTensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t v = read_int(x, i);
    if (op == "BITWISE_NOT") {
      write_int(out, i, ~v);
    } else {  // CLZ: leading zero bits of the 32-bit value (32 for 0)
      write_int(out, i, std::countl_zero(static_cast<uint32_t>(v)));
    }
  }
  return single(std::move(out));
}

Result<Tensors> bitwise_binary(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  const HostTensor& a = inputs[0];
  const HostTensor& b = inputs[1];
  UNIVK_RETURN_IF_ERROR(check_same_dtypes(a, b));
  const DType t = a.dtype();
  UNIVK_RETURN_IF_ERROR(check_type(op, t));
  const bool is_arithmetic_shift = op == "ARITHMETIC_RIGHT_SHIFT";
  if (!is_arithmetic_shift && attrs.has("round"))
    return invalid_argument("attribute 'round' is only valid for ARITHMETIC_RIGHT_SHIFT");
  UNIVK_ASSIGN_OR_RETURN(int64_t round, attrs.get_int_or("round", 0));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, tosa_broadcast(a.shape(), b.shape()));
  HostTensor out(t, shape);
  Status error = ok_status();
  auto apply = [&](auto fn) {
    for_each_broadcast(shape, {broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)},
                       [&](int64_t i, const std::vector<int64_t>& off) {
                         if (!error.ok()) return;
                         Result<int64_t> r = fn(read_int(a, off[0]), read_int(b, off[1]), i);
                         if (!r.ok()) {
                           error = r.status();
                           return;
                         }
                         write_int(out, i, *r);  // truncates to the type's width
                       });
  };
  using R = Result<int64_t>;
  if (op == "BITWISE_AND") {
    apply([](int64_t x, int64_t y, int64_t) -> R { return x & y; });
  } else if (op == "BITWISE_OR") {
    apply([](int64_t x, int64_t y, int64_t) -> R { return x | y; });
  } else if (op == "BITWISE_XOR") {
    apply([](int64_t x, int64_t y, int64_t) -> R { return x ^ y; });
  } else if (op == "LOGICAL_LEFT_SHIFT") {
    apply([](int64_t x, int64_t y, int64_t i) -> R {
      UNIVK_ASSIGN_OR_RETURN(int64_t s, shift_amount(y, i));
      return static_cast<int64_t>(static_cast<uint64_t>(x) << s);
    });
  } else if (op == "LOGICAL_RIGHT_SHIFT") {
    apply([&](int64_t x, int64_t y, int64_t i) -> R {
      UNIVK_ASSIGN_OR_RETURN(int64_t s, shift_amount(y, i));
      return static_cast<int64_t>(unsigned_bits(x, t) >> s);
    });
  } else if (is_arithmetic_shift) {
    apply([&](int64_t x, int64_t y, int64_t i) -> R {
      UNIVK_ASSIGN_OR_RETURN(int64_t s, shift_amount(y, i));
      int64_t r = x >> s;
      if (round != 0 && s > 0 && ((x >> (s - 1)) & 1) != 0) ++r;
      return r;
    });
  } else if (op == "INTDIV") {
    apply([](int64_t x, int64_t y, int64_t i) -> R {
      if (y == 0) return invalid_argument("division by zero at element " + std::to_string(i));
      const int64_t q = x / y;  // C++ truncates toward zero, as the spec does
      if (q > INT32_MAX)
        return invalid_argument("quotient " + std::to_string(q) + " at element " + std::to_string(i) +
                                " does not fit int32");
      return q;
    });
  } else {
    return internal_error("no integer function for '" + std::string(op) + "'");
  }
  UNIVK_RETURN_IF_ERROR(error);
  return single(std::move(out));
}

}  // namespace

OpTable tosa_bitwise_ops() {
  OpTable t;
  for (std::string_view name : {"BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT",
                                "ARITHMETIC_RIGHT_SHIFT", "INTDIV"}) {
    t.emplace_back(name, bitwise_binary);
  }
  t.emplace_back("BITWISE_NOT", bitwise_not);
  t.emplace_back("CLZ", bitwise_not);
  return t;
}

}  // namespace univk::reference::detail
