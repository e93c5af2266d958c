// The output side shared by the direct fp32 convolution kernels' planners (conv2d_pointwise.cc,
// conv2d_stem.cc), whose shaders share the epilogue conv_store_f32.glsl.
#include <bit>

#include "tiling.h"

namespace univk::kernels::detail {

uint32_t fill_direct_conv_output(KernelDispatch& d, const Conv2dProblem& p, int64_t k, int64_t icg) {
  uint32_t flags = (p.epilogue.bias ? kFlagBias : 0) | (p.epilogue.residual ? kFlagResidual : 0);
  // 16-byte stores: 4 contiguous channels at offsets and strides that are multiples of 4.
  const int64_t out_batch = p.batch == 1 ? 0 : p.output.n;
  if (p.output.c == 1 && aligned4({p.out_channels, int64_t(p.output_offset), out_batch, p.output.h, p.output.w}) &&
      (!p.epilogue.residual || p.residual_offset % 4 == 0)) {
    flags |= kDirectConvFlagVecOut;
    d.vector_access.push_back({p.epilogue.residual ? 0b11000u : 0b1000u, 7, kDirectConvFlagVecOut});
  }
  const int64_t m = p.batch * p.out_h * p.out_w;
  d.push.assign(kConvPushWords, 0);
  set_binding_offsets(d.push, {p.input_offset, p.weight_offset, p.bias_offset, p.output_offset, p.residual_offset});
  set_conv_geometry(d.push, p, m, p.out_channels, k, icg);
  d.push[kConvBiasStride] = p.bias_broadcast ? 0 : 1;
  d.push[kConvLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  d.push[kConvHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  d.used_bindings = 0b1011u | (p.epilogue.bias ? 0b100u : 0u) | (p.epilogue.residual ? 0b10000u : 0u);
  d.output_binding = 3;
  d.flops = 2 * uint64_t(m) * uint64_t(p.out_channels) * uint64_t(k);
  return flags;
}

}  // namespace univk::kernels::detail
