// The int8 convolution kernels' interface and output epilogue, shared by conv2d_i8.glsl and
// conv2d_i8_coopmat.comp. Bindings: 0 input (int8), 1 weight (int8), 2 bias (int32), 3 output
// (int8 or int32), 4 requantization (int32: multipliers, then shifts, one each or one per
// output channel; then an int8 TABLE's 256 values packed 4 to a word; then the residual's
// words), 5 the residual's skip tensor (int8). The push-constant layout is
// kernels::Conv2dI8Push, FLAGS kernels::kI8Flag*.
//
// store_output runs the fused epilogue on one output element whose zero-point-corrected sum
// over K, sum (in - input_zp) * (weight - weight_zp), is known: bias, the accumulator's clamp,
// and with requantization the RESCALE to int8 with the output zero point, the int8 clamp, the
// TABLE and the residual add (requantize.glsl, kernels::Residual).
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#include "kernels/shaders/conv_push.glsl"
#include "kernels/shaders/requantize.glsl"

layout(constant_id = 0) const uint FLAGS = 0u;

// All output channels (per-channel requantization reads that many multipliers and shifts): the
// groups are the dispatch's z unless the including kernel says otherwise.
#ifndef UNIVK_I8_OUTPUT_CHANNELS
#define UNIVK_I8_OUTPUT_CHANNELS (p.OCg * gl_NumWorkGroups.z)
#endif

const uint kBias = 1u, kBiasBroadcast = 2u, kRequant = 4u, kPerChannel = 8u, kDoubleRound = 16u, kAlignedK = 32u,
           kWordsIn = 64u, kWordsWeight = 128u, kTable = 256u, kResidual = 512u;
const bool ALIGNED_K = (FLAGS & kAlignedK) != 0u;

layout(set = 0, binding = 0) readonly buffer In { int8_t x[]; };
layout(set = 0, binding = 0) readonly buffer InWords { uint xw[]; };
layout(set = 0, binding = 1) readonly buffer Weight { int8_t w[]; };
layout(set = 0, binding = 1) readonly buffer WeightWords { uint ww[]; };
layout(set = 0, binding = 2) readonly buffer Bias { int bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out8 { int8_t y8[]; };
layout(set = 0, binding = 3) writeonly buffer Out32 { int y32[]; };
layout(set = 0, binding = 4) readonly buffer Requant { int q[]; };
layout(set = 0, binding = 5) readonly buffer Skip { int8_t skip[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_q;
  UNIVK_CONV_PUSH_GEOMETRY
  uint zero_points;            // input_zp | weight_zp << 16 (int16 each)
  int acc_lo, acc_hi;
  uint out_q;                  // output_zp | out_lo << 8 | out_hi << 16 (int8 each) | skip base << 24
} p;

// Output channel oc's epilogue constants: its bias (0 without one), multiplier and shift, and
// where its table and residual words start in q.
struct ChannelEpilogue {
  int bias;
  int mult;
  uint shift, table, residual;
};

// oc counts over all groups; the groups are the dispatch's z.
ChannelEpilogue channel_epilogue(uint oc) {
  ChannelEpilogue c = ChannelEpilogue(0, 0, 0u, 0u, 0u);
  if ((FLAGS & kBias) != 0u) c.bias = bias[p.off_bias + ((FLAGS & kBiasBroadcast) != 0u ? 0u : oc)];
  if ((FLAGS & kRequant) != 0u) {
    const uint qc = (FLAGS & kPerChannel) != 0u ? oc : 0u;
    const uint channels = (FLAGS & kPerChannel) != 0u ? UNIVK_I8_OUTPUT_CHANNELS : 1u;
    c.mult = q[p.off_q + qc];
    c.shift = uint(q[p.off_q + channels + qc]);
    c.table = p.off_q + 2u * channels;
    c.residual = c.table + ((FLAGS & kTable) != 0u ? 64u : 0u);
  }
  return c;
}

// The int8 result of output channel oc's clamped accumulator v at (n, oy, ox): the RESCALE,
// CLAMP, TABLE and residual add FLAGS ask for.
int requantized(int v, ChannelEpilogue c, uint n, uint oy, uint ox, uint oc) {
  const int out_zp = bitfieldExtract(int(p.out_q), 0, 8);
  const int out_lo = bitfieldExtract(int(p.out_q), 8, 8), out_hi = bitfieldExtract(int(p.out_q), 16, 8);
  int r = clamp(add_saturated(apply_scale(v, c.mult, c.shift, (FLAGS & kDoubleRound) != 0u), out_zp), out_lo, out_hi);
  if ((FLAGS & kTable) != 0u) {
    const uint t = uint(r + 128);
    r = bitfieldExtract(q[c.table + t / 4u], int(8u * (t % 4u)), 8);
  }
  if ((FLAGS & kResidual) != 0u) {
    int words[10];
    [[unroll]] for (uint i = 0u; i < 10u; ++i) words[i] = q[c.residual + i];
    const uint s = c.residual + 10u;  // skip offset, strides n, c, h, w
    const uint at = (p.out_q >> 24) + uint(q[s]) + n * uint(q[s + 1u]) + oc * uint(q[s + 2u]) + oy * uint(q[s + 3u]) +
                    ox * uint(q[s + 4u]);
    r = residual_add(r, int(skip[at]), residual_add_params(words));
  }
  return r;
}

// Output position m (of M = batch * OH * OW), output channel oc (all groups) with its
// epilogue c: `sum` is the zero-point-corrected sum over K, without the bias.
void store_output(uint m, uint oc, int sum, ChannelEpilogue c) {
  const uint ox = m % p.OW, t = m / p.OW;
  const uint oy = t % p.OH, n = t / p.OH;
  const uint o = p.off_out + n * p.out_sn + oy * p.out_sh + ox * p.out_sw + oc * p.out_sc;
  const int v = clamp(sum + c.bias, p.acc_lo, p.acc_hi);
  if ((FLAGS & kRequant) != 0u) {
    y8[o] = int8_t(requantized(v, c, n, oy, ox, oc));
  } else {
    y32[o] = v;
  }
}
