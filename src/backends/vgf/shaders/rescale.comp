#version 450
#extension GL_GOOGLE_include_directive : require
// RESCALE (TOSA 1.0) between int8, uint8 and int32: v = in - input_zp, then apply_scale_32
// (optionally DOUBLE_ROUND) or apply_scale_16 with a per-tensor or per-channel (last dim)
// multiplier/shift, saturated to int32, + output_zp, clamped to the output type. The 64-bit
// product is built from imulExtended, so no shaderInt64 is needed.
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] element count, P[3..8] dims,
// P[9..14] output strides, P[15..20] input strides, P[21] input_zp, P[22] output_zp,
// P[23] channel count (1 unless per channel), P[24..24+C) multipliers, then C shifts.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/int8_io.glsl"

layout(constant_id = 0) const uint IN_KIND = 0;
layout(constant_id = 1) const uint OUT_KIND = 2;
layout(constant_id = 2) const uint DOUBLE_ROUND = 0;

// 64-bit signed (hi, lo) + (add_hi, add_lo).
void add64(inout int hi, inout uint lo, int add_hi, uint add_lo) {
  uint carry;
  lo = uaddCarry(lo, add_lo, carry);
  hi = hi + add_hi + int(carry);
}

int apply_scale(int v, int m, uint s) {
  int hi;
  int lo_s;
  imulExtended(v, m, hi, lo_s);
  uint lo = uint(lo_s);
  // round = 1 << (s - 1)
  if (s - 1u < 32u) add64(hi, lo, 0, 1u << (s - 1u));
  else add64(hi, lo, int(1u << (s - 33u)), 0u);
  if (DOUBLE_ROUND != 0u && s > 31u) {
    if (v >= 0) add64(hi, lo, 0, 1u << 30);
    else add64(hi, lo, -1, uint(-(1 << 30)));
  }
  // Arithmetic shift right by s, keeping 64 bits, then saturate to int32.
  int rhi;
  uint rlo;
  if (s < 32u) {
    rlo = (lo >> s) | (s == 0u ? 0u : uint(hi) << (32u - s));
    rhi = hi >> s;
  } else {
    rlo = uint(hi >> (s - 32u));
    rhi = hi >> 31;
  }
  if (rhi == (int(rlo) >> 31)) return int(rlo);
  return rhi < 0 ? int(0x80000000u) : 0x7fffffff;
}

void main() {
  const uint total = P[2];
  const int in_zp = int(P[21]);
  const int out_zp = int(P[22]);
  const uint channels = P[23];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint o = P[0] + strided_offset(e, 3u, 9u);
  const uint i = P[1] + strided_offset(e, 3u, 15u);
  const uint ch = e % channels;
  const int scaled = apply_scale(load_int(IN_KIND, i) - in_zp, int(P[24u + ch]), P[24u + channels + ch]);
  // Saturating add of the zero point before the final clamp.
  const int with_zp = (out_zp > 0 && scaled > 0x7fffffff - out_zp) ? 0x7fffffff
                    : (out_zp < 0 && scaled < int(0x80000000u) - out_zp) ? int(0x80000000u) : scaled + out_zp;
  store_int(OUT_KIND, o, clamp_to(OUT_KIND, with_zp));
}
