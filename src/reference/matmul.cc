// PyTorch linear, matmul (with 1-d promotion and batch broadcasting), bmm and addmm (fp32).
#include <algorithm>

#include "common.h"

namespace univk::reference::detail {
namespace {

// out[b] = a[b] (MxK) @ bt[b] (KxN) for batch dims broadcast between a and b.
Result<HostTensor> batched_matmul(const HostTensor& a, const HostTensor& b) {
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const int64_t m = sa[sa.rank() - 2], k = sa[sa.rank() - 1];
  const int64_t kb = sb[sb.rank() - 2], n = sb[sb.rank() - 1];
  if (k != kb) {
    return invalid_argument("shapes " + sa.to_string() + " and " + sb.to_string() +
                            " cannot be multiplied (inner dims " + std::to_string(k) + " and " + std::to_string(kb) +
                            ")");
  }
  Shape batch_a(std::vector<int64_t>(sa.dims().begin(), sa.dims().end() - 2));
  Shape batch_b(std::vector<int64_t>(sb.dims().begin(), sb.dims().end() - 2));
  UNIVK_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes(batch_a, batch_b));
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  HostTensor out(DType::kFloat32, Shape(dims));
  const float* ap = a.data<float>().data();
  const float* bp = b.data<float>().data();
  float* o = out.data<float>().data();
  const std::vector<std::vector<int64_t>> strides = {broadcast_strides(batch_a, batch),
                                                     broadcast_strides(batch_b, batch)};
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

Result<Tensors> matmul(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const Shape& sa = inputs[0].shape();
  const Shape& sb = inputs[1].shape();
  if (sa.rank() == 0 || sb.rank() == 0) return invalid_argument("both arguments need at least 1 dim");
  // 1-d operands: a gets a leading 1, b a trailing 1; both are removed from the result.
  std::vector<int64_t> da = sa.dims(), db = sb.dims();
  if (sa.rank() == 1) da.insert(da.begin(), 1);
  if (sb.rank() == 1) db.push_back(1);
  UNIVK_ASSIGN_OR_RETURN(HostTensor a, inputs[0].reshaped(Shape(da)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor b, inputs[1].reshaped(Shape(db)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, batched_matmul(a, b));
  std::vector<int64_t> dims = out.shape().dims();
  if (sb.rank() == 1) dims.pop_back();
  if (sa.rank() == 1) dims.erase(dims.end() - (sb.rank() == 1 ? 1 : 2));
  UNIVK_ASSIGN_OR_RETURN(HostTensor result, out.reshaped(Shape(dims)));
  return single(std::move(result));
}

Result<Tensors> bmm(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const Shape& sa = inputs[0].shape();
  const Shape& sb = inputs[1].shape();
  if (sa.rank() != 3 || sb.rank() != 3 || sa[0] != sb[0]) {
    return invalid_argument("needs two 3-d tensors with equal batch, got " + sa.to_string() + " and " +
                            sb.to_string());
  }
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, batched_matmul(inputs[0], inputs[1]));
  return single(std::move(out));
}

Result<Tensors> linear(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 3));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const Shape& sx = inputs[0].shape();
  const Shape& sw = inputs[1].shape();
  if (sx.rank() == 0 || sw.rank() != 2 || sx[sx.rank() - 1] != sw[1]) {
    return invalid_argument("input " + sx.to_string() + " and weight " + sw.to_string() +
                            " do not match (weight must be [out_features, in_features])");
  }
  const int64_t out_f = sw[0], in_f = sw[1];
  if (inputs.size() == 3 && inputs[2].shape() != Shape{out_f}) {
    return invalid_argument("bias shape " + inputs[2].shape().to_string() + " must be [" + std::to_string(out_f) +
                            "]");
  }
  std::vector<int64_t> dims = sx.dims();
  dims.back() = out_f;
  HostTensor out(DType::kFloat32, Shape(dims));
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
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 3, 3));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(double beta, attrs.get_float_or("beta", 1.0));
  UNIVK_ASSIGN_OR_RETURN(double alpha, attrs.get_float_or("alpha", 1.0));
  const Shape& s1 = inputs[1].shape();
  const Shape& s2 = inputs[2].shape();
  if (s1.rank() != 2 || s2.rank() != 2) {
    return invalid_argument("mat1 " + s1.to_string() + " and mat2 " + s2.to_string() + " must be 2-d");
  }
  UNIVK_ASSIGN_OR_RETURN(HostTensor prod, batched_matmul(inputs[1], inputs[2]));
  UNIVK_ASSIGN_OR_RETURN(Shape bs, broadcast_shapes(inputs[0].shape(), prod.shape()));
  if (bs != prod.shape()) {
    return invalid_argument("bias shape " + inputs[0].shape().to_string() + " does not broadcast to " +
                            prod.shape().to_string());
  }
  const float* bias = inputs[0].data<float>().data();
  float* o = prod.data<float>().data();
  const float fb = static_cast<float>(beta), fa = static_cast<float>(alpha);
  // beta == 0 ignores the bias entirely (NaN/inf in it do not propagate), as in PyTorch.
  for_each_broadcast(prod.shape(), {broadcast_strides(inputs[0].shape(), prod.shape())},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       o[i] = (fb == 0.0f ? 0.0f : fb * bias[off[0]]) + fa * o[i];
                     });
  return single(std::move(prod));
}

}  // namespace

OpTable matmul_ops() { return {{"linear", linear}, {"matmul", matmul}, {"bmm", bmm}, {"addmm", addmm}}; }

}  // namespace univk::reference::detail
