// TOSA 1.0 operators that move elements by index: REVERSE (any dtype, one axis) and SCATTER
// (values_in [N,K,C] of any dtype, int32 indices [N,W], input [N,W,C]). SCATTER's REQUIREs (each
// index in [0, K), no row of values_out written twice) are InvalidArgument naming the index.
#include <cstring>
#include <vector>

#include "tosa_common.h"
#include "univk/ops/tosa_ops.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> reverse(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(int64_t axis, ops::tosa_reverse(attrs, x.shape()));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < x.shape().rank(); ++d) {
    if (static_cast<int64_t>(d) < axis) outer *= x.shape()[d];
    if (static_cast<int64_t>(d) > axis) inner *= x.shape()[d];
  }
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  const size_t row = static_cast<size_t>(inner) * dtype_size(x.dtype());
  HostTensor out(x.dtype(), x.shape());
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(out.bytes().data() + static_cast<size_t>(a * n + i) * row,
                  x.bytes().data() + static_cast<size_t>(a * n + (n - 1 - i)) * row, row);
    }
  }
  return single(std::move(out));
}

Result<Tensors> scatter(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 3, 3));
  const HostTensor& values_in = inputs[0];
  const HostTensor& indices = inputs[1];
  const HostTensor& input = inputs[2];
  UNIVK_RETURN_IF_ERROR(check_dtype(indices, 1, DType::kInt32));
  UNIVK_RETURN_IF_ERROR(check_dtype(input, 2, values_in.dtype()));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::tosa_scatter(values_in.shape(), indices.shape(), input.shape()));
  const int64_t n = shape[0], k = shape[1], c = shape[2], w = indices.shape()[1];
  const size_t row = static_cast<size_t>(c) * dtype_size(values_in.dtype());
  HostTensor out = values_in;
  std::vector<bool> written(static_cast<size_t>(n * k), false);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t j = 0; j < w; ++j) {
      const int64_t i = indices.data<int32_t>()[static_cast<size_t>(b * w + j)];
      const std::string at = "[" + std::to_string(b) + "," + std::to_string(j) + "]";
      if (i < 0 || i >= k) {
        return invalid_argument("index " + std::to_string(i) + " at " + at + " is outside [0, " + std::to_string(k) +
                                ")");
      }
      if (written[static_cast<size_t>(b * k + i)]) {
        return invalid_argument("index " + std::to_string(i) + " at " + at +
                                " writes a row that an earlier index wrote (TOSA requires distinct indices)");
      }
      written[static_cast<size_t>(b * k + i)] = true;
      std::memcpy(out.bytes().data() + static_cast<size_t>(b * k + i) * row,
                  input.bytes().data() + static_cast<size_t>(b * w + j) * row, row);
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable tosa_index_ops() { return {{"REVERSE", reverse}, {"SCATTER", scatter}}; }

}  // namespace univk::reference::detail
