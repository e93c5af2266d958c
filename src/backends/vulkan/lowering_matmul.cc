// Lowering of linear, matmul, bmm and addmm to the kernel library's GEMM. Every operand is read
// through (batch, row, column) strides, so transposed weights and broadcast biases need no copy.
#include "lowering_common.h"

namespace univk::backends::vulkan {
namespace {

using kernels::GemmProblem;

// The product dispatch of `p` (its bias and epilogue already set) over the op's operands.
Result<LoweredOp> emit(LoweredOp lowered, const GemmProblem& p, Operand a, Operand b, Operand bias) {
  const int64_t out_elems = p.m * p.n;
  GemmProblem q = p;
  q.out = {0, out_elems, p.n, 1};
  UNIVK_ASSIGN_OR_RETURN(Dispatch d, kernel_dispatch(q, {a, b, bias, Operand::output(), a, Operand::scratch()}));
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
  GemmProblem p;
  p.n = lin.out_features;
  p.k = lin.in_features;
  p.m = inputs[0].shape.numel() / p.k;
  p.epilogue.bias = lin.has_bias;
  p.a = {0, 0, p.k, 1};
  p.b = {0, 0, 1, p.k};  // B = weight^T
  p.bias = {0, 0, 0, 1};
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, lin.output));
  return emit(std::move(lowered), p, Operand::input(0), Operand::input(1), Operand::input(lin.has_bias ? 2 : 0));
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
  GemmProblem p;
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
  return emit(std::move(lowered), p, Operand::input(0), Operand::input(1), Operand::input(0));
}

Result<LoweredOp> lower_bmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Matmul mm, ops::bmm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_operands(inputs));
  GemmProblem p;
  p.batch = mm.batch.numel(), p.m = mm.m, p.k = mm.k, p.n = mm.n;
  p.a = {0, p.m * p.k, p.k, 1};
  p.b = {0, p.k * p.n, p.n, 1};
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, mm.output));
  return emit(std::move(lowered), p, Operand::input(0), Operand::input(1), Operand::input(0));
}

Result<LoweredOp> lower_addmm(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Addmm am, ops::addmm(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_operands(inputs));
  const double alpha = am.alpha, beta = am.beta;
  GemmProblem p;
  p.m = am.product.m, p.k = am.product.k, p.n = am.product.n;
  const Shape& out = am.output;
  const std::vector<int64_t> bias_strides = broadcast_strides(inputs[0].shape, out);
  p.a = {0, 0, p.k, 1};
  p.b = {0, 0, p.n, 1};
  p.bias = {0, 0, bias_strides[0], bias_strides[1]};
  p.alpha = static_cast<float>(alpha);
  p.beta = static_cast<float>(beta);
  p.epilogue.bias = p.beta != 0.0f;  // beta == 0 ignores the bias (NaN in it does not propagate)
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(DType::kFloat32, out));
  return emit(std::move(lowered), p, Operand::input(1), Operand::input(2), Operand::input(0));
}

}  // namespace

LowerTable matmul_lowerings() {
  return {{"linear", lower_linear}, {"matmul", lower_matmul}, {"bmm", lower_bmm}, {"addmm", lower_addmm}};
}

}  // namespace univk::backends::vulkan
