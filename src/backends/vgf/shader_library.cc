#include "shader_library.h"

#include "univk_vgf_backend_shaders.h"

namespace univk::backends::vgf {

std::span<const uint32_t> shader_spirv(ShaderId id) {
  switch (id) {
    case ShaderId::kElementwiseF32: return shaders::ew_f32_spv();
    case ShaderId::kElementwiseI32: return shaders::ew_i32_spv();
    case ShaderId::kPoolF32: return shaders::pool_f32_spv();
    case ShaderId::kCopy32: return shaders::copy32_spv();
    case ShaderId::kCopy16: return shaders::copy16_spv();
    case ShaderId::kCopy8: return shaders::copy8_spv();
    case ShaderId::kConv2dF32: return shaders::conv2d_f32_spv();
    case ShaderId::kMatmulF32: return shaders::matmul_f32_spv();
    case ShaderId::kReduceF32: return shaders::reduce_f32_spv();
    case ShaderId::kCast: return shaders::cast_spv();
    case ShaderId::kRescale: return shaders::rescale_spv();
    case ShaderId::kTableI8: return shaders::table_i8_spv();
    case ShaderId::kPoolI8: return shaders::pool_i8_spv();
    case ShaderId::kConv2dI8: return shaders::conv2d_i8_spv();
    case ShaderId::kElementwiseF16: return shaders::ew_f16_spv();
    case ShaderId::kPoolF16: return shaders::pool_f16_spv();
    case ShaderId::kCast16: return shaders::cast16_spv();
  }
  return {};
}

}  // namespace univk::backends::vgf
