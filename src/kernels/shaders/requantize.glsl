// TOSA 1.0's apply_scale_32 (optionally DOUBLE_ROUND) and apply_scale_16, shared by the kernel
// library's int8 epilogue (conv2d_i8.glsl) and the VgfBackend's RESCALE shader: the 64-bit
// product is built from imulExtended, so no shaderInt64 is needed.

// 64-bit signed (hi, lo) + (add_hi, add_lo).
void add64(inout int hi, inout uint lo, int add_hi, uint add_lo) {
  uint carry;
  lo = uaddCarry(lo, add_lo, carry);
  hi = hi + add_hi + int(carry);
}

// (v * m + round) >> s, rounded as TOSA says, saturated to int32 (m >= 0, 2 <= s <= 62).
int apply_scale(int v, int m, uint s, bool double_round) {
  int hi;
  int lo_s;
  imulExtended(v, m, hi, lo_s);
  uint lo = uint(lo_s);
  // round = 1 << (s - 1)
  if (s - 1u < 32u) add64(hi, lo, 0, 1u << (s - 1u));
  else add64(hi, lo, int(1u << (s - 33u)), 0u);
  if (double_round && s > 31u) {
    if (v >= 0) add64(hi, lo, 0, 1u << 30);
    else add64(hi, lo, -1, uint(-(1 << 30)));
  }
  // Arithmetic shift right by s, keeping 64 bits, then saturate to int32.
  int rhi;
  uint rlo;
  if (s < 32u) {
    rlo = (lo >> s) | (s == 0u ? 0u : uint(hi) << (32u - s));
    rhi = hi >> s;
  } else {
    rlo = uint(hi >> (s - 32u));
    rhi = hi >> 31;
  }
  if (rhi == (int(rlo) >> 31)) return int(rlo);
  return rhi < 0 ? int(0x80000000u) : 0x7fffffff;
}

// v + zp, saturated to int32.
int add_saturated(int v, int zp) {
  if (zp > 0 && v > 0x7fffffff - zp) return 0x7fffffff;
  if (zp < 0 && v < int(0x80000000u) - zp) return int(0x80000000u);
  return v + zp;
}

// One per-tensor RESCALE's scaling (kernels::RescaleScale).
struct RescaleScale {
  int multiplier;
  uint shift;
  bool double_round;
};

// The residual add after an int8 requantization (kernels::Residual): the RESCALE of the int8
// result y and of the int8 skip value to int32, their int32 ADD (wrapping, as the reference's),
// the CLAMP of the sum, its RESCALE to int8 and the CLAMP of that.
struct ResidualAdd {
  RescaleScale y, skip, sum;
  int y_zp, skip_zp, out_zp, lo, hi, sum_lo, sum_hi;
};

// The ResidualAdd of the first 10 words of kernels::residual_words.
ResidualAdd residual_add_params(int w[10]) {
  ResidualAdd r;
  r.y = RescaleScale(w[0], uint(w[1]), bitfieldExtract(uint(w[6]), 24, 1) != 0u);
  r.skip = RescaleScale(w[2], uint(w[3]), bitfieldExtract(uint(w[6]), 25, 1) != 0u);
  r.sum = RescaleScale(w[4], uint(w[5]), bitfieldExtract(uint(w[6]), 26, 1) != 0u);
  r.y_zp = bitfieldExtract(w[6], 0, 8);
  r.skip_zp = bitfieldExtract(w[6], 8, 8);
  r.out_zp = bitfieldExtract(w[6], 16, 8);
  r.lo = bitfieldExtract(w[7], 0, 8);
  r.hi = bitfieldExtract(w[7], 8, 8);
  r.sum_lo = w[8];
  r.sum_hi = w[9];
  return r;
}

int rescaled(int v, int zp, RescaleScale s) { return apply_scale(v - zp, s.multiplier, s.shift, s.double_round); }

int residual_add(int y, int skip, ResidualAdd r) {
  const int sum = clamp(rescaled(y, r.y_zp, r.y) + rescaled(skip, r.skip_zp, r.skip), r.sum_lo, r.sum_hi);
  return clamp(add_saturated(rescaled(sum, 0, r.sum), r.out_zp), r.lo, r.hi);
}
