#version 450
#extension GL_GOOGLE_include_directive : require
// CONV2D and DEPTHWISE_CONV2D (TOSA 1.0, int8 x int8 -> int32 accumulator, int32 bias):
// acc = sum (in - input_zp) * (w - weight_zp) over in-bounds taps, + bias.
// Bindings: 1 output (int32), 2 input (int8), 3 weight (int8), 4 bias (int32).
// Input and output are read through NHWC-logical strides (folded TRANSPOSEs); weight
// ([OC,KH,KW,IC], or [KH,KW,C,M] for DEPTHWISE) and bias are packed.
// Params after 4 base words: P[4] output count, P[5..8] output dims, P[9..12] output strides,
// P[13..16] input strides, P[17..18] IH,IW, P[19] input channels, P[20..21] KH,KW,
// P[22..23] stride, P[24..25] dilation, P[26..27] pad top,left, P[28] depth multiplier,
// P[29] 1 when the bias has a single element, P[30] input_zp, P[31] weight_zp.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/int8_io.glsl"

layout(constant_id = 0) const uint DEPTHWISE = 0;

layout(std430, set = 0, binding = 3) readonly buffer Weight { int8_t W[]; };
layout(std430, set = 0, binding = 4) readonly buffer Bias { int B[]; };

void main() {
  const uint total = P[4];
  const int in_zp = int(P[30]), w_zp = int(P[31]);
  const uint e = invocation_index();
  if (e >= total) return;
  uint rest = e;
  const uint oc = rest % P[8]; rest /= P[8];
  const uint ox = rest % P[7]; rest /= P[7];
  const uint oy = rest % P[6]; rest /= P[6];
  const uint n = rest;
  const int y0 = int(oy * P[22]) - int(P[26]);
  const int x0 = int(ox * P[23]) - int(P[27]);
  const uint kh = P[20], kw = P[21], ic_count = P[19];
  int acc = 0;
  for (uint ky = 0u; ky < kh; ++ky) {
    const int iy = y0 + int(ky * P[24]);
    if (iy < 0 || iy >= int(P[17])) continue;
    for (uint kx = 0u; kx < kw; ++kx) {
      const int ix = x0 + int(kx * P[25]);
      if (ix < 0 || ix >= int(P[18])) continue;
      const uint in_base = P[1] + n * P[13] + uint(iy) * P[14] + uint(ix) * P[15];
      if (DEPTHWISE != 0u) {
        const uint m = P[28];
        const uint c = oc / m;
        acc += (int(I8[in_base + c * P[16]]) - in_zp) *
               (int(W[P[2] + ((ky * kw + kx) * ic_count + c) * m + oc % m]) - w_zp);
      } else {
        const uint w_base = P[2] + ((oc * kh + ky) * kw + kx) * ic_count;
        for (uint ic = 0u; ic < ic_count; ++ic)
          acc += (int(I8[in_base + ic * P[16]]) - in_zp) * (int(W[w_base + ic]) - w_zp);
      }
    }
  }
  acc += B[P[3] + (P[29] != 0u ? 0u : oc)];
  O32[P[0] + n * P[9] + oy * P[10] + ox * P[11] + oc * P[12]] = acc;
}
