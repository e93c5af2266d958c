// Lowering of linear, matmul, bmm and addmm to the tiled matmul shader. Every operand is read
// through (batch, row, column) strides, so transposed weights and broadcast biases need no copy.
#include <algorithm>

#include "lowering_common.h"

namespace univk::backends::detail {
namespace {

struct Strides3 {
  int64_t batch = 0, row = 0, col = 0;
};

struct MatmulParams {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Strides3 a, b, bias;
  bool has_bias = false;
  float alpha = 1.0f, beta = 1.0f;
};

Result<LoweredOp> emit(LoweredOp lowered, const MatmulParams& p) {
  const int64_t tiles_n = (p.n + kMatmulTile - 1) / kMatmulTile;
  const int64_t tiles_m = (p.m + kMatmulTile - 1) / kMatmulTile;
  if (tiles_n > kMaxGroupCount || tiles_m > kMaxGroupCount || p.batch > kMaxGroupCount) {
    return unsupported("matmul of batch " + std::to_string(p.batch) + " x [" + std::to_string(p.m) + "," +
                       std::to_string(p.n) + "] exceeds the dispatch limit");
  }
  if (p.k > int64_t{UINT32_MAX}) return unsupported("inner dim " + std::to_string(p.k) + " is too large");
  Dispatch d;
  d.shader = Shader::kMatmul;
  // Params { batch, M, N, K, a_bs, a_rs, a_cs, b_bs, b_rs, b_cs, bias_bs, bias_rs, bias_cs,
  //          has_bias, alpha, beta }
  d.push = {u32(p.batch),    u32(p.m),        u32(p.n),        u32(p.k),         u32(p.a.batch), u32(p.a.row),
            u32(p.a.col),    u32(p.b.batch),  u32(p.b.row),    u32(p.b.col),     u32(p.bias.batch),
            u32(p.bias.row), u32(p.bias.col), p.has_bias,      float_bits(p.alpha), float_bits(p.beta)};
  d.groups = {u32(tiles_n), u32(tiles_m), u32(p.batch)};
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Status check_operands(Inputs inputs, size_t min, size_t max) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, min, max));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_extent(inputs[i].shape, "input " + std::to_string(i)));
  }
  return ok_status();
}

Result<LoweredOp> lower_linear(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_operands(inputs, 2, 3));
  const Shape& sx = inputs[0].shape;
  const Shape& sw = inputs[1].shape;
  if (sx.rank() == 0 || sw.rank() != 2 || sx[sx.rank() - 1] != sw[1]) {
    return invalid_argument("input " + sx.to_string() + " and weight " + sw.to_string() +
                            " do not match (weight must be [out_features, in_features])");
  }
  MatmulParams p;
  p.n = sw[0];
  p.k = sw[1];
  p.m = sx.numel() / p.k;
  p.has_bias = inputs.size() == 3;
  if (p.has_bias && inputs[2].shape != Shape{p.n}) {
    return invalid_argument("bias shape " + inputs[2].shape.to_string() + " must be [" + std::to_string(p.n) + "]");
  }
  p.a = {0, p.k, 1};
  p.b = {0, 1, p.k};  // B = weight^T
  p.bias = {0, 0, 1};
  std::vector<int64_t> dims = sx.dims();
  dims.back() = p.n;
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, Shape(dims)));
  UNIVK_ASSIGN_OR_RETURN(lowered, emit(std::move(lowered), p));
  lowered.dispatches.back().bindings = {Operand::input(0), Operand::input(1),
                                        Operand::input(p.has_bias ? 2 : 0), Operand::output()};
  return lowered;
}

// Batch stride of an operand whose batch dims `batch` broadcast to `out_batch`: the whole
// matrix stride when it has every batch, 0 when it has none. Partial broadcasting (e.g.
// [2,1] against [1,3]) would need per-dim strides and is not supported.
Result<int64_t> batch_stride(const Shape& batch, const Shape& out_batch, int64_t matrix_elems) {
  if (batch.numel() == 1) return int64_t{0};
  if (batch.numel() == out_batch.numel()) return matrix_elems;
  return unsupported("batch dims " + batch.to_string() + " broadcast partially to " + out_batch.to_string());
}

Result<LoweredOp> lower_matmul(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_operands(inputs, 2, 2));
  const Shape& sa = inputs[0].shape;
  const Shape& sb = inputs[1].shape;
  if (sa.rank() == 0 || sb.rank() == 0) return invalid_argument("both arguments need at least 1 dim");
  std::vector<int64_t> da = sa.dims(), db = sb.dims();
  if (sa.rank() == 1) da.insert(da.begin(), 1);
  if (sb.rank() == 1) db.push_back(1);
  MatmulParams p;
  p.m = da[da.size() - 2];
  p.k = da.back();
  p.n = db.back();
  if (db[db.size() - 2] != p.k) {
    return invalid_argument("shapes " + sa.to_string() + " and " + sb.to_string() + " cannot be multiplied");
  }
  const Shape batch_a(std::vector<int64_t>(da.begin(), da.end() - 2));
  const Shape batch_b(std::vector<int64_t>(db.begin(), db.end() - 2));
  UNIVK_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes(batch_a, batch_b));
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(p.m);
  dims.push_back(p.n);
  if (sb.rank() == 1) dims.pop_back();
  if (sa.rank() == 1) dims.erase(dims.end() - (sb.rank() == 1 ? 1 : 2));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, Shape(dims)));
  p.batch = batch.numel();
  UNIVK_ASSIGN_OR_RETURN(p.a.batch, batch_stride(batch_a, batch, p.m * p.k));
  UNIVK_ASSIGN_OR_RETURN(p.b.batch, batch_stride(batch_b, batch, p.k * p.n));
  p.a.row = p.k, p.a.col = 1;
  p.b.row = p.n, p.b.col = 1;
  if (p.b.batch == 0 && p.a.batch != 0) {
    // A shared right operand: the batch folds into the rows of one larger matmul.
    p.m *= p.batch;
    p.batch = 1;
    p.a.batch = 0;
  }
  UNIVK_ASSIGN_OR_RETURN(lowered, emit(std::move(lowered), p));
  lowered.dispatches.back().bindings = {Operand::input(0), Operand::input(1), Operand::input(0), Operand::output()};
  return lowered;
}

Result<LoweredOp> lower_bmm(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_operands(inputs, 2, 2));
  const Shape& sa = inputs[0].shape;
  const Shape& sb = inputs[1].shape;
  if (sa.rank() != 3 || sb.rank() != 3 || sa[0] != sb[0]) {
    return invalid_argument("needs two 3-d tensors with equal batch, got " + sa.to_string() + " and " +
                            sb.to_string());
  }
  if (sa[2] != sb[1]) {
    return invalid_argument("shapes " + sa.to_string() + " and " + sb.to_string() + " cannot be multiplied");
  }
  MatmulParams p;
  p.batch = sa[0], p.m = sa[1], p.k = sa[2], p.n = sb[2];
  p.a = {p.m * p.k, p.k, 1};
  p.b = {p.k * p.n, p.n, 1};
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, Shape{p.batch, p.m, p.n}));
  UNIVK_ASSIGN_OR_RETURN(lowered, emit(std::move(lowered), p));
  lowered.dispatches.back().bindings = {Operand::input(0), Operand::input(1), Operand::input(0), Operand::output()};
  return lowered;
}

Result<LoweredOp> lower_addmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_operands(inputs, 3, 3));
  UNIVK_ASSIGN_OR_RETURN(double beta, attrs.get_float_or("beta", 1.0));
  UNIVK_ASSIGN_OR_RETURN(double alpha, attrs.get_float_or("alpha", 1.0));
  const Shape& s1 = inputs[1].shape;
  const Shape& s2 = inputs[2].shape;
  if (s1.rank() != 2 || s2.rank() != 2) {
    return invalid_argument("mat1 " + s1.to_string() + " and mat2 " + s2.to_string() + " must be 2-d");
  }
  if (s1[1] != s2[0]) {
    return invalid_argument("shapes " + s1.to_string() + " and " + s2.to_string() + " cannot be multiplied");
  }
  MatmulParams p;
  p.m = s1[0], p.k = s1[1], p.n = s2[1];
  const Shape out{p.m, p.n};
  UNIVK_ASSIGN_OR_RETURN(Shape bs, broadcast_shapes(inputs[0].shape, out));
  if (bs != out) {
    return invalid_argument("bias shape " + inputs[0].shape.to_string() + " does not broadcast to " + out.to_string());
  }
  const std::vector<int64_t> bias_strides = broadcast_strides(inputs[0].shape, out);
  p.a = {0, p.k, 1};
  p.b = {0, p.n, 1};
  p.bias = {0, bias_strides[0], bias_strides[1]};
  p.alpha = static_cast<float>(alpha);
  p.beta = static_cast<float>(beta);
  p.has_bias = p.beta != 0.0f;  // beta == 0 ignores the bias (NaN in it does not propagate)
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, out));
  UNIVK_ASSIGN_OR_RETURN(lowered, emit(std::move(lowered), p));
  lowered.dispatches.back().bindings = {Operand::input(1), Operand::input(2), Operand::input(0), Operand::output()};
  return lowered;
}

}  // namespace

LowerTable matmul_lowerings() {
  return {{"linear", lower_linear}, {"matmul", lower_matmul}, {"bmm", lower_bmm}, {"addmm", lower_addmm}};
}

}  // namespace univk::backends::detail
