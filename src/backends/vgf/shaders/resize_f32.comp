#version 450
#extension GL_GOOGLE_include_directive : require
// RESIZE (TOSA 1.0, fp32 NHWC): one invocation per output element. The source position along
// each axis is (dst * d + offset) / n, split exactly in integers into a floor index and a
// remainder; NEAREST_NEIGHBOR rounds a half remainder up (2 r >= n), BILINEAR weighs the two
// clamped taps by r / n.
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] output count, P[3] mode
// (1 nearest, 2 bilinear), P[4..7] output dims N, OH, OW, C, P[8..11] output strides,
// P[12..13] input IH, IW, P[14..17] input strides (n, y, x, c), P[18..19] n, d (y),
// P[20..21] n, d (x), P[22..23] offset + n (y, x: offset >= -n, so the words stay unsigned).
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Out { float O[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { float I[]; };

struct Taps {
  uint i0, i1;
  int r;  // remainder in [0, n)
};

Taps taps(uint dst, uint in_size, uint n_word, uint d_word, uint offset_word) {
  const int n = int(n_word);
  const int pos = int(dst) * int(d_word) + int(offset_word) - n;
  // Floor division: pos >= -n, so pos + n is non-negative.
  const int i = (pos + n) / n - 1;
  Taps t;
  t.r = pos - i * n;
  t.i0 = uint(max(i, 0));
  t.i1 = uint(min(i + 1, int(in_size) - 1));
  return t;
}

void main() {
  const uint e = invocation_index();
  if (e >= P[2]) return;
  const uint c = e % P[7];
  const uint ox = (e / P[7]) % P[6];
  const uint oy = (e / (P[7] * P[6])) % P[5];
  const uint b = e / (P[7] * P[6] * P[5]);
  const Taps ty = taps(oy, P[12], P[18], P[19], P[22]);
  const Taps tx = taps(ox, P[13], P[20], P[21], P[23]);
  const uint base = P[1] + b * P[14] + c * P[17];
  const uint out_off = P[0] + b * P[8] + oy * P[9] + ox * P[10] + c * P[11];
  if (P[3] == 1u) {
    const uint sy = 2 * ty.r >= int(P[18]) ? ty.i1 : ty.i0;
    const uint sx = 2 * tx.r >= int(P[20]) ? tx.i1 : tx.i0;
    O[out_off] = I[base + sy * P[15] + sx * P[16]];
    return;
  }
  const float dy = float(ty.r) / float(P[18]), dx = float(tx.r) / float(P[20]);
  const float v00 = I[base + ty.i0 * P[15] + tx.i0 * P[16]];
  const float v01 = I[base + ty.i0 * P[15] + tx.i1 * P[16]];
  const float v10 = I[base + ty.i1 * P[15] + tx.i0 * P[16]];
  const float v11 = I[base + ty.i1 * P[15] + tx.i1 * P[16]];
  float acc = v00 * (1.0 - dy) * (1.0 - dx);
  acc += v01 * (1.0 - dy) * dx;
  acc += v10 * dy * (1.0 - dx);
  acc += v11 * dy * dx;
  O[out_off] = acc;
}
