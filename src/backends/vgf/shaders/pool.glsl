// AVG_POOL2D / MAX_POOL2D (TOSA 1.0, fp32 or fp16 storage, fp32 math) with a fused elementwise
// epilogue. The includer defines SCALAR (the stored type), PAIR and QUAD (its 2- and 4-vectors).
// Every tensor is addressed through NHWC-logical strides, so a TRANSPOSE before or after the
// pool (NCHW model boundary) is folded into the indexing.
// AVG divides by the number of in-bounds taps (padding is not counted); MAX ignores padding.
// Bindings: 1 output, 2 pool input, 3..5 epilogue inputs (program input slots 1..3).
// Params after 5 base words: P[5] output count, P[6..9] output dims (N,OH,OW,C),
// P[10..13] output strides, P[14..17] input strides, P[18..19] IH,IW, P[20..21] kernel y,x,
// P[22..23] stride y,x, P[24..25] pad top,left, P[26 + 4(k-1) ..] epilogue input k strides.
// NCHW_ORDER picks how the linear invocation index maps to output coordinates: 1 = (n, c, oy, ox)
// with ox fastest, for outputs stored NCHW (the TOSA graph's NHWC seen through folded
// TRANSPOSEs), so neighbouring invocations touch neighbouring addresses; 0 = (n, oy, ox, c).
// KERNEL_Y/KERNEL_X repeat P[20..21] and OUT_H/OUT_W/OUT_C repeat P[7..9] as specialization
// constants, so the tap loops unroll (runtime-bounded loops are several times slower on
// lavapipe) and the index decomposition divides by constants (multiply-shift, not a udiv).
// Large windows (global pools) would unroll into thousands of taps and take the driver's
// compiler minutes: for them the emitter sets KERNEL_Y = KERNEL_X = 0 and the taps run in loops
// bounded by P[20..21] at run time (no PAIR_X/QUAD_X/QUAD_LOAD/QUAD_C then).
// PAIR_X: 2-wide windows at stride 2 with no horizontal padding over an input whose W stride
// is 1 and whose other strides and base are even: a row's two taps are one PAIR load (the
// emitter sets it from the geometry, the recorder clears it when the input's base word is odd).
// QUAD_X: each invocation computes 4 consecutive outputs along ox (order (n, c, oy, ox/4)) and
// writes them with one QUAD store; needs output W stride 1, OW % 4 == 0 and every other output
// stride and the output base divisible by 4 (the recorder clears it, and dispatches 4x the
// invocations, when the base is not). The epilogue runs once on the 4 lanes; EPILOGUE_QUAD bit
// k-1 makes epilogue input k one QUAD load (its W stride 1, other strides and base divisible by
// 4; the recorder clears a bit whose base is not), else 4 scalar loads.
// QUAD_C (channels-last, NCHW_ORDER 0): each invocation computes 4 consecutive channels of one
// output position (order (n, oy, ox, c/4)): one QUAD load per tap and one QUAD store; needs the
// input's and output's C stride 1, OUT_C % 4 == 0, and every other stride and both bases
// divisible by 4 (the recorder clears it, and dispatches 4x the invocations, when a base is
// not). EPILOGUE_QUAD applies as for QUAD_X, with the C stride in place of the W stride; an
// input without it takes 4 scalar loads along C. Never set together with QUAD_X.
// QUAD_LOAD (with QUAD_X and PAIR_X's geometry, input strides and base divisible by 4): a row's
// 8 taps of the 4 windows are two QUAD loads. Every path adds and compares the taps of a window
// in the same order (rows, then columns), so the results are bitwise those of the scalar path.
layout(local_size_x = 256) in;

layout(constant_id = 0) const uint IS_MAX = 0;
layout(constant_id = 1) const uint NUM_INPUTS = 1;  // 1 + epilogue inputs
layout(constant_id = 2) const uint NCHW_ORDER = 0;
layout(constant_id = 3) const uint KERNEL_Y = 1;
layout(constant_id = 4) const uint KERNEL_X = 1;
layout(constant_id = 5) const uint OUT_H = 1;
layout(constant_id = 6) const uint OUT_W = 1;
layout(constant_id = 7) const uint OUT_C = 1;
// 8..81 belong to the epilogue program.
layout(constant_id = 90) const uint PAIR_X = 0;
layout(constant_id = 91) const uint QUAD_X = 0;
layout(constant_id = 92) const uint QUAD_LOAD = 0;
layout(constant_id = 93) const uint EPILOGUE_QUAD = 0;
layout(constant_id = 94) const uint QUAD_C = 0;

// Invocations per output row in QUAD_X mode (1 otherwise, so no division by 0 is specialised).
const uint QUADS_W = QUAD_X != 0u ? OUT_W / 4u : 1u;
// Invocations per output position in QUAD_C mode, likewise.
const uint QUADS_C = QUAD_C != 0u ? OUT_C / 4u : 1u;
// Whether an invocation computes 4 outputs (along ox or along c).
const bool FOUR_OUTPUTS = QUAD_X != 0u || QUAD_C != 0u;

layout(std430, set = 0, binding = 1) writeonly buffer Out { SCALAR O[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutQuad { QUAD OQ[]; };
layout(std430, set = 0, binding = 2) readonly buffer In0 { SCALAR I0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In0Pair { PAIR I0P[]; };
layout(std430, set = 0, binding = 2) readonly buffer In0Quad { QUAD I0Q[]; };
layout(std430, set = 0, binding = 3) readonly buffer In1 { SCALAR I1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In1Quad { QUAD I1Q[]; };
layout(std430, set = 0, binding = 4) readonly buffer In2 { SCALAR I2[]; };
layout(std430, set = 0, binding = 4) readonly buffer In2Quad { QUAD I2Q[]; };
layout(std430, set = 0, binding = 5) readonly buffer In3 { SCALAR I3[]; };
layout(std430, set = 0, binding = 5) readonly buffer In3Quad { QUAD I3Q[]; };

#include "shaders/ew_program.glsl"

float load_epilogue(uint k, uint i) {
  switch (k) {
    case 1u: return float(I1[i]);
    case 2u: return float(I2[i]);
  }
  return float(I3[i]);
}

vec4 load_epilogue_quad(uint k, uint i4) {
  switch (k) {
    case 1u: return vec4(I1Q[i4]);
    case 2u: return vec4(I2Q[i4]);
  }
  return vec4(I3Q[i4]);
}

// MAX_POOL2D propagates NaN (nan_mode PROPAGATE): GLSL's max is undefined for a NaN operand.
float max_nan(float acc, float v) { return isnan(acc) ? acc : (isnan(v) ? v : max(acc, v)); }
vec4 max_nan4(vec4 acc, vec4 v) { return mix(mix(max(acc, v), v, isnan(v)), acc, isnan(acc)); }
float fold_tap(float acc, float v) { return IS_MAX != 0u ? max_nan(acc, v) : acc + v; }
vec4 fold_tap4(vec4 acc, vec4 v) { return IS_MAX != 0u ? max_nan4(acc, v) : acc + v; }

// One output window at (y0, x0) of the image/channel starting at in_base.
float pool_window(uint in_base, int y0, int x0, out uint count) {
  float acc = IS_MAX != 0u ? uintBitsToFloat(0xff800000u) : 0.0;
  count = 0u;
  [[unroll]] for (uint ky = 0u; ky < KERNEL_Y; ++ky) {
    const int iy = y0 + int(ky);
    if (iy < 0 || iy >= int(P[18])) continue;
    if (PAIR_X != 0u) {
      const vec2 v = vec2(I0P[(in_base + uint(iy) * P[15] + uint(x0)) / 2u]);
      acc = fold_tap(fold_tap(acc, v.x), v.y);
      count += 2u;
      continue;
    }
    [[unroll]] for (uint kx = 0u; kx < KERNEL_X; ++kx) {
      const int ix = x0 + int(kx);
      if (ix < 0 || ix >= int(P[19])) continue;
      acc = fold_tap(acc, float(I0[in_base + uint(iy) * P[15] + uint(ix) * P[16]]));
      ++count;
    }
  }
  return acc;
}

// pool_window for KERNEL_Y == 0: P[20] x P[21] taps in runtime-bounded loops over the in-bounds
// rows and columns, in the same order as the unrolled path.
float pool_window_loop(uint in_base, int y0, int x0, out uint count) {
  float acc = IS_MAX != 0u ? uintBitsToFloat(0xff800000u) : 0.0;
  const int y_begin = max(y0, 0), y_end = min(y0 + int(P[20]), int(P[18]));
  const int x_begin = max(x0, 0), x_end = min(x0 + int(P[21]), int(P[19]));
  [[dont_unroll]] for (int iy = y_begin; iy < y_end; ++iy) {
    const uint row = in_base + uint(iy) * P[15];
    [[dont_unroll]] for (int ix = x_begin; ix < x_end; ++ix) acc = fold_tap(acc, float(I0[row + uint(ix) * P[16]]));
  }
  count = uint(max(y_end - y_begin, 0) * max(x_end - x_begin, 0));
  return acc;
}

// QUAD_C: the window at (y0, x0) of 4 consecutive channels, the first at in_base (a multiple
// of 4), in pool_window's tap order.
vec4 pool_window_channels(uint in_base, int y0, int x0, out uint count) {
  vec4 acc = IS_MAX != 0u ? vec4(uintBitsToFloat(0xff800000u)) : vec4(0.0);
  count = 0u;
  [[unroll]] for (uint ky = 0u; ky < KERNEL_Y; ++ky) {
    const int iy = y0 + int(ky);
    if (iy < 0 || iy >= int(P[18])) continue;
    [[unroll]] for (uint kx = 0u; kx < KERNEL_X; ++kx) {
      const int ix = x0 + int(kx);
      if (ix < 0 || ix >= int(P[19])) continue;
      acc = fold_tap4(acc, vec4(I0Q[(in_base + uint(iy) * P[15] + uint(ix) * P[16]) / 4u]));
      ++count;
    }
  }
  return acc;
}

// The 4 windows at x0, x0 + stride, ... of a QUAD_LOAD row pair: taps (2j, 2j+1) of each row
// belong to window j.
vec4 pool_quad_windows(uint in_base, int y0, int x0, out uint count) {
  vec4 acc = IS_MAX != 0u ? vec4(uintBitsToFloat(0xff800000u)) : vec4(0.0);
  count = 0u;
  [[unroll]] for (uint ky = 0u; ky < KERNEL_Y; ++ky) {
    const int iy = y0 + int(ky);
    if (iy < 0 || iy >= int(P[18])) continue;
    const uint q = (in_base + uint(iy) * P[15] + uint(x0)) / 4u;
    const vec4 a = vec4(I0Q[q]), b = vec4(I0Q[q + 1u]);
    acc = fold_tap4(fold_tap4(acc, vec4(a.x, a.z, b.x, b.z)), vec4(a.y, a.w, b.y, b.w));
    count += 2u;
  }
  return acc;
}

void main() {
  const uint total = P[5];
  const uint e = invocation_index();
  const uint lanes = QUAD_X != 0u ? 4u : 1u;  // windows along ox
  if (e >= total / (FOUR_OUTPUTS ? 4u : 1u)) return;
  uint rest = e, c, ox, oy;
  if (QUAD_X != 0u) {
    ox = (rest % QUADS_W) * 4u; rest /= QUADS_W;
    oy = rest % OUT_H; rest /= OUT_H;
    c = rest % OUT_C; rest /= OUT_C;
  } else if (QUAD_C != 0u) {
    c = (rest % QUADS_C) * 4u; rest /= QUADS_C;
    ox = rest % OUT_W; rest /= OUT_W;
    oy = rest % OUT_H; rest /= OUT_H;
  } else if (NCHW_ORDER != 0u) {
    ox = rest % OUT_W; rest /= OUT_W;
    oy = rest % OUT_H; rest /= OUT_H;
    c = rest % OUT_C; rest /= OUT_C;
  } else {
    c = rest % OUT_C; rest /= OUT_C;
    ox = rest % OUT_W; rest /= OUT_W;
    oy = rest % OUT_H; rest /= OUT_H;
  }
  const uint n = rest;
  const int y0 = int(oy * P[22]) - int(P[24]);
  const int x0 = int(ox * P[23]) - int(P[25]);
  const uint in_base = P[1] + n * P[14] + c * P[17];
  vec4 pooled = vec4(0.0);
  if (QUAD_X != 0u && QUAD_LOAD != 0u) {
    uint count;
    const vec4 acc = pool_quad_windows(in_base, y0, x0, count);
    pooled = IS_MAX != 0u ? acc : acc / float(count);
  } else if (QUAD_C != 0u) {
    uint count;
    const vec4 acc = pool_window_channels(in_base, y0, x0, count);
    pooled = IS_MAX != 0u ? acc : acc / float(count);
  } else {
    [[unroll]] for (uint j = 0u; j < lanes; ++j) {
      uint count;
      const int x = x0 + int(j * P[23]);
      const float acc = KERNEL_Y == 0u ? pool_window_loop(in_base, y0, x, count) : pool_window(in_base, y0, x, count);
      pooled[j] = IS_MAX != 0u ? acc : acc / float(count);
    }
  }
  R[0] = FOUR_OUTPUTS ? pooled : vec4(pooled.x);
  [[unroll]] for (uint k = 1u; k < 4u; ++k) {
    if (k >= NUM_INPUTS) continue;
    const uint s = 26u + 4u * (k - 1u);
    const uint base = P[1u + k] + n * P[s] + oy * P[s + 1u] + ox * P[s + 2u] + c * P[s + 3u];
    if (FOUR_OUTPUTS && ((EPILOGUE_QUAD >> (k - 1u)) & 1u) != 0u) {
      X[k] = load_epilogue_quad(k, base / 4u);
      continue;
    }
    vec4 x = vec4(load_epilogue(k, base));
    const uint step = QUAD_X != 0u ? P[s + 2u] : P[s + 3u];  // along ox or c
    if (FOUR_OUTPUTS)
      [[unroll]] for (uint j = 1u; j < 4u; ++j) x[j] = load_epilogue(k, base + j * step);
    X[k] = x;
  }
  ew_run();
  const uint out_index = P[0] + n * P[10] + oy * P[11] + ox * P[12] + c * P[13];
  if (FOUR_OUTPUTS)
    OQ[out_index / 4u] = QUAD(ew_result());
  else
    O[out_index] = SCALAR(ew_result().x);
}
