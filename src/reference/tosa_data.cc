// TOSA 1.0 data-layout and reduction operators: RESHAPE, TRANSPOSE, CONCAT, SLICE, PAD, TILE
// (any dtype), REDUCE_SUM (float32, int32), REDUCE_MAX and REDUCE_MIN (float32, int8, int16, int32;
// nan_mode), REDUCE_PRODUCT (float32), REDUCE_ALL and REDUCE_ANY (bool) keeping the reduced axis
// as 1, and ARGMAX (int32 indices, axis removed).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tosa_common.h"
#include "univk/ops/tosa_ops.h"

namespace univk::reference::detail {
namespace {

struct Split {
  int64_t outer = 1, size = 1, inner = 1;
};
Split split_at(const Shape& s, int64_t axis) {
  Split sp;
  for (size_t d = 0; d < s.rank(); ++d) {
    if (static_cast<int64_t>(d) < axis)
      sp.outer *= s[d];
    else if (static_cast<int64_t>(d) == axis)
      sp.size = s[d];
    else
      sp.inner *= s[d];
  }
  return sp;
}

Result<Tensors> reshape(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::tosa_reshape(attrs, inputs[0].shape()));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(shape));
  return single(std::move(out));
}

Result<Tensors> transpose(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(ops::TosaTranspose t, ops::tosa_transpose(attrs, inputs[0].shape()));
  return single(permute_tensor(inputs[0], t.perms));
}

Result<Tensors> concat(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::TosaConcat c, ops::tosa_concat(attrs, shapes_of(inputs)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, concat_tensors(inputs, c.axis));
  return single(std::move(out));
}

Result<Tensors> slice(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  const size_t rank = x.shape().rank();
  UNIVK_ASSIGN_OR_RETURN(ops::TosaSlice sl, ops::tosa_slice(attrs, x.shape()));
  const std::vector<int64_t>& start = sl.start;
  HostTensor out(x.dtype(), sl.output);
  const std::vector<int64_t> strides = x.shape().contiguous_strides();
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) base += start[d] * strides[d];
  const size_t es = dtype_size(x.dtype());
  const uint8_t* src = x.bytes().data();
  uint8_t* dst = out.bytes().data();
  for_each_broadcast(out.shape(), {strides}, [&](int64_t i, const std::vector<int64_t>& off) {
    std::memcpy(dst + static_cast<size_t>(i) * es, src + static_cast<size_t>(base + off[0]) * es, es);
  });
  return single(std::move(out));
}

Result<Tensors> pad(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  const size_t rank = x.shape().rank();
  UNIVK_ASSIGN_OR_RETURN(ops::TosaPad pd, ops::tosa_pad(attrs, x.shape()));
  const std::vector<int64_t>& padding = pd.padding;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(x.dtype(), pd.output.dims()));
  // Fill with pad_const, then copy the input into its window.
  if (x.dtype() == DType::kFloat32) {
    UNIVK_ASSIGN_OR_RETURN(double c, attrs.get_float_or("pad_const", 0.0));
    for (float& v : out.data<float>()) v = static_cast<float>(c);
  } else if (is_tosa_int(x.dtype()) || x.dtype() == DType::kBool) {
    UNIVK_ASSIGN_OR_RETURN(int64_t c, attrs.get_int_or("pad_const", 0));
    if (c < int_min(x.dtype()) || c > int_max(x.dtype())) {
      return invalid_argument("attribute 'pad_const'=" + std::to_string(c) + " does not fit " +
                              std::string(dtype_name(x.dtype())));
    }
    for (int64_t i = 0; i < out.numel(); ++i) write_int(out, i, c);
  } else {
    return unsupported("dtype " + std::string(dtype_name(x.dtype())));
  }
  const std::vector<int64_t> out_strides = out.shape().contiguous_strides();
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) base += padding[2 * d] * out_strides[d];
  const size_t es = dtype_size(x.dtype());
  const uint8_t* src = x.bytes().data();
  uint8_t* dst = out.bytes().data();
  for_each_broadcast(x.shape(), {out_strides}, [&](int64_t i, const std::vector<int64_t>& off) {
    std::memcpy(dst + static_cast<size_t>(base + off[0]) * es, src + static_cast<size_t>(i) * es, es);
  });
  return single(std::move(out));
}

Result<Tensors> tile(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  const size_t rank = x.shape().rank();
  UNIVK_ASSIGN_OR_RETURN(Shape tiled, ops::tosa_tile(attrs, x.shape()));
  const std::vector<int64_t>& dims = tiled.dims();
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(x.dtype(), dims));
  const std::vector<int64_t> in_strides = x.shape().contiguous_strides();
  const size_t es = dtype_size(x.dtype());
  const uint8_t* src = x.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t rem = i, off = 0;
    for (size_t d = rank; d-- > 0;) {
      off += (rem % dims[d]) % x.shape()[d] * in_strides[d];
      rem /= dims[d];
    }
    std::memcpy(dst + static_cast<size_t>(i) * es, src + static_cast<size_t>(off) * es, es);
  }
  return single(std::move(out));
}

// The dtypes each REDUCE_* takes (TOSA 1.0 profiles).
bool reduce_takes(std::string_view op, DType t) {
  if (op == "REDUCE_ALL" || op == "REDUCE_ANY") return t == DType::kBool;
  if (op == "REDUCE_PRODUCT") return t == DType::kFloat32;
  if (op == "REDUCE_SUM") return t == DType::kFloat32 || t == DType::kInt32;
  return t == DType::kFloat32 || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32;  // MAX, MIN
}

Result<Tensors> reduce(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(ops::TosaReduce r, ops::tosa_reduce(attrs, x.shape()));
  const int64_t axis = r.axis;
  const bool is_max = op == "REDUCE_MAX", is_min = op == "REDUCE_MIN", is_product = op == "REDUCE_PRODUCT";
  const bool is_extremum = is_max || is_min;
  const DType t = x.dtype();
  if (!reduce_takes(op, t)) return unsupported(std::string(op) + " on " + std::string(dtype_name(t)));
  UNIVK_ASSIGN_OR_RETURN(bool ignore, nan_ignore(attrs));
  const Split sp = split_at(x.shape(), axis);
  HostTensor out(t, r.output);
  for (int64_t a = 0; a < sp.outer; ++a) {
    for (int64_t c = 0; c < sp.inner; ++c) {
      const int64_t o = a * sp.inner + c;
      if (t == DType::kFloat32) {
        const float* in = x.data<float>().data();
        float acc = is_max ? -INFINITY : (is_min ? INFINITY : (is_product ? 1.0f : 0.0f));
        bool any_nan = false, any_number = false;
        for (int64_t i = 0; i < sp.size; ++i) {
          const float v = in[(a * sp.size + i) * sp.inner + c];
          if (is_product) {
            acc *= v;
          } else if (!is_extremum) {
            acc += v;
          } else if (std::isnan(v)) {
            any_nan = true;
          } else {
            acc = is_max ? std::fmax(acc, v) : std::fmin(acc, v);
            any_number = true;
          }
        }
        if (is_extremum && ((any_nan && !ignore) || !any_number)) acc = NAN;
        out.data<float>()[static_cast<size_t>(o)] = acc;
      } else if (t == DType::kBool) {
        const bool all = op == "REDUCE_ALL";
        bool acc = all;
        for (int64_t i = 0; i < sp.size; ++i) {
          const bool v = read_int(x, (a * sp.size + i) * sp.inner + c) != 0;
          acc = all ? (acc && v) : (acc || v);
        }
        write_int(out, o, acc);
      } else {
        int64_t acc = is_max ? int_min(t) : (is_min ? int_max(t) : 0);
        for (int64_t i = 0; i < sp.size; ++i) {
          const int64_t v = read_int(x, (a * sp.size + i) * sp.inner + c);
          acc = is_max ? std::max(acc, v) : (is_min ? std::min(acc, v) : acc + v);
        }
        write_int(out, o, acc);  // int32 sum overflow is a spec REQUIRE violation; wraps here
      }
    }
  }
  return single(std::move(out));
}

Result<Tensors> argmax(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(ops::TosaReduce r, ops::tosa_argmax(attrs, x.shape()));
  const int64_t axis = r.axis;
  UNIVK_ASSIGN_OR_RETURN(bool ignore, nan_ignore(attrs));
  const DType t = x.dtype();
  if (t != DType::kFloat32 && t != DType::kInt8 && t != DType::kInt16) {
    return unsupported("dtype " + std::string(dtype_name(t)) + " (float32, int8, int16 only)");
  }
  const Split sp = split_at(x.shape(), axis);
  HostTensor out(DType::kInt32, r.output);
  for (int64_t a = 0; a < sp.outer; ++a) {
    for (int64_t c = 0; c < sp.inner; ++c) {
      int64_t best_index = 0;
      if (t == DType::kFloat32) {
        // First maximum; PROPAGATE returns the first NaN's index, IGNORE skips NaNs.
        float best = -INFINITY;
        for (int64_t i = 0; i < sp.size; ++i) {
          const float v = x.data<float>()[static_cast<size_t>((a * sp.size + i) * sp.inner + c)];
          if (std::isnan(v)) {
            if (!ignore) {
              best_index = i;
              break;
            }
          } else if (v > best) {
            best = v;
            best_index = i;
          }
        }
      } else {
        int64_t best = int_min(t) - 1;
        for (int64_t i = 0; i < sp.size; ++i) {
          const int64_t v = read_int(x, (a * sp.size + i) * sp.inner + c);
          if (v > best) best = v, best_index = i;
        }
      }
      out.data<int32_t>()[static_cast<size_t>(a * sp.inner + c)] = static_cast<int32_t>(best_index);
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable tosa_data_ops() {
  return {{"RESHAPE", reshape},   {"TRANSPOSE", transpose},
          {"CONCAT", concat},     {"SLICE", slice},
          {"PAD", pad},           {"TILE", tile},
          {"REDUCE_SUM", reduce}, {"REDUCE_MAX", reduce},
          {"REDUCE_MIN", reduce}, {"REDUCE_PRODUCT", reduce},
          {"REDUCE_ALL", reduce}, {"REDUCE_ANY", reduce},
          {"ARGMAX", argmax}};
}

}  // namespace univk::reference::detail
