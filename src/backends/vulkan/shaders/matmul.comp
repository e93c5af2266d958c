#version 450
// Tiled batched matmul: out[b] = alpha * (A[b] @ B[b]) + beta * bias[b] (bias optional).
// Every operand is addressed through (batch, row, column) strides, so transposed and broadcast
// operands need no copy. A 16x16 workgroup computes a 32x32 output tile (2x2 per thread),
// stepping through K in slices of 16 held in shared memory.
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint batch, M, N, K;
  uint a_bs, a_rs, a_cs;
  uint b_bs, b_rs, b_cs;
  uint bias_bs, bias_rs, bias_cs;
  uint has_bias;
  float alpha, beta;
} p;

const uint TILE = 32;
const uint KSLICE = 16;
shared float As[TILE][KSLICE + 1];
shared float Bs[KSLICE][TILE + 1];

void main() {
  const uint bi = gl_WorkGroupID.z;
  const uint row0 = gl_WorkGroupID.y * TILE, col0 = gl_WorkGroupID.x * TILE;
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint tid = ty * 16 + tx;
  const uint a_base = bi * p.a_bs, b_base = bi * p.b_bs;
  float acc00 = 0.0, acc01 = 0.0, acc10 = 0.0, acc11 = 0.0;
  for (uint k0 = 0; k0 < p.K; k0 += KSLICE) {
    for (uint e = tid; e < TILE * KSLICE; e += 256) {
      const uint ar = e / KSLICE, ak = e % KSLICE;
      const uint gm = row0 + ar, gk = k0 + ak;
      As[ar][ak] = (gm < p.M && gk < p.K) ? a[a_base + gm * p.a_rs + gk * p.a_cs] : 0.0;
      // Neighbouring invocations read neighbouring addresses: along N normally, along K when
      // B is a transposed matrix (b_rs == 1, e.g. a linear layer's weight).
      const bool b_transposed = p.b_rs == 1 && p.b_cs != 1;
      const uint bk = b_transposed ? e % KSLICE : e / TILE;
      const uint bn = b_transposed ? e / KSLICE : e % TILE;
      const uint gk2 = k0 + bk, gn = col0 + bn;
      Bs[bk][bn] = (gk2 < p.K && gn < p.N) ? b[b_base + gk2 * p.b_rs + gn * p.b_cs] : 0.0;
    }
    barrier();
    for (uint kk = 0; kk < KSLICE; ++kk) {
      const float a0 = As[ty][kk], a1 = As[ty + 16][kk];
      const float b0 = Bs[kk][tx], b1 = Bs[kk][tx + 16];
      acc00 += a0 * b0;
      acc01 += a0 * b1;
      acc10 += a1 * b0;
      acc11 += a1 * b1;
    }
    barrier();
  }
  const float accs[4] = float[4](acc00, acc01, acc10, acc11);
  for (uint q = 0; q < 4; ++q) {
    const uint r = row0 + ty + 16 * (q / 2), c = col0 + tx + 16 * (q % 2);
    if (r >= p.M || c >= p.N) continue;
    float v = p.alpha * accs[q];
    if (p.has_bias != 0) v += p.beta * bias[bi * p.bias_bs + r * p.bias_rs + c * p.bias_cs];
    y[(bi * p.M + r) * p.N + c] = v;
  }
}
