#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Depthwise 2-d convolution, fp32 (kernels::plan_depthwise), for any input/output element
// strides (NHWC, NCHW), weight strides by output channel and tap, stride, dilation, padding and
// channel multiplier M (output channel oc = c * M + m reads input channel c):
//   out = act(depthwise(in, w) + bias + residual)
// Each invocation computes 4 consecutive output channels (one vec4 accumulator) at COLUMNS
// consecutive output columns of one output row. With the window width, W stride and W
// dilation specialised (KW_U > 0), a window row is walked column by column: each input vector
// is loaded once and feeds every output column whose window covers it. Otherwise the window
// is walked at runtime, one load per tap and output column.
// Vector access (FLAGS): a binding whose channels are contiguous and 4-aligned is read or
// written as vec4; otherwise the 4 lanes are gathered through the channel stride (lanes past
// the last channel repeat it and are not stored).
// Bindings: 0 input, 1 weight, 2 bias, 3 out, 4 residual (out's strides). The push-constant
// layout is kernels::DepthwisePush, the constants kernels::DepthwiseConstant.
#include "kernels/shaders/activation.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint COLUMNS = 4;
layout(constant_id = 2) const uint KW_U = 3;  // 0: the window width is p.KW (runtime)
layout(constant_id = 3) const uint SX_U = 1;
layout(constant_id = 4) const uint DX_U = 1;
layout(constant_id = 5) const uint ACT = 0;
layout(constant_id = 6) const uint FLAGS = 0;

const uint kFlagBias = 1u, kFlagResidual = 2u, kFlagVecIn = 4u, kFlagVecOut = 8u, kFlagVecWeight = 16u,
           kFlagVecBias = 32u, kFlagColumnsFast = 64u;
// Input columns one unrolled window row spans for COLUMNS outputs.
const uint SPAN = (COLUMNS - 1u) * SX_U + (KW_U == 0u ? 0u : KW_U - 1u) * DX_U + 1u;
const uint KW_ARRAY = KW_U == 0u ? 1u : KW_U;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 0) readonly buffer InV { vec4 xv[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 1) readonly buffer WeightV { vec4 wv[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 2) readonly buffer BiasV { vec4 biasv[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 3) writeonly buffer OutV { vec4 yv[]; };
layout(set = 0, binding = 4) readonly buffer Residual { float res[]; };
layout(set = 0, binding = 4) readonly buffer ResidualV { vec4 resv[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_res;
  uint total, OC, M, CB, XB;
  uint OH, OW, IH, IW;
  uint in_sn, in_sc, in_sh, in_sw;
  uint out_sn, out_sc, out_sh, out_sw;
  uint w_oc, w_tap;
  uint KH, KW;
  uint stride, dilation, pad;  // (y | x << 16)
  uint bias_stride;            // 0: one bias value for every channel
  float lo, hi;
} p;

// Output channel of each lane (lanes past the last channel repeat it).
uvec4 lane_oc;
// Element offset of each lane's input channel, weight channel.
uvec4 in_lane;
uvec4 w_lane;

vec4 load_in(uint e) {
  if ((FLAGS & kFlagVecIn) != 0u) return xv[(e + in_lane.x) >> 2];
  return vec4(x[e + in_lane.x], x[e + in_lane.y], x[e + in_lane.z], x[e + in_lane.w]);
}

vec4 load_weight(uint tap) {
  const uint e = p.off_w + tap * p.w_tap;
  if ((FLAGS & kFlagVecWeight) != 0u) return wv[(e + w_lane.x) >> 2];
  return vec4(w[e + w_lane.x], w[e + w_lane.y], w[e + w_lane.z], w[e + w_lane.w]);
}

void main() {
  const uint gid = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                   gl_LocalInvocationID.x;
  if (gid >= p.total) return;
  uint cb, xb, rest;
  if ((FLAGS & kFlagColumnsFast) != 0u) {
    xb = gid % p.XB;
    rest = gid / p.XB;
    cb = rest % p.CB;
    rest /= p.CB;
  } else {
    cb = gid % p.CB;
    rest = gid / p.CB;
    xb = rest % p.XB;
    rest /= p.XB;
  }
  const uint oy = rest % p.OH, n = rest / p.OH;
  const uint oc0 = cb * 4u, ox0 = xb * COLUMNS;
  lane_oc = min(uvec4(oc0) + uvec4(0u, 1u, 2u, 3u), uvec4(p.OC - 1u));
  in_lane = (lane_oc / p.M) * p.in_sc;
  w_lane = lane_oc * p.w_oc;

  const int sy = int(p.stride & 0xffffu), sx = int(p.stride >> 16);
  const int dy = int(p.dilation & 0xffffu), dx = int(p.dilation >> 16);
  const int py = int(p.pad & 0xffffu), px = int(p.pad >> 16);
  vec4 acc[COLUMNS];
  [[unroll]] for (uint j = 0u; j < COLUMNS; ++j) acc[j] = vec4(0.0);
  const int iy0 = int(oy) * sy - py;
  const int ix0 = int(ox0) * sx - px;
  const uint image = p.off_in + n * p.in_sn;
  for (uint ky = 0u; ky < p.KH; ++ky) {
    const int iy = iy0 + int(ky) * dy;
    if (iy < 0 || iy >= int(p.IH)) continue;
    const uint row = image + uint(iy) * p.in_sh;
    if (KW_U != 0u) {
      vec4 wr[KW_ARRAY];
      [[unroll]] for (uint kx = 0u; kx < KW_U; ++kx) wr[kx] = load_weight(ky * KW_U + kx);
      [[unroll]] for (uint col = 0u; col < SPAN; ++col) {
        // Whether some output column's window uses this input column (constant once specialised).
        bool used = false;
        [[unroll]] for (uint j = 0u; j < COLUMNS; ++j) {
          const int r = int(col) - int(j * SX_U);
          used = used || (r >= 0 && uint(r) % DX_U == 0u && uint(r) / DX_U < KW_U);
        }
        if (!used) continue;
        const int ix = ix0 + int(col);
        if (ix < 0 || ix >= int(p.IW)) continue;
        const vec4 v = load_in(row + uint(ix) * p.in_sw);
        [[unroll]] for (uint j = 0u; j < COLUMNS; ++j) {
          const int r = int(col) - int(j * SX_U);
          if (r >= 0 && uint(r) % DX_U == 0u && uint(r) / DX_U < KW_U) acc[j] += v * wr[uint(r) / DX_U];
        }
      }
    } else {
      for (uint kx = 0u; kx < p.KW; ++kx) {
        const vec4 wt = load_weight(ky * p.KW + kx);
        [[unroll]] for (uint j = 0u; j < COLUMNS; ++j) {
          const int ix = ix0 + int(j) * sx + int(kx) * dx;
          if (ix >= 0 && ix < int(p.IW)) acc[j] += load_in(row + uint(ix) * p.in_sw) * wt;
        }
      }
    }
  }

  vec4 b = vec4(0.0);
  if ((FLAGS & kFlagBias) != 0u) {
    if ((FLAGS & kFlagVecBias) != 0u) {
      b = biasv[(p.off_bias + oc0) >> 2];
    } else {
      const uvec4 at = p.off_bias + lane_oc * p.bias_stride;
      b = vec4(bias[at.x], bias[at.y], bias[at.z], bias[at.w]);
    }
  }
  const uint count = min(4u, p.OC - oc0);
  const uint pos = n * p.out_sn + oy * p.out_sh;
  [[unroll]] for (uint j = 0u; j < COLUMNS; ++j) {
    const uint ox = ox0 + j;
    if (ox >= p.OW) break;
    const uint o = pos + ox * p.out_sw + oc0 * p.out_sc;
    vec4 v = acc[j] + b;
    if ((FLAGS & kFlagVecOut) != 0u) {
      if ((FLAGS & kFlagResidual) != 0u) v += resv[(p.off_res + o) >> 2];
      for (uint i = 0u; i < 4u; ++i) v[i] = activation(ACT, v[i], p.lo, p.hi);
      yv[(p.off_out + o) >> 2] = v;
      continue;
    }
    for (uint i = 0u; i < count; ++i) {
      const uint oi = o + i * p.out_sc;
      float s = v[i];
      if ((FLAGS & kFlagResidual) != 0u) s += res[p.off_res + oi];
      y[p.off_out + oi] = activation(ACT, s, p.lo, p.hi);
    }
  }
}
