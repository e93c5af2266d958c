// PyTorch linear, matmul (with 1-d promotion and batch broadcasting), bmm and addmm (fp32).
#include <algorithm>

#include "common.h"

namespace univk::reference::detail {
namespace {

// out[b] = a[b] (MxK) @ b[b] (KxN) for batch dims broadcast between a and b (shapes resolved in
// `mm`, a and b already promoted to >= 2 dims).
HostTensor batched_matmul(const ops::Matmul& mm, const HostTensor& a, const HostTensor& b) {
  const int64_t m = mm.m, k = mm.k, n = mm.n;
  const Shape& batch = mm.batch;
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  HostTensor out(DType::kFloat32, Shape(dims));
  const float* ap = a.data<float>().data();
  const float* bp = b.data<float>().data();
  float* o = out.data<float>().data();
  const std::vector<std::vector<int64_t>> strides = {broadcast_strides(mm.a_batch, batch),
                                                     broadcast_strides(mm.b_batch, batch)};
  for_each_broadcast(batch, strides, [&](int64_t bi, const std::vector<int64_t>& off) {
    const float* am = ap + off[0] * m * k;
    const float* bm = bp + off[1] * k * n;
    float* om = o + bi * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t t = 0; t < k; ++t) acc += am[i * k + t] * bm[t * n + j];
        om[i * n + j] = acc;
      }
    }
  });
  return out;
}

Result<Tensors> matmul(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Matmul mm, ops::matmul(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  // 1-d operands: a gets a leading 1, b a trailing 1; both are removed from the result.
  std::vector<int64_t> da = mm.a_batch.dims(), db = mm.b_batch.dims();
  da.insert(da.end(), {mm.m, mm.k});
  db.insert(db.end(), {mm.k, mm.n});
  UNIVK_ASSIGN_OR_RETURN(HostTensor a, inputs[0].reshaped(Shape(da)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor b, inputs[1].reshaped(Shape(db)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor result, batched_matmul(mm, a, b).reshaped(mm.output));
  return single(std::move(result));
}

Result<Tensors> bmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Matmul mm, ops::bmm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  return single(batched_matmul(mm, inputs[0], inputs[1]));
}

Result<Tensors> linear(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Linear lin, ops::linear(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const int64_t out_f = lin.out_features, in_f = lin.in_features;
  HostTensor out(DType::kFloat32, lin.output);
  const int64_t rows = in_f == 0 ? out.numel() / std::max<int64_t>(out_f, 1) : inputs[0].numel() / in_f;
  const float* x = inputs[0].data<float>().data();
  const float* w = inputs[1].data<float>().data();
  const float* bias = inputs.size() == 3 ? inputs[2].data<float>().data() : nullptr;
  float* o = out.data<float>().data();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < out_f; ++j) {
      float acc = bias ? bias[j] : 0.0f;
      for (int64_t t = 0; t < in_f; ++t) acc += x[r * in_f + t] * w[j * in_f + t];
      o[r * out_f + j] = acc;
    }
  }
  return single(std::move(out));
}

Result<Tensors> addmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Addmm am, ops::addmm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  HostTensor prod = batched_matmul(am.product, inputs[1], inputs[2]);
  const double beta = am.beta, alpha = am.alpha;
  const float* bias = inputs[0].data<float>().data();
  float* o = prod.data<float>().data();
  const float fb = static_cast<float>(beta), fa = static_cast<float>(alpha);
  // beta == 0 ignores the bias entirely (NaN/inf in it do not propagate), as in PyTorch.
  for_each_broadcast(
      prod.shape(), {broadcast_strides(inputs[0].shape(), prod.shape())},
      [&](int64_t i, const std::vector<int64_t>& off) { o[i] = (fb == 0.0f ? 0.0f : fb * bias[off[0]]) + fa * o[i]; });
  return single(std::move(prod));
}

}  // namespace

OpTable matmul_ops() { return {{"linear", linear}, {"matmul", matmul}, {"bmm", bmm}, {"addmm", addmm}}; }

}  // namespace univk::reference::detail
