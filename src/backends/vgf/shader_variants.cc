#include "shader_variants.h"

namespace univk::backends::vgf {
namespace {

bool is_elementwise(Shader shader) {
  return shader == Shader::kElementwiseF32 || shader == Shader::kElementwiseI32 || shader == Shader::kElementwiseF16;
}

}  // namespace

Shader copy_shader(DType dtype) {
  switch (dtype_size(dtype)) {
    case 1:
      return Shader::kCopy8;
    case 2:
      return Shader::kCopy16;
    default:
      return Shader::kCopy32;
  }
}

Shader elementwise_shader(DType dtype) {
  if (dtype == DType::kInt32) return Shader::kElementwiseI32;
  return dtype == DType::kFloat16 ? Shader::kElementwiseF16 : Shader::kElementwiseF32;
}

Dispatch select_variant_for_bases(const Dispatch& dispatch, std::span<const uint32_t> bases) {
  Dispatch selected = dispatch;
  if (is_elementwise(dispatch.shader)) {
    for (auto& [id, value] : selected.specialization) {
      if (id != kElementwiseModeConstant || value != kElementwiseModeLinear) continue;
      bool aligned = dispatch.params[0] % 4 == 0;  // element count
      for (size_t i = 0; i < 1 + dispatch.inputs.size(); ++i) aligned = aligned && bases[i] % 4 == 0;
      if (aligned) value = kElementwiseModeLinearVec4;
    }
  }
  if (dispatch.shader == Shader::kPoolF32 || dispatch.shader == Shader::kPoolF16) {
    // Vector loads and stores need bases aligned to their width (pool.glsl).
    const bool quad_out = bases[0] % 4 == 0;
    // QUAD_LOAD and QUAD_C load the pool input's taps as 4-vectors and store 4-vectors.
    const bool quad_in_out = quad_out && bases[1] % 4 == 0;
    for (auto& [id, value] : selected.specialization) {
      if (id == kPoolPairXConstant && bases[1] % 2 != 0) value = 0;
      if (id == kPoolQuadLoadConstant && !quad_in_out) value = 0;
      if (id == kPoolEpilogueQuadConstant) {
        for (size_t i = 1; i < dispatch.inputs.size(); ++i) {
          if (!quad_out || bases[1 + i] % 4 != 0) value &= ~(1u << (i - 1));
        }
      }
      if (id == kPoolQuadXConstant && value != 0 && !quad_out) {
        value = 0;
        selected.work_items = dispatch.params[0];  // one invocation per output again
      }
      if (id == kPoolQuadCConstant && value != 0 && !quad_in_out) {
        value = 0;
        selected.work_items = dispatch.params[0];
      }
    }
  }
  return selected;
}

}  // namespace univk::backends::vgf
