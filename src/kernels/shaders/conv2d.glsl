// 2-d convolution of fp32 tensors as an implicit GEMM (the multiply's precision: the variant's
// core), for any input/output layout (NCHW, NHWC or other element strides), weight layout
// (per-element strides of output channel, input channel and tap), stride, dilation, padding and
// groups:
//   out = act(conv(in, w) + bias + residual)
// GEMM view per group g (workgroup z = g * SPLITS + split, gemm_tile.glsl): M = N*OH*OW output positions, N = OC/groups output
// channels, K = KH*KW*(C/groups), walked tap-major (k = tap * ICg + ic) whatever the weight
// layout, so a K slice of an NHWC input is contiguous. When ICg is a multiple of BK
// (kFlagAlignedK) a slice never crosses a tap and its tap is uniform.
// Bindings: 0 input, 1 weight, 2 bias, 3 out, 4 residual (same strides as out), 5 scratch
// (split-K). The push-constant layout is kernels::Conv2dPush.
#include "kernels/shaders/gemm_tile.glsl"
#include "kernels/shaders/activation.glsl"

const uint kFlagAlignedK = 16u;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
layout(set = 0, binding = 4) readonly buffer Residual { float res[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_res;
  uint M, OCg, K, ICg;
  uint OH, OW, IH, IW;
  uint in_sn, in_sc, in_sh, in_sw;
  uint out_sn, out_sc, out_sh, out_sw;
  uint w_oc, w_ic, w_tap;
  uint KW;
  uint stride, dilation, pad;  // (y | x << 16)
  uint bias_stride;            // 0: one bias value for every channel
  float lo, hi;
} p;

// Per A slot of this invocation (its output position is fixed across slices): the element
// offset of its image and channel group, and the top-left input coordinate of its window.
uint a_base[A_SLOTS];
int a_y0[A_SLOTS];
int a_x0[A_SLOTS];
bool a_live[A_SLOTS];

void init_a_slots() {
  const int sy = int(p.stride & 0xffffu), sx = int(p.stride >> 16);
  const int py = int(p.pad & 0xffffu), px = int(p.pad >> 16);
  [[unroll]] for (uint l = 0u; l < A_SLOTS; ++l) {
    const uint m = tile_m0 + a_row(l);
    a_live[l] = m < p.M;
    const uint ox = m % p.OW, t = m / p.OW;
    const uint oy = t % p.OH, n = t / p.OH;
    a_base[l] = p.off_in + n * p.in_sn + batch_index() * p.ICg * p.in_sc;
    a_y0[l] = int(oy) * sy - py;
    a_x0[l] = int(ox) * sx - px;
  }
}

// (tap, input channel) of K index k0 + kk.
uvec2 tap_ic(uint k0, uint kk) {
  if ((FLAGS & kFlagAlignedK) != 0u) {
    const uint tap = k0 / p.ICg;
    return uvec2(tap, k0 - tap * p.ICg + kk);
  }
  const uint k = k0 + kk, tap = k / p.ICg;
  return uvec2(tap, k - tap * p.ICg);
}

float load_a(uint l, uint k0, uint kk) {
  if (!a_live[l] || (k_check && k0 + kk >= k_end)) return 0.0;
  const uvec2 ti = tap_ic(k0, kk);
  const uint ky = ti.x / p.KW, kx = ti.x - ky * p.KW;
  const int iy = a_y0[l] + int(ky * (p.dilation & 0xffffu));
  const int ix = a_x0[l] + int(kx * (p.dilation >> 16));
  if (iy < 0 || iy >= int(p.IH) || ix < 0 || ix >= int(p.IW)) return 0.0;
  return x[a_base[l] + uint(iy) * p.in_sh + uint(ix) * p.in_sw + ti.y * p.in_sc];
}

float load_b(uint k0, uint kk, uint n_local) {
  const uint n = tile_n0 + n_local;
  if ((k_check && k0 + kk >= k_end) || n >= p.OCg) return 0.0;
  const uvec2 ti = tap_ic(k0, kk);
  return w[p.off_w + (batch_index() * p.OCg + n) * p.w_oc + ti.y * p.w_ic + ti.x * p.w_tap];
}

void main() {
  if (!locate_tile(p.M, p.OCg)) return;
  init_a_slots();
  gemm_main_loop(p.K);
  if (!split_k_reduce()) return;
  const uint tm = tile_row(), tn = tile_col();
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = tile_m0 + tm + i * THREADS_M;
    if (m >= p.M) continue;
    const uint ox = m % p.OW, t = m / p.OW;
    const uint oy = t % p.OH, n = t / p.OH;
    const uint pos = n * p.out_sn + oy * p.out_sh + ox * p.out_sw;
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      const uint c = tile_n0 + tn + j * THREADS_N;
      if (c >= p.OCg) continue;
      const uint oc = batch_index() * p.OCg + c;
      float v = acc[i][j];
      if ((FLAGS & kFlagBias) != 0u) v += bias[p.off_bias + oc * p.bias_stride];
      const uint o = pos + oc * p.out_sc;
      if ((FLAGS & kFlagResidual) != 0u) v += res[p.off_res + o];
      y[p.off_out + o] = activation(ACT, v, p.lo, p.hi);
    }
  }
}
