// 2-d convolution of fp32 tensors as an implicit GEMM (the multiply's precision: the variant's
// core), for any input/output layout (NCHW, NHWC or other element strides), weight layout
// (per-element strides of output channel, input channel and tap), stride, dilation, padding and
// groups:
//   out = act(conv(in, w) + bias + residual)
// GEMM view per group g (workgroup z = g * SPLITS + split, gemm_tile.glsl): M = N*OH*OW output positions, N = OC/groups output
// channels, K = KH*KW*(C/groups), walked tap-major (k = tap * ICg + ic) whatever the weight
// layout, so a K slice of an NHWC input is contiguous. When ICg is a multiple of BK
// (kFlagAlignedK) a slice never crosses a tap: prepare_slice decodes its tap once, and each
// element is then a per-row base plus the slice's offset plus its channel (no division per
// element). Otherwise (the 3-channel stems), in the variants with UNIVK_CONV_K_TABLE, a table
// in shared memory holds each K index's decoded offsets for the workgroup's K range
// (build_k_table), so an element costs a table read where it cost two divisions. Vector loads
// (UNIVK_VEC, kFlagVecA/B) need kFlagAlignedK: the input's channels contiguous (A along K), the
// weight's input channels (B along K) or output channels (B along N) contiguous.
// Bindings: 0 input, 1 weight, 2 bias, 3 out, 4 residual (same strides as out), 5 scratch
// (split-K). The push-constant layout is kernels::Conv2dPush.
#include "kernels/shaders/gemm_tile.glsl"
#include "kernels/shaders/activation.glsl"
#include "kernels/shaders/conv_push.glsl"

const uint kFlagAlignedK = 16u;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 0) readonly buffer In4 { vec4 x4[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(set = 0, binding = 1) readonly buffer Weight4 { vec4 w4[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3) writeonly buffer Out { float y[]; };
#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT) && !defined(UNIVK_VEC_8X8)
layout(set = 0, binding = 3) writeonly buffer Out4 { vec4 y4[]; };
#endif
layout(set = 0, binding = 4) readonly buffer Residual { float res[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_res;
  UNIVK_CONV_PUSH_GEOMETRY
  uint bias_stride;            // 0: one bias value for every channel
  float lo, hi;
  uint split_pass;             // split-K's pass (gemm_tile.glsl)
} p;

const bool ALIGNED_K = (FLAGS & kFlagAlignedK) != 0u;

// Per A slot of this invocation (its output position is fixed across slices): the element
// offset of its image and channel group, the top-left input coordinate of its window, and
// (kFlagAlignedK or the K table) the offset of that coordinate's channel 0, modulo 2^32: the
// window may start in the padding, and only in-bounds elements are read, whose offsets wrap back
// into range.
uint a_base[A_SLOTS];
int a_y0[A_SLOTS];
int a_x0[A_SLOTS];
bool a_live[A_SLOTS];
uint a_corner[A_SLOTS];

void init_a_slots() {
  const int sy = int(p.stride & 0xffffu), sx = int(p.stride >> 16);
  const int py = int(p.pad & 0xffffu), px = int(p.pad >> 16);
  [[unroll]] for (uint l = 0u; l < A_LIVE_SLOTS; ++l) {
    const uint m = tile_m0 + a_row(l);
    a_live[l] = m < p.M;
    const uint ox = m % p.OW, t = m / p.OW;
    const uint oy = t % p.OH, n = t / p.OH;
    a_base[l] = p.off_in + n * p.in_sn + batch_index() * p.ICg * p.in_sc;
    a_y0[l] = int(oy) * sy - py;
    a_x0[l] = int(ox) * sx - px;
    a_corner[l] = a_base[l] + uint(a_y0[l]) * p.in_sh + uint(a_x0[l]) * p.in_sw;
  }
}

// The slice being loaded (kFlagAlignedK): its first input channel, its tap's window offset
// (dy, dx), the input offset of (dy, dx) and the weight offset of (first channel, tap).
uint s_ic0;
int s_dy;
int s_dx;
uint s_in_offset;
uint s_w_offset;

void prepare_slice(uint k0) {
  if (!ALIGNED_K) return;
  const uint tap = k0 / p.ICg;
  s_ic0 = k0 - tap * p.ICg;
  const uint ky = tap / p.KW, kx = tap - ky * p.KW;
  s_dy = int(ky * (p.dilation & 0xffffu));
  s_dx = int(kx * (p.dilation >> 16));
  s_in_offset = uint(s_dy) * p.in_sh + uint(s_dx) * p.in_sw + s_ic0 * p.in_sc;
  s_w_offset = p.off_w + s_ic0 * p.w_ic + tap * p.w_tap;
}

// Whether A slot l's window element at the slice's tap is inside the input (kFlagAlignedK).
bool a_inside(uint l) {
  return a_live[l] && uint(a_y0[l] + s_dy) < p.IH && uint(a_x0[l] + s_dx) < p.IW;
}

// (tap, input channel) of K index k (the general path: a division per element).
uvec2 tap_ic(uint k) {
  const uint tap = k / p.ICg;
  return uvec2(tap, k - tap * p.ICg);
}

// The K table (UNIVK_CONV_K_TABLE; without kFlagAlignedK, for K ranges of at most K_TABLE
// indices; 1: none, so that the kernels without it keep their shared memory, plan_conv2d sets
// it): per index k - kt_begin of the workgroup's range, the input offset of its (dy, dx,
// channel) from a window's corner, (dy | dx << 16), and the weight offset of its (channel,
// tap). kt_used is uniform across the workgroup. Only the scalar FMA variant has it: compiled
// into the cooperative-matrix ones it made the H200's batch-32 3x3 convolutions on
// 128x128x16/8x8cv 1.8x slower (at 126 registers per invocation two workgroups share an SM, a
// few more and one does), and on the stem those stayed slower than the FMA variant with it.
#ifdef UNIVK_CONV_K_TABLE
layout(constant_id = 10) const uint K_TABLE = 1u;
shared uint kt_in[K_TABLE];
shared uint kt_yx[K_TABLE];
shared uint kt_w[K_TABLE];
bool kt_used = false;
uint kt_begin;

// Fills the K table for this workgroup's K range; call from uniform control flow before the
// main loop. Leaves it unused when the range is longer than the table or a window offset does
// not fit 16 bits.
void build_k_table() {
  if (ALIGNED_K || K_TABLE == 1u) return;
  const uint chunk = split_chunk(p.K);
  kt_begin = min(p.K, split_index() * chunk);
  const uint count = min(p.K, kt_begin + chunk) - kt_begin;
  const uint dil_y = p.dilation & 0xffffu, dil_x = p.dilation >> 16;
  const uint taps = p.K / p.ICg, kh = taps / p.KW;
  if (count > K_TABLE || (kh - 1u) * dil_y > 0xffffu || (p.KW - 1u) * dil_x > 0xffffu) return;
  kt_used = true;
  for (uint e = gl_LocalInvocationID.x; e < count; e += WG) {
    const uvec2 ti = tap_ic(kt_begin + e);
    const uint ky = ti.x / p.KW, kx = ti.x - ky * p.KW;
    const uint dy = ky * dil_y, dx = kx * dil_x;
    kt_in[e] = dy * p.in_sh + dx * p.in_sw + ti.y * p.in_sc;
    kt_yx[e] = dy | (dx << 16);
    kt_w[e] = ti.y * p.w_ic + ti.x * p.w_tap;
  }
  barrier();
}
#endif

// With kFlagAlignedK a slice ends on a tap boundary, K is a multiple of BK and split-K's ranges
// start on slices, so no slice reaches past k_end: the aligned paths skip the K check.
float load_a(uint l, uint k0, uint kk) {
  if (ALIGNED_K) return a_inside(l) ? x[a_corner[l] + s_in_offset + kk * p.in_sc] : 0.0;
  if (!a_live[l] || (k_check && k0 + kk >= k_end)) return 0.0;
#ifdef UNIVK_CONV_K_TABLE
  if (kt_used) {
    // Offsets modulo 2^32, as a_corner's: only in-bounds elements are read.
    const uint e = k0 + kk - kt_begin, yx = kt_yx[e];
    const bool inside = uint(a_y0[l] + int(yx & 0xffffu)) < p.IH && uint(a_x0[l] + int(yx >> 16)) < p.IW;
    return inside ? x[a_corner[l] + kt_in[e]] : 0.0;
  }
#endif
  const uvec2 ti = tap_ic(k0 + kk);
  const uint ky = ti.x / p.KW, kx = ti.x - ky * p.KW;
  const int iy = a_y0[l] + int(ky * (p.dilation & 0xffffu));
  const int ix = a_x0[l] + int(kx * (p.dilation >> 16));
  if (iy < 0 || iy >= int(p.IH) || ix < 0 || ix >= int(p.IW)) return 0.0;
  return x[a_base[l] + uint(iy) * p.in_sh + uint(ix) * p.in_sw + ti.y * p.in_sc];
}

float load_b(uint k0, uint kk, uint n_local) {
  const uint n = tile_n0 + n_local;
  if (n >= p.OCg) return 0.0;
  const uint row = (batch_index() * p.OCg + n) * p.w_oc;
  if (ALIGNED_K) return w[s_w_offset + row + kk * p.w_ic];
  if (k_check && k0 + kk >= k_end) return 0.0;
#ifdef UNIVK_CONV_K_TABLE
  if (kt_used) return w[p.off_w + row + kt_w[k0 + kk - kt_begin]];
#endif
  const uvec2 ti = tap_ic(k0 + kk);
  return w[p.off_w + row + ti.y * p.w_ic + ti.x * p.w_tap];
}

#ifdef UNIVK_VEC
// Vector loads (kFlagAlignedK; the planner sets kFlagVecA only for contiguous channels,
// in_sc == 1, and every offset and stride a multiple of 4): 4 input channels of the slice's
// tap.
vec4 load_a4(uint l, uint k0, uint kk) {
  return a_inside(l) ? x4[(a_corner[l] + s_in_offset + kk) / 4u] : vec4(0.0);
}

// 4 input channels (w_ic == 1) or, with kFlagBNFast (w_oc == 1), 4 output channels of the
// slice's tap.
vec4 load_b4(uint k0, uint kk, uint n_local) {
  const uint n = tile_n0 + n_local;
  if (n >= p.OCg) return vec4(0.0);
  return w4[(s_w_offset + (batch_index() * p.OCg + n) * p.w_oc + kk * p.w_ic) / 4u];
}
#endif

// The output offset of output position m.
uint out_row(uint m) {
  const uint ox = m % p.OW, t = m / p.OW;
  const uint oy = t % p.OH, n = t / p.OH;
  return n * p.out_sn + oy * p.out_sh + ox * p.out_sw;
}

float residual_at(uint pos, uint c) { return res[p.off_res + pos + (batch_index() * p.OCg + c) * p.out_sc]; }

void store_out(uint pos, uint m, uint c, float v, float r) {
  const uint oc = batch_index() * p.OCg + c;
  if ((FLAGS & kFlagBias) != 0u) v += bias[p.off_bias + oc * p.bias_stride];
  if ((FLAGS & kFlagResidual) != 0u) v += r;
  y[p.off_out + pos + oc * p.out_sc] = activation(ACT, v, p.lo, p.hi);
}

#if defined(UNIVK_VEC) && !defined(UNIVK_COOPMAT) && !defined(UNIVK_VEC_8X8)
// residual_at and store_out for output channels c .. c+3 of the group (kFlagVecOut: the
// channel stride is 1, the output 4-aligned; the residual's offset need not be, so its 4 loads
// are scalar).
vec4 residual4_at(uint pos, uint c) {
  const uint o = p.off_res + pos + batch_index() * p.OCg + c;
  return vec4(res[o], res[o + 1u], res[o + 2u], res[o + 3u]);
}

void store_out4(uint pos, uint m, uint c, vec4 v, vec4 r) {
  const uint oc = batch_index() * p.OCg + c;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    if ((FLAGS & kFlagBias) != 0u) v[j] += bias[p.off_bias + (oc + j) * p.bias_stride];
    if ((FLAGS & kFlagResidual) != 0u) v[j] += r[j];
    v[j] = activation(ACT, v[j], p.lo, p.hi);
  }
  y4[(p.off_out + pos + oc) / 4u] = v;
}
#endif

void main() {
  if (!locate_tile(p.M, p.OCg)) return;
  if (!split_k_sum_pass(p.split_pass)) {
    init_a_slots();
#ifdef UNIVK_CONV_K_TABLE
    build_k_table();
#endif
    gemm_main_loop(p.K);
  }
  if (!split_k_reduce(p.split_pass)) return;
  store_tile(p.M, p.OCg);
}
