#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Direct 2-d convolution for few input channels, fp32 (kernels::Kernel::kConv2dStemF32; the
// planner takes it on GPUs for the stems of conv nets, 3 channels under a 7x7 or 3x3 window,
// where the implicit GEMM's K of 147 or 27 divides into no slice and every element of its tiles
// costs index arithmetic):
//   out[n, oc, oy, ox] = act(sum_{c, ky, kx} in[n, c, oy*SY - pad + ky*DY, ox*SX - pad + kx*DX]
//                        * w[oc, c, ky, kx] + bias[oc] + residual[n, oc, oy, ox])
// for groups of 1 and any element strides of input, output and weight.
//
// A workgroup computes BPW blocks of BH x BW output positions of one image, one after the
// other, for BN = 4 * CG * TN4 output channels. It stages the weight for its channels in shared
// memory once (every kernel row where the rows fit beside the window, RS = KH; else RS rows at a
// time, again for each block), and for each block the block's input window (C x PH x PW floats,
// zeros in the padding). Both copies issue 8 loads per invocation before their 8 shared stores,
// so an invocation waits on one load latency per 8 elements rather than per element.
// Invocation (pg, cg) owns TX consecutive positions of one output row and the vec4s of channels
// cg, cg + CG, ... (TN4 of them), cg varying fastest across invocations: a warp's weight reads
// are consecutive vec4s, free of bank conflicts, and its NHWC stores consecutive bytes. (With pg
// fastest instead, for NCHW outputs, the H200 ran the batch-32 7x7 stem within 1% with NCHW
// output and 13% slower with NHWC.)
// For each kernel row and input channel an invocation reads the SPAN window values its TX
// positions need under all KW taps once into registers, then multiplies each tap's weight vec4s
// with them: per SPAN + KW * TN4 shared reads, KW * TX * TN4 vec4 multiply-adds.
// The stores as conv_store_f32.glsl says.
// Bindings: 0 input, 1 weight, 2 bias, 3 out, 4 residual (out's strides), 5 scratch (unused).
// The push-constant layout is kernels::Conv2dPush (its kernel width is KW here).
#include "kernels/shaders/activation.glsl"
#include "kernels/shaders/conv_push.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CG = 8;   // channel groups: invocations per position group
layout(constant_id = 2) const uint TX = 4;   // consecutive output positions per invocation
layout(constant_id = 3) const uint BW = 16;  // output columns of the block, a multiple of TX
layout(constant_id = 4) const uint TN4 = 2;  // vec4s of output channels per invocation
layout(constant_id = 5) const uint C = 3;    // input channels
layout(constant_id = 6) const uint ACT = 0;
layout(constant_id = 7) const uint FLAGS = 0;
layout(constant_id = 8) const uint KH = 7;
layout(constant_id = 9) const uint KW = 7;
layout(constant_id = 10) const uint SY = 2;
layout(constant_id = 11) const uint SX = 2;
layout(constant_id = 12) const uint DY = 1;
layout(constant_id = 13) const uint DX = 1;
layout(constant_id = 14) const uint RS = 7;   // kernel rows per staged weight chunk
layout(constant_id = 15) const uint BPW = 1;  // blocks per workgroup

layout(set = 0, binding = 0) readonly buffer In { float src[]; };
layout(set = 0, binding = 1) readonly buffer Weight { float w[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_out, off_res;
  UNIVK_CONV_PUSH_GEOMETRY
  uint bias_stride;  // 0: one bias value for every channel
  float lo, hi;
} p;
#include "kernels/shaders/conv_store_f32.glsl"

const uint WG = gl_WorkGroupSize.x;
const uint PGX = BW / TX;          // position groups per block row
const uint BH = WG / CG / PGX;     // block rows
const uint BN4 = CG * TN4;         // vec4s of output channels per block
const uint PH = (BH - 1u) * SY + (KH - 1u) * DY + 1u;  // input window rows
const uint PW = (BW - 1u) * SX + (KW - 1u) * DX + 1u;  // input window columns
const uint SPAN = (TX - 1u) * SX + (KW - 1u) * DX + 1u;

shared float window[C * PH * PW];          // [c][row][column]
shared vec4 Ws[RS * KW * C * BN4];         // [(ky - ky0) * KW + kx][c][vec4 of channels]

const uint LOADS = 8u;    // loads in flight per invocation while copying to shared memory

uint ceil_div(uint a, uint b) { return (a + b - 1u) / b; }

// Element e of the block's input window from input row iy0 and column ix0 (either may be
// negative: padding).
float window_element(uint image_at, int iy0, int ix0, uint e) {
  const uint col = e % PW, t = e / PW;
  const uint row = t % PH, c = t / PH;
  const int iy = iy0 + int(row), ix = ix0 + int(col);
  const bool inside = iy >= 0 && iy < int(p.IH) && ix >= 0 && ix < int(p.IW);
  return inside ? src[image_at + c * p.in_sc + uint(iy) * p.in_sh + uint(ix) * p.in_sw] : 0.0;
}

void load_window(uint image_at, int iy0, int ix0) {
  const uint count = C * PH * PW;
  for (uint e0 = gl_LocalInvocationID.x; e0 < count; e0 += LOADS * WG) {
    float v[LOADS];
    [[unroll]] for (uint j = 0u; j < LOADS; ++j) {
      const uint e = e0 + j * WG;
      v[j] = e < count ? window_element(image_at, iy0, ix0, e) : 0.0;
    }
    [[unroll]] for (uint j = 0u; j < LOADS; ++j) {
      if (e0 + j * WG < count) window[e0 + j * WG] = v[j];
    }
  }
}

// Element e of kernel rows ky0 .. ky0 + RS - 1 of the weight for output channels
// n0 .. n0 + 4 * BN4 - 1 (zero past the kernel's rows and past N), and its place in Ws: index and
// component. The walk follows whichever of the channel and the tap is contiguous in the weight,
// so the loads coalesce.
float weight_element(uint ky0, uint n0, uint e, out uint slot) {
  const bool n_fast = p.w_oc == 1u;
  const uint nn = n_fast ? e % (4u * BN4) : e / (RS * KW * C);
  const uint r = n_fast ? e / (4u * BN4) : e % (RS * KW * C);  // ((ky - ky0) * KW + kx) * C + c
  const uint c = r % C, tap = ky0 * KW + r / C;
  const uint n = n0 + nn;
  slot = (r * BN4 + nn / 4u) * 4u + nn % 4u;
  return tap < KH * KW && n < p.OCg ? w[p.off_w + n * p.w_oc + c * p.w_ic + tap * p.w_tap] : 0.0;
}

void stage_weight(uint ky0, uint n0) {
  const uint count = RS * KW * C * 4u * BN4;
  for (uint e0 = gl_LocalInvocationID.x; e0 < count; e0 += LOADS * WG) {
    float v[LOADS];
    uint slot[LOADS];
    [[unroll]] for (uint j = 0u; j < LOADS; ++j) {
      const uint e = e0 + j * WG;
      v[j] = e < count ? weight_element(ky0, n0, e, slot[j]) : 0.0;
    }
    [[unroll]] for (uint j = 0u; j < LOADS; ++j) {
      if (e0 + j * WG < count) Ws[slot[j] / 4u][slot[j] % 4u] = v[j];
    }
  }
}

void main() {
  const uint column_blocks = ceil_div(p.OW, BW);
  const uint blocks = ceil_div(p.OH, BH) * column_blocks;
  const uint image = gl_WorkGroupID.z;
  const uint n0 = gl_WorkGroupID.y * 4u * BN4;
  const uint lid = gl_LocalInvocationID.x;
  const uint cg = lid % CG, pg = lid / CG;
  const uint row = pg / PGX, column = (pg % PGX) * TX;  // within the block
  const int pad_y = int(p.pad & 0xffffu), pad_x = int(p.pad >> 16);
  const uint first = gl_WorkGroupID.x * BPW, last = min(first + BPW, blocks);

  for (uint block = first; block < last; ++block) {
    const uint by = block / column_blocks, bx = block % column_blocks;
    if (block > first) barrier();  // every invocation is done with the previous block's window
    load_window(p.off_in + image * p.in_sn, int(by * BH * SY) - pad_y, int(bx * BW * SX) - pad_x);

    vec4 acc[TX][TN4];
    [[unroll]] for (uint t = 0u; t < TX; ++t) {
      [[unroll]] for (uint q = 0u; q < TN4; ++q) acc[t][q] = vec4(0.0);
    }
    for (uint ky0 = 0u; ky0 < KH; ky0 += RS) {
      // The whole weight is staged once per workgroup; chunks of it again for every block.
      if (RS < KH || block == first) {
        if (ky0 > 0u) barrier();  // every invocation is done with the previous chunk
        stage_weight(ky0, n0);
      }
      barrier();  // the chunk and the window
      for (uint r = 0u; r < RS && ky0 + r < KH; ++r) {
        const uint window_row = row * SY + (ky0 + r) * DY;
        [[unroll]] for (uint c = 0u; c < C; ++c) {
          const uint at = (c * PH + window_row) * PW + column * SX;
          float v[SPAN];
          [[unroll]] for (uint i = 0u; i < SPAN; ++i) v[i] = window[at + i];
          [[unroll]] for (uint kx = 0u; kx < KW; ++kx) {
            const uint wr = ((r * KW + kx) * C + c) * BN4 + cg;
            vec4 b[TN4];
            [[unroll]] for (uint q = 0u; q < TN4; ++q) b[q] = Ws[wr + q * CG];
            [[unroll]] for (uint t = 0u; t < TX; ++t) {
              const float a = v[t * SX + kx * DX];
              [[unroll]] for (uint q = 0u; q < TN4; ++q) acc[t][q] = fma(vec4(a), b[q], acc[t][q]);
            }
          }
        }
      }
    }

    const uint oy = by * BH + row;
    [[unroll]] for (uint q = 0u; q < TN4; ++q) {
      const uint n = n0 + 4u * (q * CG + cg);
      [[unroll]] for (uint t = 0u; t < TX; ++t) {
        const uint ox = bx * BW + column + t;
        if (oy < p.OH && ox < p.OW && n < p.OCg) {
          store_channels(image * p.out_sn + oy * p.out_sh + ox * p.out_sw + n * p.out_sc, n, acc[t][q] + channel_bias(n));
        }
      }
    }
  }
}
