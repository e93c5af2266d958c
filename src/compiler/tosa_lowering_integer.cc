// Lowerings of the integer operators (torch_index_ops.h: integer_op_names) on int32 tensors to
// TOSA's BITWISE_*, LOGICAL_LEFT_SHIFT, ARITHMETIC_RIGHT_SHIFT and INTDIV, in the layout their
// operands already have, like the logical operators. TOSA needs shift amounts in [0, 31] and
// non-zero divisors: constant operands are checked here; a computed operand outside that range
// gives an unpredictable value on the device (the reference reports a zero divisor).
#include <algorithm>

#include "tosa_lowering.h"
#include "univk/ops/torch_index_ops.h"

namespace univk::compiler::detail {
namespace {

using spirv::TosaOp;

Attributes no_round() {
  Attributes a;
  a.set("round", int64_t{0});
  return a;
}

Attributes no_shift() {
  Attributes a;
  a.set("shift", int64_t{0});
  return a;
}

// Every element of a constant int32 operand passes `ok`.
bool constant_all(const Value& v, bool (*ok)(int32_t)) {
  if (v.kind != ValueKind::kConstant) return true;
  auto data = v.constant->data<int32_t>();
  return std::all_of(data.begin(), data.end(), ok);
}

}  // namespace

bool TosaLowering::is_integer_op(std::string_view op) {
  for (std::string_view name : ops::integer_op_names())
    if (op == name) return true;
  return false;
}

TosaLowering::TosaId TosaLowering::int32_constant(int32_t value, size_t rank) {
  HostTensor t(DType::kInt32, Shape(std::vector<int64_t>(rank, 1)));
  t.data<int32_t>()[0] = value;
  return constant(t);
}

Status TosaLowering::lower_integer(const Node& node) {
  for (ValueId in : node.inputs) {
    const Value& v = graph_.value(in);
    if (v.dtype != DType::kInt32)
      return unsupported(node.op + " of '" + v.name + "', " + std::string(dtype_name(v.dtype)) +
                         " (int32 is lowered to TOSA)");
  }
  const std::string& o = node.op;
  const bool unary = o == "bitwise_not";
  if (!unary) {
    const Value& b = graph_.value(node.inputs[1]);
    if ((o == "bitwise_left_shift" || o == "bitwise_right_shift") &&
        !constant_all(b, [](int32_t s) { return s >= 0 && s <= 31; }))
      return unsupported(o + " by a constant amount outside [0, 31]");
    if ((o == "floor_divide" || o == "trunc_divide") && !constant_all(b, [](int32_t d) { return d != 0; }))
      return invalid_argument(o + " by a constant zero divisor");
  }
  const Shape& out = graph_.value(node.outputs[0]).shape;
  const size_t rank = out.rank();
  const Layout layout = elementwise_layout(node);
  const std::vector<int64_t> shape = layout == Layout::kNhwc ? permuted(out.dims(), kToNhwc) : out.dims();
  const DType i32 = DType::kInt32;
  UNIVK_ASSIGN_OR_RETURN(TosaId a, operand(node.inputs[0], rank, layout));
  TosaId y;
  if (unary) {
    y = op(TosaOp::kBitwiseNot, {a}, {}, shape, i32);
  } else {
    UNIVK_ASSIGN_OR_RETURN(TosaId b, operand(node.inputs[1], rank, layout));
    if (o == "bitwise_and") {
      y = op(TosaOp::kBitwiseAnd, {a, b}, {}, shape, i32);
    } else if (o == "bitwise_or") {
      y = op(TosaOp::kBitwiseOr, {a, b}, {}, shape, i32);
    } else if (o == "bitwise_xor") {
      y = op(TosaOp::kBitwiseXor, {a, b}, {}, shape, i32);
    } else if (o == "bitwise_left_shift") {
      y = op(TosaOp::kLogicalLeftShift, {a, b}, {}, shape, i32);
    } else if (o == "bitwise_right_shift") {
      y = op(TosaOp::kArithmeticRightShift, {a, b}, no_round(), shape, i32);
    } else {
      y = op(TosaOp::kIntdiv, {a, b}, {}, shape, i32);  // truncates
      if (o == "floor_divide") {
        // q - 1 where the remainder is non-zero and the operands' signs differ:
        // nonzero = 1 - (clz(r) >> 5), differ = (a ^ b) >> 31 (0 or -1), q - (differ & nonzero).
        const TosaId r = op(TosaOp::kSub, {a, op(TosaOp::kMul, {y, b}, no_shift(), shape, i32)}, {}, shape, i32);
        const TosaId zero = op(TosaOp::kLogicalRightShift,
                               {op(TosaOp::kClz, {r}, {}, shape, i32), int32_constant(5, rank)}, {}, shape, i32);
        const TosaId nonzero = op(TosaOp::kSub, {int32_constant(1, rank), zero}, {}, shape, i32);
        const TosaId differ =
            op(TosaOp::kArithmeticRightShift,
               {op(TosaOp::kBitwiseXor, {a, b}, {}, shape, i32), int32_constant(31, rank)}, no_round(), shape, i32);
        y = op(TosaOp::kSub, {y, op(TosaOp::kBitwiseAnd, {differ, nonzero}, {}, shape, i32)}, {}, shape, i32);
      }
    }
  }
  set(node.outputs[0], layout, y);
  return ok_status();
}

}  // namespace univk::compiler::detail
