// PyTorch comparison, logical, selection, indexing and scan operators (torch_index_ops.h).
// Comparisons and logical operators return bool (one byte, 0 or 1); argmax/argmin int64.
#include <cmath>
#include <cstring>
#include <limits>

#include "common.h"
#include "univk/ops/torch_index_ops.h"

namespace univk::reference::detail {
namespace {

bool is_numeric(DType d) {
  return d == DType::kFloat32 || d == DType::kInt32 || d == DType::kInt64 || d == DType::kBool;
}

// Element `i` as a double (exact for float32, int32, bool; int64 up to 2^53).
double number_at(const HostTensor& t, int64_t i) {
  const auto k = static_cast<size_t>(i);
  switch (t.dtype()) {
    case DType::kFloat32:
      return t.data<float>()[k];
    case DType::kInt32:
      return t.data<int32_t>()[k];
    case DType::kInt64:
      return static_cast<double>(t.data<int64_t>()[k]);
    default:
      return t.data<uint8_t>()[k] != 0 ? 1.0 : 0.0;
  }
}

Status check_numeric(Inputs inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!is_numeric(inputs[i].dtype())) {
      return unsupported("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(inputs[i].dtype())) +
                         " (float32, int32, int64 and bool are implemented)");
    }
  }
  return ok_status();
}

bool compare_values(std::string_view op, double a, double b) {
  if (op == "eq") return a == b;
  if (op == "ne") return a != b;
  if (op == "lt") return a < b;
  if (op == "le") return a <= b;
  if (op == "gt") return a > b;
  return a >= b;
}

Result<Tensors> compare(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Compare c, ops::compare(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_numeric(inputs));
  if (inputs.size() == 2 && inputs[0].dtype() != inputs[1].dtype()) {
    return unsupported("inputs of dtypes " + std::string(dtype_name(inputs[0].dtype())) + " and " +
                       std::string(dtype_name(inputs[1].dtype())) + " (equal dtypes are implemented)");
  }
  HostTensor out(DType::kBool, c.output);
  uint8_t* o = out.data<uint8_t>().data();
  if (c.has_scalar) {
    // PyTorch compares a float32 tensor with the scalar rounded to float32.
    const double other = inputs[0].dtype() == DType::kFloat32 ? static_cast<float>(c.other) : c.other;
    for (int64_t i = 0; i < out.numel(); ++i) {
      const double x = number_at(inputs[0], i);
      o[i] = c.scalar_first ? compare_values(op, other, x) : compare_values(op, x, other);
    }
    return single(std::move(out));
  }
  for_each_broadcast(c.output,
                     {broadcast_strides(inputs[0].shape(), c.output), broadcast_strides(inputs[1].shape(), c.output)},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       o[i] = compare_values(op, number_at(inputs[0], off[0]), number_at(inputs[1], off[1]));
                     });
  return single(std::move(out));
}

Result<Tensors> logical(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::logical(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_numeric(inputs));
  HostTensor out(DType::kBool, shape);
  uint8_t* o = out.data<uint8_t>().data();
  if (op == "logical_not") {
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = number_at(inputs[0], i) == 0.0;
    return single(std::move(out));
  }
  const bool is_and = op == "logical_and", is_xor = op == "logical_xor";
  for_each_broadcast(shape, {broadcast_strides(inputs[0].shape(), shape), broadcast_strides(inputs[1].shape(), shape)},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       // NaN is non-zero, hence true, as in PyTorch.
                       const bool a = number_at(inputs[0], off[0]) != 0.0, b = number_at(inputs[1], off[1]) != 0.0;
                       o[i] = is_and ? (a && b) : (is_xor ? a != b : (a || b));
                     });
  return single(std::move(out));
}

Result<Tensors> where(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::where(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[0], 0, DType::kBool));
  if (inputs[1].dtype() != inputs[2].dtype()) {
    return unsupported("x and y have dtypes " + std::string(dtype_name(inputs[1].dtype())) + " and " +
                       std::string(dtype_name(inputs[2].dtype())) + " (equal dtypes are implemented)");
  }
  return single(select_broadcast(inputs[0], inputs[1], inputs[2], shape));
}

Result<Tensors> masked_fill(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::MaskedFill m, ops::masked_fill(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[0], 0, DType::kFloat32));
  UNIVK_RETURN_IF_ERROR(check_dtype(inputs[1], 1, DType::kBool));
  HostTensor out(DType::kFloat32, m.output);
  const float value = static_cast<float>(m.value);
  const float* x = inputs[0].data<float>().data();
  const uint8_t* mask = inputs[1].data<uint8_t>().data();
  float* o = out.data<float>().data();
  for_each_broadcast(m.output, {broadcast_strides(inputs[1].shape(), m.output)},
                     [&](int64_t i, const std::vector<int64_t>& off) { o[i] = mask[off[0]] != 0 ? value : x[i]; });
  return single(std::move(out));
}

Result<Tensors> index_select(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::IndexSelect r, ops::index_select(attrs, shapes_of(inputs)));
  const HostTensor& index = inputs[1];
  if (index.dtype() != DType::kInt32 && index.dtype() != DType::kInt64) {
    return unsupported("index has dtype " + std::string(dtype_name(index.dtype())) + "; int32 or int64 is required");
  }
  const auto& g = r.geometry;
  const size_t size = dtype_size(inputs[0].dtype());
  HostTensor out(inputs[0].dtype(), r.output);
  const uint8_t* x = inputs[0].bytes().data();
  uint8_t* o = out.bytes().data();
  const size_t row = static_cast<size_t>(g.inner) * size;
  for (int64_t j = 0; j < r.count; ++j) {
    const int64_t i = index.dtype() == DType::kInt32 ? index.data<int32_t>()[static_cast<size_t>(j)]
                                                     : index.data<int64_t>()[static_cast<size_t>(j)];
    if (i < 0 || i >= g.size) {
      return invalid_argument("index " + std::to_string(i) + " (position " + std::to_string(j) +
                              ") is out of range for dim " + std::to_string(g.dim) + " of size " +
                              std::to_string(g.size));
    }
    for (int64_t outer = 0; outer < g.outer; ++outer) {
      std::memcpy(o + static_cast<size_t>((outer * r.count + j)) * row,
                  x + static_cast<size_t>((outer * g.size + i)) * row, row);
    }
  }
  return single(std::move(out));
}

Result<Tensors> arg_reduce(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::ArgReduce r, ops::arg_reduce(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_numeric(inputs));
  const bool is_max = op == "argmax";
  const auto& g = r.geometry;
  HostTensor out(DType::kInt64, r.output);
  int64_t* o = out.data<int64_t>().data();
  for (int64_t outer = 0; outer < g.outer; ++outer) {
    for (int64_t inner = 0; inner < g.inner; ++inner) {
      const int64_t base = outer * g.size * g.inner + inner;
      int64_t best = 0;
      double best_value = number_at(inputs[0], base);
      for (int64_t k = 1; k < g.size && !std::isnan(best_value); ++k) {
        const double v = number_at(inputs[0], base + k * g.inner);
        // The first NaN wins; otherwise the first strict extreme.
        if (std::isnan(v) || (is_max ? v > best_value : v < best_value)) {
          best = k;
          best_value = v;
        }
      }
      o[outer * g.inner + inner] = best;
    }
  }
  return single(std::move(out));
}

Result<Tensors> cumsum(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Cumsum c, ops::cumsum(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const auto& g = c.geometry;
  HostTensor out(DType::kFloat32, c.output);
  const float* x = inputs[0].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t outer = 0; outer < g.outer; ++outer) {
    for (int64_t inner = 0; inner < g.inner; ++inner) {
      // A double accumulator, as PyTorch's CPU kernel: the oracle's own rounding stays far
      // below the backends' tolerance.
      double acc = 0.0;
      for (int64_t k = 0; k < g.size; ++k) {
        const int64_t i = (outer * g.size + k) * g.inner + inner;
        acc += x[i];
        o[i] = static_cast<float>(acc);
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable indexing_ops() {
  OpTable t;
  for (std::string_view name : ops::compare_op_names()) t.emplace_back(name, compare);
  for (std::string_view name : ops::logical_op_names()) t.emplace_back(name, logical);
  t.emplace_back("where", where);
  t.emplace_back("masked_fill", masked_fill);
  t.emplace_back("index_select", index_select);
  t.emplace_back("argmax", arg_reduce);
  t.emplace_back("argmin", arg_reduce);
  t.emplace_back("cumsum", cumsum);
  return t;
}

}  // namespace univk::reference::detail
