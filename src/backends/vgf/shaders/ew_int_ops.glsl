// int32 semantics of the elementwise program ops (EwOp in ../elementwise_program.h): TOSA 1.0
// ADD/SUB/MUL wrap to 32 bits; MUL with shift rounds the 64-bit product (imulExtended, so no
// shaderInt64 is needed).
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
  }
  return a;
}
