#version 450
#extension GL_GOOGLE_include_directive : require
// FFT2D and RFFT2D (TOSA 1.0, fp32) as the direct 2-d DFT: output [n,oy,ox] = sum over [iy,ix]
// of (re + i im) * (cos a - i sin a), a = sign * 2 pi ((iy*oy mod H)/H + (ix*ox mod W)/W), sign
// -1 for the inverse, no scaling. One invocation per output element, each summing all H*W
// inputs: O((H*W)^2) work per batch, not an O(H*W log(H*W)) FFT. Sums in fp32; the angle's
// reduction modulo H and W keeps it in [0, 4 pi).
// Bindings: 1 output_real, 2 output_imag, 3 input_real, 4 input_imag (RFFT2D: P[5] = 0 and
// binding 4 unused). Params after 4 base words: P[4] element count (N*H*OW), P[5] 1 = complex
// input, P[6] 1 = inverse, P[7] H, P[8] W, P[9] OW (W, or W/2+1 for RFFT2D), then strides
// (n, y, x) of output_real P[10..12], output_imag P[13..15], input_real P[16..18] and
// input_imag P[19..21].
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer OutReal { float OR[]; };
layout(std430, set = 0, binding = 2) writeonly buffer OutImag { float OI[]; };
layout(std430, set = 0, binding = 3) readonly buffer InReal { float IR[]; };
layout(std430, set = 0, binding = 4) readonly buffer InImag { float II[]; };

void main() {
  const uint e = invocation_index();
  if (e >= P[4]) return;
  const uint h = P[7], w = P[8];
  const uint ox = e % P[9];
  const uint oy = (e / P[9]) % h;
  const uint n = e / (P[9] * h);
  const bool complex_input = P[5] != 0u;
  const float sign = P[6] != 0u ? -1.0 : 1.0;
  const float two_pi = 6.283185307179586;
  float sum_real = 0.0, sum_imag = 0.0;
  for (uint iy = 0u; iy < h; ++iy) {
    const float ay = float((iy * oy) % h) / float(h);
    const uint row_real = P[2] + n * P[16] + iy * P[17];
    const uint row_imag = P[3] + n * P[19] + iy * P[20];
    for (uint ix = 0u; ix < w; ++ix) {
      const float a = sign * two_pi * (ay + float((ix * ox) % w) / float(w));
      const float c = cos(a), s = sin(a);
      const float re = IR[row_real + ix * P[18]];
      const float im = complex_input ? II[row_imag + ix * P[21]] : 0.0;
      sum_real += re * c + im * s;
      sum_imag += im * c - re * s;
    }
  }
  OR[P[0] + n * P[10] + oy * P[11] + ox * P[12]] = sum_real;
  OI[P[1] + n * P[13] + oy * P[14] + ox * P[15]] = sum_imag;
}
