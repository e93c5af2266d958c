// Float semantics of the elementwise program ops (EwOp in ../elementwise_program.h).
#define REG vec4

REG ew_imm(uint bits) { return vec4(uintBitsToFloat(bits)); }

// erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
vec4 ew_erf(vec4 x) {
  vec4 s = sign(x);
  vec4 a = abs(x);
  vec4 t = 1.0 / (1.0 + 0.3275911 * a);
  vec4 y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a);
  return s * y;
}

// pow with TOSA's domain: negative bases allowed for integral exponents.
vec4 ew_pow(vec4 a, vec4 b) {
  vec4 r = pow(abs(a), b);
  bvec4 negative = lessThan(a, vec4(0.0));
  bvec4 integral = equal(b, floor(b));
  bvec4 odd = notEqual(mod(b, 2.0), vec4(0.0));
  vec4 signed_r = mix(r, -r, vec4(odd));
  vec4 nan = vec4(uintBitsToFloat(0x7fc00000u));
  return mix(r, mix(nan, signed_r, vec4(integral)), vec4(negative));
}

// TOSA's nan_mode PROPAGATE (what univk writes, and PyTorch's semantics): a NaN operand gives
// NaN. GLSL's min, max and clamp leave the result undefined for a NaN operand, so every NaN is
// passed through explicitly.
vec4 ew_keep_nan(vec4 r, vec4 a) { return mix(r, a, isnan(a)); }
vec4 ew_max(vec4 a, vec4 b) { return ew_keep_nan(ew_keep_nan(max(a, b), a), b); }
vec4 ew_min(vec4 a, vec4 b) { return ew_keep_nan(ew_keep_nan(min(a, b), a), b); }

REG ew_apply(uint op, REG a, REG b, uint imm0, uint imm1) {
  switch (op) {
    case 0u: return a;
    case 1u: return a + b;
    case 2u: return a - b;
    case 3u: return a * b;
    case 4u: return 1.0 / (1.0 + exp(-a));
    case 5u: return ew_keep_nan(tanh(clamp(a, -15.0, 15.0)), a);  // tanh saturates; avoids inf/inf
    case 6u: return ew_keep_nan(min(max(a, ew_imm(imm0)), ew_imm(imm1)), a);
    case 7u: return exp(a);
    case 8u: return log(a);
    case 9u: return abs(a);
    case 10u: return -a;
    case 11u: return 1.0 / a;
    case 12u: return inversesqrt(a);
    case 13u: return ew_pow(a, b);
    case 14u: return ew_erf(a);
    case 15u: return ew_max(a, b);
    case 16u: return ew_min(a, b);
    case 18u: return ceil(a);
    case 19u: return floor(a);
    case 20u: return sin(a);
    case 21u: return cos(a);
  }
  return a;
}
