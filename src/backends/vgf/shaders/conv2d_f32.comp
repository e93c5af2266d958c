#version 450
#extension GL_GOOGLE_include_directive : require
// CONV2D (weight [OC,KH,KW,IC]) and DEPTHWISE_CONV2D (weight [KH,KW,C,M]), TOSA 1.0, fp32.
// Out-of-bounds taps contribute 0; bias is per output channel (or one value broadcast).
// Input and output are read through NHWC-logical strides (folded TRANSPOSEs); weight and bias
// are packed. Bindings: 1 output, 2 input, 3 weight, 4 bias (5 unused).
// Params after 5 base words: P[5] output count, P[6..9] output dims, P[10..13] output strides,
// P[14..17] input strides, P[18..19] IH,IW, P[20] input channels, P[21..22] KH,KW,
// P[23..24] stride, P[25..26] dilation, P[27..28] pad top,left, P[29] depth multiplier,
// P[30] 1 when the bias has a single element.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(constant_id = 0) const uint DEPTHWISE = 0;

layout(std430, set = 0, binding = 1) writeonly buffer Out { float O[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { float I[]; };
layout(std430, set = 0, binding = 3) readonly buffer Weight { float W[]; };
layout(std430, set = 0, binding = 4) readonly buffer Bias { float B[]; };

void main() {
  const uint total = P[5];
  const uint e = invocation_index();
  if (e >= total) return;
  uint rest = e;
  const uint oc = rest % P[9]; rest /= P[9];
  const uint ox = rest % P[8]; rest /= P[8];
  const uint oy = rest % P[7]; rest /= P[7];
  const uint n = rest;
  const int y0 = int(oy * P[23]) - int(P[27]);
  const int x0 = int(ox * P[24]) - int(P[28]);
  const uint kh = P[21], kw = P[22], ic_count = P[20];
  float acc = 0.0;
  for (uint ky = 0u; ky < kh; ++ky) {
    const int iy = y0 + int(ky * P[25]);
    if (iy < 0 || iy >= int(P[18])) continue;
    for (uint kx = 0u; kx < kw; ++kx) {
      const int ix = x0 + int(kx * P[26]);
      if (ix < 0 || ix >= int(P[19])) continue;
      const uint in_base = P[1] + n * P[14] + uint(iy) * P[15] + uint(ix) * P[16];
      if (DEPTHWISE != 0u) {
        const uint m = P[29];
        const uint c = oc / m;
        acc += I[in_base + c * P[17]] * W[P[2] + ((ky * kw + kx) * ic_count + c) * m + oc % m];
      } else {
        const uint w_base = P[2] + ((oc * kh + ky) * kw + kx) * ic_count;
        for (uint ic = 0u; ic < ic_count; ++ic) acc += I[in_base + ic * P[17]] * W[w_base + ic];
      }
    }
  }
  acc += B[P[3] + (P[30] != 0u ? 0u : oc)];
  O[P[0] + n * P[10] + oy * P[11] + ox * P[12] + oc * P[13]] = acc;
}
