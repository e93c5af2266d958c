// emit_dispatches: each operator that is not part of a fusion group to its family's emitter
// (copy_emitters.cc, pool_emitters.cc, compute_emitters.cc), splitting batch-independent
// compute operators into slices that fit the binding limit.
#include "emitter_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>

#include "univk/ops/tosa_ops.h"

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

Status check_declared_output(const char* op, const Shape& computed, const TensorView& output) {
  if (computed != Shape(output.shape)) {
    return invalid_argument(std::string(op) + " output shape " + Shape(output.shape).to_string() +
                            " does not follow from its input and attributes (" + computed.to_string() + ")");
  }
  return ok_status();
}

namespace {

// Operators whose work is independent along dim 0 of the output and of the inputs marked in
// `sliced` (batch of DEPTHWISE_CONV2D and int8 CONV2D, rows of CAST/TABLE): split along it when
// a view exceeds `limit`.
Result<std::vector<Dispatch>> emit_batch_split(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                               const TensorView& output, const std::vector<bool>& sliced,
                                               const BindingLimit& limit) {
  std::vector<TensorView> views = {output};
  views.insert(views.end(), inputs.begin(), inputs.end());
  if (views_fit(views, limit) || output.shape.empty()) return emit_compute(op, inputs, output);
  const std::string what(spirv::tosa_op_name(op.op));
  auto is_sliced = [&](size_t i) { return i < sliced.size() && sliced[i]; };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_sliced(i) && (inputs[i].shape.empty() || inputs[i].shape[0] != output.shape[0]))
      return binding_limit_error(views, limit, what);
  auto slice = [&](int64_t start, int64_t count) {
    std::vector<TensorView> out = {slice_dim(output, 0, start, count)};
    for (size_t i = 0; i < inputs.size(); ++i)
      out.push_back(is_sliced(i) ? slice_dim(inputs[i], 0, start, count) : inputs[i]);
    return out;
  };
  const auto slices = plan_slices(output.shape[0], slice, limit);
  if (slices.empty()) return binding_limit_error(views, limit, what);
  std::vector<Dispatch> dispatches;
  for (auto [start, count] : slices) {
    std::vector<TensorView> piece = slice(start, count);
    UNIVK_ASSIGN_OR_RETURN(auto part,
                           emit_compute(op, std::vector<TensorView>(piece.begin() + 1, piece.end()), piece[0]));
    for (auto& k : part) dispatches.push_back(std::move(k));
  }
  return dispatches;
}

// One dispatch per index of dim 0, every input sliced along it as the output (int8 MATMUL:
// its kernel reads one B for all its rows).
Result<std::vector<Dispatch>> emit_per_batch(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                             const TensorView& output) {
  std::vector<Dispatch> dispatches;
  for (int64_t n = 0; n < output.shape[0]; ++n) {
    std::vector<TensorView> sliced;
    for (const TensorView& in : inputs) sliced.push_back(slice_dim(in, 0, n, 1));
    UNIVK_ASSIGN_OR_RETURN(auto part, emit_compute(op, sliced, slice_dim(output, 0, n, 1)));
    for (auto& k : part) dispatches.push_back(std::move(k));
  }
  return dispatches;
}

// MATMUL, the reductions and RESIZE: the declared output against univk_ops' rule (tosa_ops.h), before
// their emitters (compute_emitters.cc) take the views.
Status check_compute_shapes(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output) {
  const std::string name(spirv::tosa_op_name(op.op));
  Result<Shape> computed = Shape();
  switch (op.op) {
    case TosaOp::kMatmul:
      if (inputs.size() != 2) return invalid_argument("MATMUL needs A and B");
      computed = ops::tosa_matmul(Shape(inputs[0].shape), Shape(inputs[1].shape));
      break;
    case TosaOp::kReduceSum:
    case TosaOp::kReduceMax:
    case TosaOp::kReduceMin:
    case TosaOp::kReduceProduct:
    case TosaOp::kReduceAll:
    case TosaOp::kReduceAny: {
      auto r = ops::tosa_reduce(op.attrs, Shape(inputs[0].shape));
      computed = r.ok() ? Result<Shape>(r->output) : Result<Shape>(r.status());
      break;
    }
    case TosaOp::kArgmax: {
      auto r = ops::tosa_argmax(op.attrs, Shape(inputs[0].shape));
      computed = r.ok() ? Result<Shape>(r->output) : Result<Shape>(r.status());
      break;
    }
    case TosaOp::kResize: {
      auto r = ops::tosa_resize(op.attrs, Shape(inputs[0].shape));
      computed = r.ok() ? Result<Shape>(r->output) : Result<Shape>(r.status());
      break;
    }
    default:
      return ok_status();
  }
  if (!computed.ok()) return computed.status().with_context(name);
  return check_declared_output(name.c_str(), *computed, output);
}

}  // namespace

Result<std::vector<Dispatch>> emit_dispatches(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                              const TensorView& output, const BindingLimit& limit) {
  if (inputs.empty()) return invalid_argument("operator without inputs");
  if (Shape(output.shape).numel() == 0) return std::vector<Dispatch>{};
  UNIVK_RETURN_IF_ERROR(check_compute_shapes(op, inputs, output));
  switch (op.op) {
    case TosaOp::kTranspose:
    case TosaOp::kSlice:
    case TosaOp::kReshape:
    case TosaOp::kPad:
    case TosaOp::kTile:
    case TosaOp::kConcat:
    case TosaOp::kReverse:
      return emit_data_movement(op, inputs, output, limit);
    case TosaOp::kAvgPool2d:
    case TosaOp::kMaxPool2d:
      // Pools the fusion pass did not take as an anchor (int8), without an epilogue.
      return emit_pool(op, {inputs[0]}, output, EwProgram{}, limit);
    case TosaOp::kConv2d:
      // fp32 CONV2D and MATMUL run kernel-library kernels, which lower_graph cuts into pieces
      // that fit the binding limit (kernels/split.h: batch, groups, output channels / columns);
      // int8 convolutions are sliced along the batch here (their kernel takes one piece).
      if (inputs[0].dtype == DType::kFloat32) return emit_compute(op, inputs, output);
      [[fallthrough]];
    case TosaOp::kDepthwiseConv2d:  // input, weight, bias
      return emit_batch_split(op, inputs, output, {true, false, false}, limit);
    case TosaOp::kMatmul:
      if (inputs[0].dtype == DType::kInt8) return emit_per_batch(op, inputs, output);
      return emit_compute(op, inputs, output);
    case TosaOp::kScatter:
      return emit_scatter(inputs, output, limit);
    case TosaOp::kConv3d: {
      UNIVK_ASSIGN_OR_RETURN(Dispatch k, emit_conv3d(op, inputs, output));
      return std::vector<Dispatch>{std::move(k)};
    }
    case TosaOp::kCast:
    case TosaOp::kTable:  // input (and the 256-entry table)
      return emit_batch_split(op, inputs, output, {true, false}, limit);
    default:
      break;
  }
  return emit_compute(op, inputs, output);
}

}  // namespace univk::backends::vgf
