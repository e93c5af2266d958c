#version 450
#extension GL_GOOGLE_include_directive : require
// Transposed 2-d convolution, fp32 (kernels::plan_conv_transpose2d), for any input/output
// element strides (NCHW, NHWC), weight strides by input channel, output channel within its
// group and tap, stride, dilation, groups and signed padding:
//   out[n, f, oy, ox] = act(bias[f] + sum of in[n, c, iy, ix] * w[c, f % OCG, ky, kx])
// over the input channels c of f's group and the taps with oy + pad_y = iy * SY + ky * DY (and
// likewise along x). One invocation per output element gathers the input pixels the
// transposed convolution scatters onto it.
// Bindings: 0 input, 1 weight, 2 bias, 3 out (4 residual and 5 scratch unused). The
// push-constant layout is kernels::ConvTransposePush, the constants
// kernels::ConvTransposeConstant.
#include "kernels/shaders/activation.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACT = 0;
layout(constant_id = 2) const uint FLAGS = 0;

const uint kFlagBias = 1u, kFlagBiasBroadcast = 2u;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_res;
  uint total, OC, OH, OW, IH, IW;
  uint ICG, OCG;  // channels per group
  uint in_sn, in_sc, in_sh, in_sw;
  uint out_sn, out_sc, out_sh, out_sw;
  uint w_ic, w_oc, w_tap;
  uint KH, KW;
  uint stride, dilation;  // (y | x << 16)
  int pad_y, pad_x;
  float lo, hi;
} p;

void main() {
  const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                 gl_LocalInvocationID.x;
  if (i >= p.total) return;
  const uint ox = i % p.OW;
  const uint oy = (i / p.OW) % p.OH;
  const uint f = (i / (p.OW * p.OH)) % p.OC;
  const uint batch = i / (p.OW * p.OH * p.OC);
  const uint g = f / p.OCG, fg = f % p.OCG;
  const uint sy = p.stride & 0xffffu, sx = p.stride >> 16, dy = p.dilation & 0xffffu, dx = p.dilation >> 16;
  float acc = 0.0;
  for (uint cg = 0u; cg < p.ICG; ++cg) {
    const uint ci = g * p.ICG + cg;
    const uint plane = p.off_in + batch * p.in_sn + ci * p.in_sc;
    const uint kern = p.off_w + ci * p.w_ic + fg * p.w_oc;
    for (uint ky = 0u; ky < p.KH; ++ky) {
      const int ty = int(oy) + p.pad_y - int(ky * dy);
      if (ty < 0 || uint(ty) % sy != 0u) continue;
      const uint iy = uint(ty) / sy;
      if (iy >= p.IH) continue;
      for (uint kx = 0u; kx < p.KW; ++kx) {
        const int tx = int(ox) + p.pad_x - int(kx * dx);
        if (tx < 0 || uint(tx) % sx != 0u) continue;
        const uint ix = uint(tx) / sx;
        if (ix >= p.IW) continue;
        acc += x[plane + iy * p.in_sh + ix * p.in_sw] * w[kern + (ky * p.KW + kx) * p.w_tap];
      }
    }
  }
  if ((FLAGS & kFlagBias) != 0u) acc += bias[p.off_bias + ((FLAGS & kFlagBiasBroadcast) != 0u ? 0u : f)];
  y[p.off_out + batch * p.out_sn + f * p.out_sc + oy * p.out_sh + ox * p.out_sw] = activation(ACT, acc, p.lo, p.hi);
}
