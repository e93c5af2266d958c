#version 450
// upsample_nearest2d (MODE 0) and upsample_bilinear2d (MODE 1) over NCHW planes, one invocation
// per output element, with PyTorch's fp32 index arithmetic (ops::Upsample2d).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint MODE = 0;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint in_h;
  uint in_w;
  uint out_h;
  uint out_w;
  float scale_h;
  float scale_w;
  uint align_corners;
} params;

uint nearest_source(uint dst, uint in_size, uint out_size, float scale) {
  if (out_size == in_size) return dst;
  if (out_size == 2u * in_size) return dst >> 1;
  return min(uint(floor(float(dst) * scale)), in_size - 1u);
}

// The first tap of a linear sample; `w1` gets the second tap's weight.
uint linear_source(uint dst, float scale, out float w1) {
  // fma rounds scale*(dst+0.5)-0.5 once, as PyTorch's double expression rounded to fp32.
  const float src = params.align_corners != 0u ? scale * float(dst) : max(fma(scale, float(dst) + 0.5, -0.5), 0.0);
  const uint i0 = uint(src);
  w1 = src - float(i0);
  return i0;
}

void main() {
  const uint i = linear_index();
  if (i >= params.n) return;
  const uint ox = i % params.out_w;
  const uint oy = (i / params.out_w) % params.out_h;
  const uint base = (i / (params.out_w * params.out_h)) * params.in_h * params.in_w;
  if (MODE == 0) {
    const uint sy = nearest_source(oy, params.in_h, params.out_h, params.scale_h);
    const uint sx = nearest_source(ox, params.in_w, params.out_w, params.scale_w);
    y[i] = x[base + sy * params.in_w + sx];
    return;
  }
  float hw1, ww1;
  const uint h0 = linear_source(oy, params.scale_h, hw1);
  const uint w0 = linear_source(ox, params.scale_w, ww1);
  const uint h1 = h0 + (h0 < params.in_h - 1u ? 1u : 0u);
  const uint w1 = w0 + (w0 < params.in_w - 1u ? 1u : 0u);
  const float hw0 = 1.0 - hw1, ww0 = 1.0 - ww1;
  const uint r0 = base + h0 * params.in_w, r1 = base + h1 * params.in_w;
  y[i] = hw0 * (ww0 * x[r0 + w0] + ww1 * x[r0 + w1]) + hw1 * (ww0 * x[r1 + w0] + ww1 * x[r1 + w1]);
}
