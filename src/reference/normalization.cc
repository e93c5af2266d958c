// PyTorch softmax, log_softmax, sum, mean, prod, amax, amin (NaN propagates), all and any (bool or
// fp32 in, bool out), layer_norm and batch_norm (inference), fp32.
#include <algorithm>
#include <cmath>

#include "common.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> softmax(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Softmax sp, ops::softmax(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
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
  UNIVK_ASSIGN_OR_RETURN(ops::Reduce red, ops::reduce(attrs, shapes_of(inputs)));
  const bool is_all = op == "all", is_any = op == "any";
  if (is_all || is_any) {
    if (inputs[0].dtype() != DType::kBool && inputs[0].dtype() != DType::kFloat32)
      return unsupported(std::string(op) + " of " + std::string(dtype_name(inputs[0].dtype())) +
                         " (bool or float32; the result is bool)");
  } else {
    UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  }
  const bool is_max = op == "amax", is_min = op == "amin", is_prod = op == "prod";
  if ((is_max || is_min) && red.count == 0) {
    return invalid_argument(std::string(op) + " over an empty dim has no identity");
  }
  const HostTensor& x = inputs[0];
  const int64_t rank = static_cast<int64_t>(x.shape().rank());
  const std::vector<bool>& reduced = red.reduced;
  std::vector<int64_t> kept_dims;  // output shape with keepdim (reduced dims = 1)
  for (int64_t d = 0; d < rank; ++d) {
    kept_dims.push_back(reduced[static_cast<size_t>(d)] ? 1 : x.shape()[static_cast<size_t>(d)]);
  }
  const Shape kept(kept_dims);
  const double init = is_max ? -INFINITY : (is_min ? INFINITY : (is_prod || is_all ? 1.0 : 0.0));
  std::vector<double> acc(static_cast<size_t>(kept.numel()), init);
  // Map every input element onto its output slot: the output strides with 0 on reduced dims.
  std::vector<int64_t> out_strides = kept.contiguous_strides();
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) out_strides[static_cast<size_t>(d)] = 0;
  }
  for_each_broadcast(x.shape(), {out_strides}, [&](int64_t i, const std::vector<int64_t>& off) {
    double& a = acc[static_cast<size_t>(off[0])];
    const double v =
        x.dtype() == DType::kBool ? x.data<uint8_t>()[static_cast<size_t>(i)] : x.data<float>()[static_cast<size_t>(i)];
    if (is_all || is_any) {
      const bool truth = v != 0.0;  // NaN is true, as in PyTorch
      a = is_all ? (a != 0.0 && truth) : (a != 0.0 || truth);
    } else if (is_max || is_min) {
      if (std::isnan(v) || (is_max ? v > a : v < a)) a = std::isnan(a) ? a : v;
    } else if (is_prod) {
      a *= v;
    } else {
      a += v;
    }
  });
  if (is_all || is_any) {
    HostTensor out(DType::kBool, red.output);
    for (size_t i = 0; i < acc.size(); ++i) out.data<uint8_t>()[i] = acc[i] != 0.0;
    return single(std::move(out));
  }
  HostTensor out(DType::kFloat32, red.output);
  float* o = out.data<float>().data();
  const bool mean = op == "mean";
  for (size_t i = 0; i < acc.size(); ++i) {
    o[i] = static_cast<float>(mean ? acc[i] / static_cast<double>(red.count) : acc[i]);  // mean of nothing is NaN
  }
  return single(std::move(out));
}

Result<Tensors> layer_norm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::LayerNorm ln, ops::layer_norm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  const double eps = ln.eps;
  const int64_t inner = ln.inner, outer = ln.rows;
  HostTensor out(DType::kFloat32, ln.output);
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
  UNIVK_ASSIGN_OR_RETURN(ops::BatchNorm sp, ops::batch_norm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  const double eps = sp.eps;
  const int64_t c = sp.channels;
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
  return {{"softmax", softmax}, {"log_softmax", softmax},   {"sum", reduce},           {"mean", reduce},
          {"amax", reduce},     {"amin", reduce},           {"prod", reduce},          {"all", reduce},
          {"any", reduce},      {"layer_norm", layer_norm}, {"batch_norm", batch_norm}};
}

}  // namespace univk::reference::detail
