// int32 semantics of the elementwise program ops (EwOp in ../elementwise_program.h): TOSA 1.0
// ADD/SUB/MUL wrap to 32 bits; MUL with shift rounds the 64-bit product (imulExtended, so no
// shaderInt64 is needed). Shift amounts are in [0, 31] and INTDIV divisors non-zero (the spec's
// REQUIREs; other values give unpredictable results, as the spec allows).
#define REG ivec4

REG ew_imm(uint bits) { return ivec4(int(bits)); }

// (int64(a) * b + (1 << (shift - 1))) >> shift, low 32 bits; shift in 1..63.
int mul_shift(int a, int b, uint shift) {
  int hi;
  int lo;
  imulExtended(a, b, hi, lo);
  uint rlo = shift <= 32u ? (1u << (shift - 1u)) : 0u;
  uint rhi = shift > 32u ? (1u << (shift - 33u)) : 0u;
  uint carry;
  uint sum_lo = uaddCarry(uint(lo), rlo, carry);
  int sum_hi = hi + int(rhi) + int(carry);
  if (shift < 32u) return int((sum_lo >> shift) | (uint(sum_hi) << (32u - shift)));
  return sum_hi >> (shift - 32u);
}

// Truncating division on magnitudes, so the result does not depend on how the driver rounds a
// negative signed quotient (INT32_MIN / -1, a REQUIRE violation, wraps).
REG ew_intdiv(REG a, REG b) {
  uvec4 q = uvec4(abs(a)) / uvec4(abs(b));
  return mix(ivec4(q), -ivec4(q), notEqual(lessThan(a, ivec4(0)), lessThan(b, ivec4(0))));
}

// ARITHMETIC_RIGHT_SHIFT with round: adds the last bit shifted out.
REG ew_shift_right_rounded(REG a, REG b) {
  ivec4 r = a >> b;
  ivec4 last = (a >> max(b - 1, ivec4(0))) & 1;
  return r + mix(ivec4(0), last, greaterThan(b, ivec4(0)));
}

REG ew_apply(uint op, REG a, REG b, uint imm0, uint imm1) {
  switch (op) {
    case 0u: return a;
    case 1u: return a + b;
    case 2u: return a - b;
    case 3u: return a * b;
    case 6u: return min(max(a, ew_imm(imm0)), ew_imm(imm1));
    case 9u: return abs(a);
    case 10u: return -a;
    case 15u: return max(a, b);
    case 16u: return min(a, b);
    case 17u:
      if (imm0 == 0u) return a * b;
      return ivec4(mul_shift(a.x, b.x, imm0), mul_shift(a.y, b.y, imm0), mul_shift(a.z, b.z, imm0),
                   mul_shift(a.w, b.w, imm0));
    case 22u: return a & b;
    case 23u: return a | b;
    case 24u: return a ^ b;
    case 25u: return ~a;
    case 26u: return ew_intdiv(a, b);
    case 27u: return a << b;
    case 28u: return ivec4(uvec4(a) >> uvec4(b));
    case 29u: return a >> b;
    case 30u: return ew_shift_right_rounded(a, b);
    case 31u: return 31 - findMSB(uvec4(a));
  }
  return a;
}
