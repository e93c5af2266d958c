// The TOSA 1.0 reductions along one axis, one invocation per output element (reduce_f32.comp:
// fp32/int32; reduce_bool.comp, with REDUCE_BOOL and 8-bit storage: bool, one byte each):
// REDUCE_SUM, REDUCE_MAX, REDUCE_MIN (fp32 or int32), REDUCE_PRODUCT (fp32), REDUCE_ALL and
// REDUCE_ANY (bool) and ARGMAX (fp32 input, int32 output: the first index of the maximum, or of
// the first NaN). The includer includes common.glsl first.
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] output count, P[3..8] output
// iteration dims (the input dims with the axis set to 1), P[9..14] output strides (0 on the
// axis), P[15..20] input strides, P[21] axis length, P[22] input stride along the axis.

// 0 sum, 1 max, 2 argmax, 3 min, 4 product, 5 all, 6 any
layout(constant_id = 0) const uint MODE = 0;
// Element type of reduce_f32.comp: 0 fp32, 1 int32
layout(constant_id = 1) const uint KIND = 0;

#ifdef REDUCE_BOOL
layout(std430, set = 0, binding = 1) writeonly buffer Out8 { uint8_t O8[]; };
layout(std430, set = 0, binding = 2) readonly buffer In8 { uint8_t I8[]; };
#else
layout(std430, set = 0, binding = 1) writeonly buffer Out { float O[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutI { int OI[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { float I[]; };
layout(std430, set = 0, binding = 2) readonly buffer InI { int II[]; };
#endif

void main() {
  const uint total = P[2];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint out_off = P[0] + strided_offset(e, 3u, 9u);
  uint in_off = P[1] + strided_offset(e, 3u, 15u);
#ifdef REDUCE_BOOL
  bool acc = MODE == 5u;
  for (uint i = 0u; i < P[21]; ++i) {
    const bool v = uint(I8[in_off]) != 0u;
    acc = MODE == 5u ? (acc && v) : (acc || v);
    in_off += P[22];
  }
  O8[out_off] = uint8_t(acc ? 1u : 0u);
#else
  if (KIND == 1u) {
    int acc = MODE == 0u ? 0 : (MODE == 1u ? int(0x80000000u) : 0x7fffffff);
    for (uint i = 0u; i < P[21]; ++i) {
      const int v = II[in_off];
      acc = MODE == 0u ? acc + v : (MODE == 1u ? max(acc, v) : min(acc, v));
      in_off += P[22];
    }
    OI[out_off] = acc;
    return;
  }
  float acc = MODE == 0u ? 0.0 : (MODE == 4u ? 1.0 : uintBitsToFloat(MODE == 3u ? 0x7f800000u : 0xff800000u));
  int best = 0;
  for (uint i = 0u; i < P[21]; ++i) {
    const float v = I[in_off];
    if (MODE == 0u) acc += v;
    else if (MODE == 4u) acc *= v;
    // The first NaN wins and stays (nan_mode PROPAGATE): nothing compares greater or less than NaN.
    else if ((MODE == 3u ? v < acc : v > acc) || (isnan(v) && !isnan(acc))) { acc = v; best = int(i); }
    in_off += P[22];
  }
  if (MODE == 2u) OI[out_off] = best;
  else O[out_off] = acc;
#endif
}
