// Fused elementwise programs on the elementwise shaders (elementwise.glsl).
#include "emitter_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

namespace {

// One elementwise dispatch over views in canonical form (output first).
Result<Dispatch> elementwise_dispatch(DType dtype, const std::vector<TensorView>& views, const EwProgram& program) {
  const TensorView& output = views[0];
  const size_t num_inputs = views.size() - 1;
  Dispatch k;
  k.shader = elementwise_shader(dtype);
  k.outputs = {output};
  k.inputs.assign(views.begin() + 1, views.end());
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, output.shape, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, output.strides, 0, "stride"));
  // Linear: one packed dim for every operand (no broadcast); the recorder's base words carry
  // the views' offsets.
  bool linear = output.shape.size() == 1;
  for (const TensorView& v : views) linear = linear && v.strides[0] == 1;
  for (size_t i = 0; i < kProgramInputs; ++i) {
    if (i >= num_inputs) {
      k.params.insert(k.params.end(), kMaxRank, 0u);
      continue;
    }
    UNIVK_RETURN_IF_ERROR(append_padded(k.params, views[1 + i].strides, 0, "stride"));
  }
  k.specialization = {{kElementwiseModeConstant, linear ? kElementwiseModeLinear : kElementwiseModeStrided},
                      {kElementwiseInputCountConstant, static_cast<uint32_t>(num_inputs)}};
  for (auto& s : program.specialization(8)) k.specialization.push_back(s);
  k.work_items = (static_cast<uint64_t>(total) + 3) / 4;
  return k;
}

}  // namespace

Result<std::vector<Dispatch>> emit_elementwise(DType dtype, const std::vector<TensorView>& inputs,
                                               const TensorView& output, const EwProgram& program,
                                               const BindingLimit& limit) {
  if (inputs.size() > kProgramInputs) return internal_error("too many program inputs");
  UNIVK_ASSIGN_OR_RETURN(auto views, canonical_iteration(output, inputs));
  std::vector<std::vector<TensorView>> pieces;
  UNIVK_RETURN_IF_ERROR(split_iteration(views, 0, limit, "elementwise program", pieces));
  std::vector<Dispatch> dispatches;
  for (const auto& piece : pieces) {
    // A slice may have size-1 dims or newly mergeable ones.
    std::vector<TensorView> piece_inputs(piece.begin() + 1, piece.end());
    UNIVK_ASSIGN_OR_RETURN(auto canonical, canonical_iteration(piece[0], piece_inputs));
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, elementwise_dispatch(dtype, canonical, program));
    dispatches.push_back(std::move(k));
  }
  return dispatches;
}

}  // namespace univk::backends::vgf
