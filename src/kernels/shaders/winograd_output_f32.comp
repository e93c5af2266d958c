#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Winograd F(2x2, 3x3), output transform with the convolution's epilogue
// (kernels::Kernel::kWinogradOutputF32, winograd.h): one invocation per (2x2 output tile t,
// output channel k) reads m[xi] = M[xi][t][k] and stores the tile's outputs inside the output,
//   out = act((A^T m A) + bias[k] + residual),   A^T = [1 1 1 0; 0 1 -1 -1].
// Channels run fastest across invocations: the reads of M and the NHWC stores coalesce.
// Bindings: 0 M, 2 bias, 3 output, 4 residual (the output's strides; kernel.h's interface). The
// push-constant layout is kernels::WinogradPush.
#include "kernels/shaders/activation.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACT = 0;
layout(constant_id = 2) const uint FLAGS = 0;
const uint kFlagBias = 1u, kFlagResidual = 2u;

layout(set = 0, binding = 0) readonly buffer M { float m[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 4) readonly buffer Residual { float res[]; };
layout(push_constant) uniform Params {
  uint off_m, off_w, off_bias, off_out, off_res;
  uint total, K, tiles_h, tiles_w, tiles;
  uint OH, OW;
  uint sn, sc, sh, sw;
  uint bias_stride;
  float lo, hi;
} p;

void main() {
  const uint id = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                  gl_LocalInvocationID.x;
  if (id >= p.total) return;
  const uint k = id % p.K, t = id / p.K;
  const uint tx = t % p.tiles_w, ty = (t / p.tiles_w) % p.tiles_h, n = t / (p.tiles_w * p.tiles_h);
  const uint plane = p.tiles * p.K;
  float a[4][4];
  uint o = p.off_m + t * p.K + k;
  [[unroll]] for (int i = 0; i < 4; ++i) {
    [[unroll]] for (int j = 0; j < 4; ++j) {
      a[i][j] = m[o];
      o += plane;
    }
  }
  // A^T m, then (A^T m) A.
  float s[2][4];
  [[unroll]] for (int j = 0; j < 4; ++j) {
    s[0][j] = a[0][j] + a[1][j] + a[2][j];
    s[1][j] = a[1][j] - a[2][j] - a[3][j];
  }
  const float b = (FLAGS & kFlagBias) != 0u ? bias[p.off_bias + k * p.bias_stride] : 0.0;
  const uint base = n * p.sn + k * p.sc;
  [[unroll]] for (uint i = 0u; i < 2u; ++i) {
    const uint oy = 2u * ty + i;
    if (oy >= p.OH) break;
    const float row[2] = {s[i][0] + s[i][1] + s[i][2], s[i][1] - s[i][2] - s[i][3]};
    [[unroll]] for (uint j = 0u; j < 2u; ++j) {
      const uint ox = 2u * tx + j;
      if (ox >= p.OW) break;
      const uint at = base + oy * p.sh + ox * p.sw;
      float value = row[j] + b;
      if ((FLAGS & kFlagResidual) != 0u) value += res[p.off_res + at];
      y[p.off_out + at] = activation(ACT, value, p.lo, p.hi);
    }
  }
}
