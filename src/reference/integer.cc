// PyTorch integer operators (torch_index_ops.h: integer_op_names) on int8, int16, int32 and
// int64 tensors of one dtype, broadcast: bitwise and/or/xor/not, shifts and the rounding
// divisions. Shifts follow PyTorch 2's CPU kernels (1.13 leaves amounts outside [0, width) to
// the hardware): a left shift by a negative amount or by the type's width or more gives 0, a
// right shift by a negative amount or by width - 1 or more shifts by width - 1 (0 or -1). A zero
// divisor is InvalidArgument (PyTorch raises); the quotient of the type's minimum by -1 wraps.
#include "tosa_common.h"
#include "univk/ops/torch_index_ops.h"

namespace univk::reference::detail {
namespace {

bool is_integer(DType t) { return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64; }

Result<int64_t> apply(std::string_view op, int64_t a, int64_t b, int64_t bits, int64_t i) {
  if (op == "bitwise_and") return a & b;
  if (op == "bitwise_or") return a | b;
  if (op == "bitwise_xor") return a ^ b;
  if (op == "bitwise_left_shift") return b < 0 || b >= bits ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  if (op == "bitwise_right_shift") return a >> (b < 0 || b >= bits - 1 ? bits - 1 : b);
  if (b == 0) return invalid_argument(std::string(op) + ": division by zero at element " + std::to_string(i));
  if (a == INT64_MIN && b == -1) return a;  // wraps, as the narrower types do when written back
  const int64_t q = a / b;                  // truncates
  if (op == "trunc_divide") return q;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;  // floor_divide
}

Result<Tensors> integer(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::integer_op(op, attrs, shapes_of(inputs)));
  const DType t = inputs[0].dtype();
  for (const HostTensor& x : inputs) {
    if (x.dtype() != t || !is_integer(t))
      return unsupported(std::string(op) + " of " + std::string(dtype_name(x.dtype())) +
                         " (int8, int16, int32 or int64 operands of one dtype)");
  }
  HostTensor out(t, shape);
  const int64_t bits = static_cast<int64_t>(dtype_size(t) * 8);
  if (op == "bitwise_not") {
    for (int64_t i = 0; i < out.numel(); ++i) write_int(out, i, ~read_int(inputs[0], i));
    return single(std::move(out));
  }
  Status error = ok_status();
  for_each_broadcast(shape, {broadcast_strides(inputs[0].shape(), shape), broadcast_strides(inputs[1].shape(), shape)},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       if (!error.ok()) return;
                       Result<int64_t> r = apply(op, read_int(inputs[0], off[0]), read_int(inputs[1], off[1]), bits, i);
                       if (r.ok())
                         write_int(out, i, *r);
                       else
                         error = r.status();
                     });
  UNIVK_RETURN_IF_ERROR(error);
  return single(std::move(out));
}

}  // namespace

OpTable integer_ops() {
  OpTable t;
  for (std::string_view name : ops::integer_op_names()) t.emplace_back(name, integer);
  return t;
}

}  // namespace univk::reference::detail
