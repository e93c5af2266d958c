#version 450
#extension GL_GOOGLE_include_directive : require
// REDUCE_SUM, REDUCE_MAX and ARGMAX (TOSA 1.0, fp32 input) along one axis: one invocation per
// output element. ARGMAX writes int32 (the first index of the maximum, or of
// the first NaN).
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] output count, P[3..8] output
// iteration dims (the input dims with the axis set to 1), P[9..14] output strides (0 on the
// axis), P[15..20] input strides, P[21] axis length, P[22] input stride along the axis.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"

layout(constant_id = 0) const uint MODE = 0;  // 0 sum, 1 max, 2 argmax

layout(std430, set = 0, binding = 1) writeonly buffer Out { float O[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutI { int OI[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { float I[]; };

void main() {
  const uint total = P[2];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint out_off = P[0] + strided_offset(e, 3u, 9u);
  uint in_off = P[1] + strided_offset(e, 3u, 15u);
  float acc = MODE == 0u ? 0.0 : uintBitsToFloat(0xff800000u);
  int best = 0;
  for (uint i = 0u; i < P[21]; ++i) {
    const float v = I[in_off];
    if (MODE == 0u) acc += v;
    // The first NaN wins and stays (nan_mode PROPAGATE): nothing compares greater than NaN.
    else if (v > acc || (isnan(v) && !isnan(acc))) { acc = v; best = int(i); }
    in_off += P[22];
  }
  if (MODE == 2u) OI[out_off] = best;
  else O[out_off] = acc;
}
