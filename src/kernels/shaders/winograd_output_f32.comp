#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Winograd F(TILE x TILE, 3x3), output transform with the convolution's epilogue
// (kernels::Kernel::kWinogradOutputF32, winograd.h): one invocation per (output tile t, output
// channel k) reads m[xi] = M[xi][t][k] and stores the tile's outputs inside the output,
//   out = act((A^T m A) + bias[k] + residual),
//   F(2x2): A^T = [1 1 1 0; 0 1 -1 -1]
//   F(4x4): A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
// Channels run fastest across invocations: the reads of M and the NHWC stores coalesce.
// Bindings: 0 M, 2 bias, 3 output, 4 residual (the output's strides; kernel.h's interface). The
// push-constant layout is kernels::WinogradPush, the constants kernels::kWg*Constant.
#include "kernels/shaders/activation.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACT = 0;
layout(constant_id = 2) const uint FLAGS = 0;
layout(constant_id = 3) const uint TILE = 2;  // 2 or 4
const uint SIZE = TILE + 2u;
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

// A^T applied to one column (or row) of SIZE values: TILE results.
void transform(in float a[6], out float r[4]) {
  if (TILE == 2u) {
    r[0] = a[0] + a[1] + a[2];
    r[1] = a[1] - a[2] - a[3];
  } else {
    const float s12 = a[1] + a[2], d12 = a[1] - a[2], s34 = a[3] + a[4], d34 = a[3] - a[4];
    r[0] = a[0] + s12 + s34;
    r[1] = d12 + 2.0 * d34;
    r[2] = s12 + 4.0 * s34;
    r[3] = d12 + 8.0 * d34 + a[5];
  }
}

void main() {
  const uint id = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                  gl_LocalInvocationID.x;
  if (id >= p.total) return;
  const uint k = id % p.K, t = id / p.K;
  const uint tx = t % p.tiles_w, ty = (t / p.tiles_w) % p.tiles_h, n = t / (p.tiles_w * p.tiles_h);
  // A^T m: each column of the transformed tile, read from its SIZE planes.
  float s[6][4];  // [column][output row]
  [[unroll]] for (uint j = 0u; j < SIZE; ++j) {
    float column[6];
    [[unroll]] for (uint i = 0u; i < SIZE; ++i) column[i] = m[p.off_m + ((i * SIZE + j) * p.tiles + t) * p.K + k];
    transform(column, s[j]);
  }
  const float b = (FLAGS & kFlagBias) != 0u ? bias[p.off_bias + k * p.bias_stride] : 0.0;
  const uint base = n * p.sn + k * p.sc;
  [[unroll]] for (uint i = 0u; i < TILE; ++i) {
    const uint oy = TILE * ty + i;
    if (oy >= p.OH) break;
    float row[6], out_row[4];
    [[unroll]] for (uint j = 0u; j < SIZE; ++j) row[j] = s[j][i];
    transform(row, out_row);
    [[unroll]] for (uint j = 0u; j < TILE; ++j) {
      const uint ox = TILE * tx + j;
      if (ox >= p.OW) break;
      const uint at = base + oy * p.sh + ox * p.sw;
      float value = out_row[j] + b;
      if ((FLAGS & kFlagResidual) != 0u) value += res[p.off_res + at];
      y[p.off_out + at] = activation(ACT, value, p.lo, p.hi);
    }
  }
}
