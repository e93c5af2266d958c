// The epilogue of the direct fp32 convolution kernels (conv2d_pointwise_f32.comp,
// conv2d_stem_f32.comp): bias, residual and activation on 4 consecutive output channels, stored
// as one vec4 where output channels are contiguous and N and the output's and residual's offsets
// and strides are multiples of 4 (kFlagVecOut, detail::kDirectConvFlagVecOut), else one element
// at a time.
// Include after the push block `p` (kernels::Conv2dPush) and the specialization constants ACT
// and FLAGS. Declares bindings 2 (bias), 3 (out) and 4 (residual, out's strides).
const uint kFlagBias = 1u, kFlagResidual = 2u, kFlagVecOut = 128u;
const bool VEC_OUT = (FLAGS & kFlagVecOut) != 0u;

layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 3) writeonly buffer Out4 { vec4 y4[]; };
layout(set = 0, binding = 4) readonly buffer Residual { float res[]; };
layout(set = 0, binding = 4) readonly buffer Residual4 { vec4 res4[]; };

// The bias of output channels n .. n + 3 (the last channel's past N); zero without kFlagBias.
vec4 channel_bias(uint n) {
  vec4 b = vec4(0.0);
  if ((FLAGS & kFlagBias) != 0u) {
    [[unroll]] for (uint j = 0u; j < 4u; ++j) b[j] = bias[p.off_bias + min(n + j, p.OCg - 1u) * p.bias_stride];
  }
  return b;
}

// Residual and activation on `v`, the biased sums of channels n .. n + 3 at output element
// offset o, then the store of the channels below N.
void store_channels(uint o, uint n, vec4 v) {
  if (VEC_OUT) {
    if ((FLAGS & kFlagResidual) != 0u) v += res4[(p.off_res + o) / 4u];
    [[unroll]] for (uint j = 0u; j < 4u; ++j) v[j] = activation(ACT, v[j], p.lo, p.hi);
    y4[(p.off_out + o) / 4u] = v;
    return;
  }
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    if (n + j >= p.OCg) break;
    const uint oc = o + j * p.out_sc;
    float e = v[j];
    if ((FLAGS & kFlagResidual) != 0u) e += res[p.off_res + oc];
    y[p.off_out + oc] = activation(ACT, e, p.lo, p.hi);
  }
}
