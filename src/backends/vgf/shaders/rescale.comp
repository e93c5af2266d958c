#version 450
#extension GL_GOOGLE_include_directive : require
// RESCALE (TOSA 1.0) between int8, uint8 and int32: v = in - input_zp, then apply_scale_32
// (optionally DOUBLE_ROUND) or apply_scale_16 (kernels/shaders/requantize.glsl) with a
// per-tensor or per-channel (last dim) multiplier/shift, saturated to int32, + output_zp,
// clamped to the output type.
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] element count, P[3..8] dims,
// P[9..14] output strides, P[15..20] input strides, P[21] input_zp, P[22] output_zp,
// P[23] channel count (1 unless per channel), P[24..24+C) multipliers, then C shifts.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/int8_io.glsl"
#include "kernels/shaders/requantize.glsl"

layout(constant_id = 0) const uint IN_KIND = 0;
layout(constant_id = 1) const uint OUT_KIND = 2;
layout(constant_id = 2) const uint DOUBLE_ROUND = 0;

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
  const int scaled =
      apply_scale(load_int(IN_KIND, i) - in_zp, int(P[24u + ch]), P[24u + channels + ch], DOUBLE_ROUND != 0u);
  // Saturating add of the zero point before the final clamp.
  const int with_zp = add_saturated(scaled, out_zp);
  store_int(OUT_KIND, o, clamp_to(OUT_KIND, with_zp));
}
