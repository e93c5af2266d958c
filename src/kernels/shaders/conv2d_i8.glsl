// 2-d convolution of int8 tensors with int32 accumulation (TOSA 1.0 CONV2D / DEPTHWISE_CONV2D,
// and a fully connected layer as a 1x1 CONV2D), with the requantization fused:
//   acc = sum over in-bounds taps (in - input_zp) * (w - weight_zp) + bias
//   out = requant ? clamp(apply_scale(clamp(acc, acc_lo, acc_hi), m[c], s[c]) + output_zp, out_lo, out_hi)
//                 : clamp(acc, acc_lo, acc_hi)        (int8 output, or int32 without requant)
// and, with a table (an int8 TABLE after the requantization), out = table[out + 128]; with a
// residual, out = residual_add(out, skip[n, oc, oy, ox]) (requantize.glsl, kernels::Residual).
// for any input/output element strides, weight strides (output channel, input channel, tap) and
// groups (a depthwise convolution is groups = channels with one input channel per group).
// The reduction walks K = KH*KW*(C/groups) tap-major in chunks of 4 packed into a uint, so the
// multiply is one integer dot product per chunk (dot4: OpSDot of SPV_KHR_integer_dot_product in
// the UNIVK_DOT variant, four multiplies in the plain one). The zero points come out of the
// sum: sum (x - zx)(w - zw) = sum xw - zw sum x - zx sum w + K zx zw, with the input's padding
// read as zx (so it contributes 0) and K's tail as 0 in both operands.
// Each invocation computes TM output positions x TN output channels of one group straight from
// the buffers (no shared memory): workgroup x over M / (64 TM), y over OCg / TN, z the group.
// Bindings, push constants and the output epilogue: conv2d_i8_io.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "kernels/shaders/conv2d_i8_io.glsl"

#ifdef UNIVK_DOT
#extension GL_EXT_spirv_intrinsics : require
// OpSDot (4450) with PackedVectorFormat4x8Bit (0): capabilities DotProductInput4x8BitPacked
// (6019) and DotProduct (6018).
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot_packed(uint x, uint y, spirv_literal int fmt);
int dot4(uint a, uint b) { return sdot_packed(a, b, 0); }
#else
int dot4(uint a, uint b) {
  const ivec4 x = ivec4(unpack8(int(a))), y = ivec4(unpack8(int(b)));
  return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}
#endif

layout(local_size_x = 64) in;
layout(constant_id = 1) const uint TM = 4u;
layout(constant_id = 2) const uint TN = 4u;

void main() {
  const uint m0 = gl_GlobalInvocationID.x * TM;
  if (m0 >= p.M) return;
  const uint n0 = gl_WorkGroupID.y * TN;
  const uint g = gl_WorkGroupID.z;
  const int in_zp = bitfieldExtract(int(p.zero_points), 0, 16);
  const int w_zp = bitfieldExtract(int(p.zero_points), 16, 16);
  const uint pad_word = uint(in_zp & 0xff) * 0x01010101u;
  const int sy = int(p.stride & 0xffffu), sx = int(p.stride >> 16);
  const int py = int(p.pad & 0xffffu), px = int(p.pad >> 16);
  const int dy = int(p.dilation & 0xffffu), dx = int(p.dilation >> 16);

  // Per output position: its image's (and group's) input offset, the window's top-left corner.
  uint a_base[TM];
  int a_y0[TM], a_x0[TM];
  bool a_live[TM];
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = m0 + i;
    a_live[i] = m < p.M;
    const uint ox = m % p.OW, t = m / p.OW;
    const uint oy = t % p.OH, n = t / p.OH;
    a_base[i] = p.off_in + n * p.in_sn + g * p.ICg * p.in_sc;
    a_y0[i] = int(oy) * sy - py;
    a_x0[i] = int(ox) * sx - px;
  }
  // Per output channel: its weight row.
  uint b_base[TN];
  bool b_live[TN];
  [[unroll]] for (uint j = 0u; j < TN; ++j) {
    b_live[j] = n0 + j < p.OCg;
    b_base[j] = p.off_w + (g * p.OCg + n0 + j) * p.w_oc;
  }

  int acc[TM][TN];
  int sum_x[TM], sum_w[TN];
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    sum_x[i] = 0;
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = 0;
  }
  [[unroll]] for (uint j = 0u; j < TN; ++j) sum_w[j] = 0;

  for (uint k0 = 0u; k0 < p.K; k0 += 4u) {
    uint xa[TM], wb[TN];
    if (ALIGNED_K) {
      // ICg is a multiple of 4: the chunk is 4 channels of one tap.
      const uint tap = k0 / p.ICg, ic0 = k0 - tap * p.ICg;
      const uint ky = tap / p.KW, kx = tap - ky * p.KW;
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        const int iy = a_y0[i] + int(ky) * dy, ix = a_x0[i] + int(kx) * dx;
        if (!a_live[i] || uint(iy) >= p.IH || uint(ix) >= p.IW) {
          xa[i] = pad_word;
          continue;
        }
        const uint at = a_base[i] + uint(iy) * p.in_sh + uint(ix) * p.in_sw + ic0 * p.in_sc;
        if ((FLAGS & kWordsIn) != 0u) {
          xa[i] = xw[at / 4u];
        } else {
          xa[i] = 0u;
          [[unroll]] for (uint e = 0u; e < 4u; ++e) xa[i] |= (uint(int(x[at + e * p.in_sc])) & 0xffu) << (8u * e);
        }
      }
      [[unroll]] for (uint j = 0u; j < TN; ++j) {
        const uint at = b_base[j] + ic0 * p.w_ic + tap * p.w_tap;
        if (!b_live[j]) {
          wb[j] = 0u;
        } else if ((FLAGS & kWordsWeight) != 0u) {
          wb[j] = ww[at / 4u];
        } else {
          wb[j] = 0u;
          [[unroll]] for (uint e = 0u; e < 4u; ++e) wb[j] |= (uint(int(w[at + e * p.w_ic])) & 0xffu) << (8u * e);
        }
      }
    } else {
      [[unroll]] for (uint i = 0u; i < TM; ++i) xa[i] = 0u;
      [[unroll]] for (uint j = 0u; j < TN; ++j) wb[j] = 0u;
      [[unroll]] for (uint e = 0u; e < 4u; ++e) {
        const uint k = k0 + e;
        if (k >= p.K) break;
        const uint tap = k / p.ICg, ic = k - tap * p.ICg;
        const uint ky = tap / p.KW, kx = tap - ky * p.KW;
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
          const int iy = a_y0[i] + int(ky) * dy, ix = a_x0[i] + int(kx) * dx;
          const bool inside = a_live[i] && uint(iy) < p.IH && uint(ix) < p.IW;
          const int v = inside ? int(x[a_base[i] + uint(iy) * p.in_sh + uint(ix) * p.in_sw + ic * p.in_sc]) : in_zp;
          xa[i] |= (uint(v) & 0xffu) << (8u * e);
        }
        [[unroll]] for (uint j = 0u; j < TN; ++j) {
          const int v = b_live[j] ? int(w[b_base[j] + ic * p.w_ic + tap * p.w_tap]) : 0;
          wb[j] |= (uint(v) & 0xffu) << (8u * e);
        }
      }
    }
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] += dot4(xa[i], wb[j]);
    }
    if (w_zp != 0) {
      [[unroll]] for (uint i = 0u; i < TM; ++i) sum_x[i] += dot4(xa[i], 0x01010101u);
    }
    if (in_zp != 0) {
      [[unroll]] for (uint j = 0u; j < TN; ++j) sum_w[j] += dot4(wb[j], 0x01010101u);
    }
  }

  const int zz = int(p.K) * in_zp * w_zp;
  [[unroll]] for (uint j = 0u; j < TN; ++j) {
    if (!b_live[j]) continue;
    const uint oc = g * p.OCg + n0 + j;
    const ChannelEpilogue c = channel_epilogue(oc);
    const int b = zz - in_zp * sum_w[j];
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      if (a_live[i]) store_output(m0 + i, oc, acc[i][j] - w_zp * sum_x[i] + b, c);
    }
  }
}
