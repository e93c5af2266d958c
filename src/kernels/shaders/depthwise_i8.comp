#version 450
// Depthwise 2-d convolution of int8 tensors with int32 accumulation, 4 channels per invocation
// (kernels::Kernel::kDepthwiseI8: TOSA DEPTHWISE_CONV2D with multiplier 1, i.e. conv2d_i8's
// groups = channels with one input and one output channel per group), with the same fused
// epilogue as conv2d_i8.glsl (conv2d_i8_io.glsl's store_output) and the same push constants.
//
// Invocation i computes channels 4 q .. 4 q + 3 (q = i % QUADS, consecutive invocations take
// consecutive channels of the same positions) of TM consecutive output positions from
// (i / QUADS) * TM: per tap one 4-channel weight load shared by the TM positions and one
// 4-channel input load per position (32-bit words where FLAGS say the channels are contiguous
// and word-aligned, else 4 byte loads), each lane subtracting the zero points and
// multiply-accumulating its channel; the input's padding contributes nothing.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
// Output positions per invocation (kernels::kI8TmConstant), channel quads (kDwI8QuadsConstant).
layout(constant_id = 1) const uint TM = 4u;
layout(constant_id = 3) const uint QUADS = 1u;
// Per-channel requantization reads 4 * QUADS multipliers and shifts (conv2d_i8_io.glsl).
#define UNIVK_I8_OUTPUT_CHANNELS (4u * QUADS)
#include "kernels/shaders/conv2d_i8_io.glsl"

// 4 input channels from element `at` (stride in_sc).
ivec4 input4(uint at) {
  if ((FLAGS & kWordsIn) != 0u) return ivec4(unpack8(int(xw[at / 4u])));
  return ivec4(int(x[at]), int(x[at + p.in_sc]), int(x[at + 2u * p.in_sc]), int(x[at + 3u * p.in_sc]));
}

// The weights of 4 channels from element `at` (a channel's weight row is w_oc apart).
ivec4 weight4(uint at) {
  if ((FLAGS & kWordsWeight) != 0u) return ivec4(unpack8(int(ww[at / 4u])));
  return ivec4(int(w[at]), int(w[at + p.w_oc]), int(w[at + 2u * p.w_oc]), int(w[at + 3u * p.w_oc]));
}

void main() {
  const uint q = gl_GlobalInvocationID.x % QUADS, m0 = gl_GlobalInvocationID.x / QUADS * TM;
  if (m0 >= p.M) return;
  const uint c0 = 4u * q;
  const int in_zp = bitfieldExtract(int(p.zero_points), 0, 16);
  const int w_zp = bitfieldExtract(int(p.zero_points), 16, 16);
  const int sy = int(p.stride & 0xffffu), sx = int(p.stride >> 16);
  const int py = int(p.pad & 0xffffu), px = int(p.pad >> 16);
  const int dy = int(p.dilation & 0xffffu), dx = int(p.dilation >> 16);

  // Per output position: channel c0 of its image, the window's top-left corner.
  uint a_base[TM];
  int a_y0[TM], a_x0[TM];
  bool a_live[TM];
  ivec4 acc[TM];
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = m0 + i;
    a_live[i] = m < p.M;
    const uint ox = m % p.OW, t = m / p.OW;
    const uint oy = t % p.OH, n = t / p.OH;
    a_base[i] = p.off_in + n * p.in_sn + c0 * p.in_sc;
    a_y0[i] = int(oy) * sy - py;
    a_x0[i] = int(ox) * sx - px;
    acc[i] = ivec4(0);
  }
  const uint w_row = p.off_w + c0 * p.w_oc;
  for (uint tap = 0u; tap < p.K; ++tap) {  // K = KH * KW: one input channel per group
    const uint ky = tap / p.KW, kx = tap - ky * p.KW;
    const ivec4 wv = weight4(w_row + tap * p.w_tap) - w_zp;
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      const int iy = a_y0[i] + int(ky) * dy, ix = a_x0[i] + int(kx) * dx;
      if (a_live[i] && uint(iy) < p.IH && uint(ix) < p.IW) {
        acc[i] += (input4(a_base[i] + uint(iy) * p.in_sh + uint(ix) * p.in_sw) - in_zp) * wv;
      }
    }
  }
  [[unroll]] for (uint e = 0u; e < 4u; ++e) {
    const uint oc = c0 + e;
    const ChannelEpilogue c = channel_epilogue(oc);
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      if (a_live[i]) store_output(m0 + i, oc, acc[i][e], c);
    }
  }
}
