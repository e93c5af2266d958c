// PyTorch softmax, log_softmax, sum, mean, layer_norm and batch_norm (inference), fp32.
#include <algorithm>
#include <cmath>

#include "common.h"

namespace univk::reference::detail {
namespace {

// Splits a shape around one dim: [outer, size, inner].
struct Split {
  int64_t outer = 1, size = 1, inner = 1;
};
Split split_at(const Shape& s, int64_t dim) {
  Split sp;
  for (size_t d = 0; d < s.rank(); ++d) {
    if (static_cast<int64_t>(d) < dim) sp.outer *= s[d];
    else if (static_cast<int64_t>(d) == dim) sp.size = s[d];
    else sp.inner *= s[d];
  }
  return sp;
}

Result<Tensors> softmax(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(x.shape().rank()), "dim"));
  const Split sp = split_at(x.shape(), dim);
  const bool log = op == "log_softmax";
  HostTensor out(DType::kFloat32, x.shape());
  const float* in = x.data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t a = 0; a < sp.outer; ++a) {
    for (int64_t c = 0; c < sp.inner; ++c) {
      const int64_t base = a * sp.size * sp.inner + c;
      float mx = -INFINITY;
      for (int64_t i = 0; i < sp.size; ++i) mx = std::fmax(mx, in[base + i * sp.inner]);
      double sum = 0.0;
      for (int64_t i = 0; i < sp.size; ++i) sum += std::exp(static_cast<double>(in[base + i * sp.inner] - mx));
      for (int64_t i = 0; i < sp.size; ++i) {
        const float shifted = in[base + i * sp.inner] - mx;
        o[base + i * sp.inner] = log ? static_cast<float>(shifted - std::log(sum))
                                     : static_cast<float>(std::exp(static_cast<double>(shifted)) / sum);
      }
    }
  }
  return single(std::move(out));
}

Result<Tensors> reduce(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  const int64_t rank = static_cast<int64_t>(x.shape().rank());
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints_or("dim", {}));
  UNIVK_ASSIGN_OR_RETURN(bool keepdim, attrs.get_bool_or("keepdim", false));
  std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());  // no dims: reduce all
  for (int64_t d : dims) {
    UNIVK_ASSIGN_OR_RETURN(int64_t w, wrap_dim(d, rank, "dim"));
    if (rank == 0) continue;
    if (reduced[static_cast<size_t>(w)]) return invalid_argument("attribute 'dim' repeats dim " + std::to_string(w));
    reduced[static_cast<size_t>(w)] = true;
  }
  std::vector<int64_t> kept_dims;  // output shape with keepdim (reduced dims = 1)
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    kept_dims.push_back(reduced[static_cast<size_t>(d)] ? 1 : x.shape()[static_cast<size_t>(d)]);
    if (reduced[static_cast<size_t>(d)]) count *= x.shape()[static_cast<size_t>(d)];
  }
  const Shape kept(kept_dims);
  std::vector<double> acc(static_cast<size_t>(kept.numel()), 0.0);
  // Map every input element onto its output slot: the output strides with 0 on reduced dims.
  std::vector<int64_t> out_strides = kept.contiguous_strides();
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) out_strides[static_cast<size_t>(d)] = 0;
  }
  const float* in = x.data<float>().data();
  for_each_broadcast(x.shape(), {out_strides},
                     [&](int64_t i, const std::vector<int64_t>& off) { acc[static_cast<size_t>(off[0])] += in[i]; });
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (keepdim || !reduced[static_cast<size_t>(d)]) out_dims.push_back(kept_dims[static_cast<size_t>(d)]);
  }
  HostTensor out(DType::kFloat32, Shape(out_dims));
  float* o = out.data<float>().data();
  const bool mean = op == "mean";
  for (size_t i = 0; i < acc.size(); ++i) {
    o[i] = static_cast<float>(mean ? acc[i] / static_cast<double>(count) : acc[i]);  // mean of nothing is NaN
  }
  return single(std::move(out));
}

Result<Tensors> layer_norm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 3));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> norm, attrs.get_ints("normalized_shape"));
  UNIVK_ASSIGN_OR_RETURN(double eps, attrs.get_float_or("eps", 1e-5));
  const Shape& s = x.shape();
  if (norm.empty() || norm.size() > s.rank() ||
      !std::equal(norm.begin(), norm.end(), s.dims().end() - static_cast<std::ptrdiff_t>(norm.size()))) {
    return invalid_argument("attribute 'normalized_shape'=" + Shape(norm).to_string() +
                            " is not a suffix of the input shape " + s.to_string());
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].shape() != Shape(norm)) {
      return invalid_argument(std::string(i == 1 ? "weight" : "bias") + " shape " + inputs[i].shape().to_string() +
                              " must equal normalized_shape " + Shape(norm).to_string());
    }
  }
  const int64_t inner = Shape(norm).numel();
  const int64_t outer = inner == 0 ? 0 : x.numel() / inner;
  HostTensor out(DType::kFloat32, s);
  const float* in = x.data<float>().data();
  const float* w = inputs.size() > 1 ? inputs[1].data<float>().data() : nullptr;
  const float* b = inputs.size() > 2 ? inputs[2].data<float>().data() : nullptr;
  float* o = out.data<float>().data();
  for (int64_t r = 0; r < outer; ++r) {
    const float* row = in + r * inner;
    double mean = 0.0, var = 0.0;
    for (int64_t i = 0; i < inner; ++i) mean += row[i];
    mean /= static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= static_cast<double>(inner);  // biased, as in PyTorch
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i) {
      double v = (row[i] - mean) * inv;
      if (w) v *= w[i];
      if (b) v += b[i];
      o[r * inner + i] = static_cast<float>(v);
    }
  }
  return single(std::move(out));
}

Result<Tensors> batch_norm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 5, 5));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(double eps, attrs.get_float_or("eps", 1e-5));
  if (x.shape().rank() < 2) return invalid_argument("input shape " + x.shape().to_string() + " needs at least 2 dims");
  const int64_t c = x.shape()[1];
  static const char* kNames[] = {"weight", "bias", "running_mean", "running_var"};
  for (size_t i = 1; i < 5; ++i) {
    if (inputs[i].shape() != Shape{c}) {
      return invalid_argument(std::string(kNames[i - 1]) + " shape " + inputs[i].shape().to_string() + " must be [" +
                              std::to_string(c) + "]");
    }
  }
  const Split sp = split_at(x.shape(), 1);
  HostTensor out(DType::kFloat32, x.shape());
  const float* in = x.data<float>().data();
  const float* w = inputs[1].data<float>().data();
  const float* b = inputs[2].data<float>().data();
  const float* mean = inputs[3].data<float>().data();
  const float* var = inputs[4].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t ch = 0; ch < c; ++ch) {
    const float scale = static_cast<float>(w[ch] / std::sqrt(static_cast<double>(var[ch]) + eps));
    const float shift = b[ch] - mean[ch] * scale;
    for (int64_t a = 0; a < sp.outer; ++a) {
      const int64_t base = (a * c + ch) * sp.inner;
      for (int64_t i = 0; i < sp.inner; ++i) o[base + i] = in[base + i] * scale + shift;
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable normalization_ops() {
  return {{"softmax", softmax}, {"log_softmax", softmax}, {"sum", reduce},
          {"mean", reduce},     {"layer_norm", layer_norm}, {"batch_norm", batch_norm}};
}

}  // namespace univk::reference::detail
