// Lowering of linear, matmul, bmm and addmm to the tiled matmul shader. Every operand is read
// through (batch, row, column) strides, so transposed weights and broadcast biases need no copy.
#include "lowering_common.h"

namespace univk::backends::vulkan {
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
  d.push = {u32(p.batch),      u32(p.m),        u32(p.n),        u32(p.k),     u32(p.a.batch),
            u32(p.a.row),      u32(p.a.col),    u32(p.b.batch),  u32(p.b.row), u32(p.b.col),
            u32(p.bias.batch), u32(p.bias.row), u32(p.bias.col), p.has_bias,   float_bits(p.alpha),
            float_bits(p.beta)};
  d.groups = {u32(tiles_n), u32(tiles_m), u32(p.batch)};
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

// After the ops:: resolver has checked the operands' count and shapes.
Status check_operands(Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_extent(inputs[i].shape, "input " + std::to_string(i)));
  }
  return ok_status();
}

Result<LoweredOp> lower_linear(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Linear lin, ops::linear(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_operands(inputs));
  MatmulParams p;
  p.n = lin.out_features;
  p.k = lin.in_features;
  p.m = inputs[0].shape.numel() / p.k;
  p.has_bias = lin.has_bias;
  p.a = {0, p.k, 1};
  p.b = {0, 1, p.k};  // B = weight^T
  p.bias = {0, 0, 1};
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, lin.output));
  UNIVK_ASSIGN_OR_RETURN(lowered, emit(std::move(lowered), p));
  lowered.dispatches.back().bindings = {Operand::input(0), Operand::input(1), Operand::input(p.has_bias ? 2 : 0),
                                        Operand::output()};
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

Result<LoweredOp> lower_matmul(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Matmul mm, ops::matmul(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_operands(inputs));
  MatmulParams p;
  p.m = mm.m, p.k = mm.k, p.n = mm.n;
  const Shape& batch = mm.batch;
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, mm.output));
  p.batch = batch.numel();
  UNIVK_ASSIGN_OR_RETURN(p.a.batch, batch_stride(mm.a_batch, batch, p.m * p.k));
  UNIVK_ASSIGN_OR_RETURN(p.b.batch, batch_stride(mm.b_batch, batch, p.k * p.n));
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

Result<LoweredOp> lower_bmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Matmul mm, ops::bmm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_operands(inputs));
  MatmulParams p;
  p.batch = mm.batch.numel(), p.m = mm.m, p.k = mm.k, p.n = mm.n;
  p.a = {p.m * p.k, p.k, 1};
  p.b = {p.k * p.n, p.n, 1};
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, mm.output));
  UNIVK_ASSIGN_OR_RETURN(lowered, emit(std::move(lowered), p));
  lowered.dispatches.back().bindings = {Operand::input(0), Operand::input(1), Operand::input(0), Operand::output()};
  return lowered;
}

Result<LoweredOp> lower_addmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Addmm am, ops::addmm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_operands(inputs));
  const double alpha = am.alpha, beta = am.beta;
  MatmulParams p;
  p.m = am.product.m, p.k = am.product.k, p.n = am.product.n;
  const Shape& out = am.output;
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

}  // namespace univk::backends::vulkan
