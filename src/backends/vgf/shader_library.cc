#include "shader_library.h"

#include "univk_vgf_backend_shaders.h"

namespace univk::backends::vgf {

std::span<const uint32_t> shader_spirv(Shader id) {
  switch (id) {
    case Shader::kElementwiseF32:
      return shaders::ew_f32_spv();
    case Shader::kElementwiseI32:
      return shaders::ew_i32_spv();
    case Shader::kPoolF32:
      return shaders::pool_f32_spv();
    case Shader::kCopy32:
      return shaders::copy32_spv();
    case Shader::kCopy16:
      return shaders::copy16_spv();
    case Shader::kCopy8:
      return shaders::copy8_spv();
    case Shader::kReduceF32:
      return shaders::reduce_f32_spv();
    case Shader::kReduceBool:
      return shaders::reduce_bool_spv();
    case Shader::kCast:
      return shaders::cast_spv();
    case Shader::kRescale:
      return shaders::rescale_spv();
    case Shader::kTableI8:
      return shaders::table_i8_spv();
    case Shader::kPoolI8:
      return shaders::pool_i8_spv();
    case Shader::kElementwiseF16:
      return shaders::ew_f16_spv();
    case Shader::kPoolF16:
      return shaders::pool_f16_spv();
    case Shader::kCast16:
      return shaders::cast16_spv();
    case Shader::kResizeF32:
      return shaders::resize_f32_spv();
    case Shader::kLogic:
      return shaders::logic_spv();
    case Shader::kGather:
      return shaders::gather_spv();
    case Shader::kScatter:
      return shaders::scatter_spv();
    case Shader::kConv3dF32:
      return shaders::conv3d_f32_spv();
    case Shader::kDftF32:
      return shaders::dft_f32_spv();
  }
  return {};
}

}  // namespace univk::backends::vgf
