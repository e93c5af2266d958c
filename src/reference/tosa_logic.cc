// TOSA 1.0 comparison, logical, selection and gather operators: EQUAL, GREATER, GREATER_EQUAL
// (fp32 or int32 operands, bool result), LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR, LOGICAL_NOT (bool), SELECT
// (bool condition, operands of one dtype; operands broadcast with TOSA's rule, equal ranks) and
// GATHER (values [N,K,C] of any dtype, int32 indices [N,W] in [0, K): the spec's REQUIRE, an
// InvalidArgument here).
#include <cstring>

#include "tosa_common.h"

namespace univk::reference::detail {
namespace {

Status check_compare_dtype(const HostTensor& a, const HostTensor& b) {
  if (a.dtype() != b.dtype() || (a.dtype() != DType::kFloat32 && a.dtype() != DType::kInt32)) {
    return unsupported("operands " + std::string(dtype_name(a.dtype())) + " and " + std::string(dtype_name(b.dtype())) +
                       " (fp32 or int32, equal)");
  }
  return ok_status();
}

double value_at(const HostTensor& t, int64_t i) {
  return t.dtype() == DType::kFloat32 ? t.data<float>()[static_cast<size_t>(i)]
                                      : static_cast<double>(t.data<int32_t>()[static_cast<size_t>(i)]);
}

Result<Tensors> compare(std::string_view op, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  UNIVK_RETURN_IF_ERROR(check_compare_dtype(inputs[0], inputs[1]));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, tosa_broadcast(inputs[0].shape(), inputs[1].shape()));
  HostTensor out(DType::kBool, shape);
  uint8_t* o = out.data<uint8_t>().data();
  for_each_broadcast(shape, {broadcast_strides(inputs[0].shape(), shape), broadcast_strides(inputs[1].shape(), shape)},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       const double a = value_at(inputs[0], off[0]), b = value_at(inputs[1], off[1]);
                       o[i] = op == "EQUAL" ? a == b : (op == "GREATER" ? a > b : a >= b);
                     });
  return single(std::move(out));
}

Result<Tensors> logical(std::string_view op, const Attributes&, Inputs inputs) {
  const bool unary = op == "LOGICAL_NOT";
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, unary ? 1 : 2, unary ? 1 : 2));
  for (size_t i = 0; i < inputs.size(); ++i) UNIVK_RETURN_IF_ERROR(check_dtype(inputs[i], i, DType::kBool));
  const HostTensor& a = inputs[0];
  const HostTensor& b = inputs[unary ? 0 : 1];
  UNIVK_ASSIGN_OR_RETURN(Shape shape, tosa_broadcast(a.shape(), b.shape()));
  HostTensor out(DType::kBool, shape);
  uint8_t* o = out.data<uint8_t>().data();
  const uint8_t* x = a.data<uint8_t>().data();
  const uint8_t* y = b.data<uint8_t>().data();
  for_each_broadcast(shape, {broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       const bool u = x[off[0]] != 0, v = y[off[1]] != 0;
                       o[i] = unary ? !u : (op == "LOGICAL_AND" ? (u && v) : (op == "LOGICAL_OR" ? (u || v) : u != v));
                     });
  return single(std::move(out));
}

Result<Tensors> select(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 3, 3));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[0], 0, DType::kBool));
  if (inputs[1].dtype() != inputs[2].dtype()) {
    return invalid_argument("input2 is " + std::string(dtype_name(inputs[1].dtype())) + " but input3 is " +
                            std::string(dtype_name(inputs[2].dtype())));
  }
  UNIVK_ASSIGN_OR_RETURN(Shape xy, tosa_broadcast(inputs[1].shape(), inputs[2].shape()));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, tosa_broadcast(inputs[0].shape(), xy));
  return single(select_broadcast(inputs[0], inputs[1], inputs[2], shape));
}

Result<Tensors> gather(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  const HostTensor& values = inputs[0];
  const HostTensor& indices = inputs[1];
  UNIVK_RETURN_IF_ERROR(check_dtype(indices, 1, DType::kInt32));
  const Shape& vs = values.shape();
  const Shape& is = indices.shape();
  if (vs.rank() != 3 || is.rank() != 2 || is[0] != vs[0]) {
    return invalid_argument("values " + vs.to_string() + " and indices " + is.to_string() +
                            " are not [N,K,C] and [N,W]");
  }
  const int64_t n = vs[0], k = vs[1], c = vs[2], w = is[1];
  const size_t row = static_cast<size_t>(c) * dtype_size(values.dtype());
  HostTensor out(values.dtype(), Shape{n, w, c});
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t j = 0; j < w; ++j) {
      const int64_t i = indices.data<int32_t>()[static_cast<size_t>(b * w + j)];
      if (i < 0 || i >= k) {
        return invalid_argument("index " + std::to_string(i) + " at [" + std::to_string(b) + "," + std::to_string(j) +
                                "] is outside [0, " + std::to_string(k) + ")");
      }
      std::memcpy(out.bytes().data() + static_cast<size_t>(b * w + j) * row,
                  values.bytes().data() + static_cast<size_t>(b * k + i) * row, row);
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable tosa_logic_ops() {
  return {{"EQUAL", compare},       {"GREATER", compare},    {"GREATER_EQUAL", compare},
          {"LOGICAL_AND", logical}, {"LOGICAL_OR", logical}, {"LOGICAL_XOR", logical},
          {"LOGICAL_NOT", logical}, {"SELECT", select},      {"GATHER", gather}};
}

}  // namespace univk::reference::detail
