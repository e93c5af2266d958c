#version 450
#extension GL_GOOGLE_include_directive : require
// CAST (TOSA 1.0) between int8, uint8, bool, int32 and fp32: float -> int rounds to nearest
// even and saturates (NaN -> 0); int -> int keeps the low bits; -> bool tests != 0. Also int32
// <-> int64 (kind 5, two int32 words, low first; no shaderInt64): widening sign-extends,
// narrowing keeps the low word (the int64 results and inputs of VgfBackend programs).
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] element count, P[3..8] dims,
// P[9..14] output strides, P[15..20] input strides.
layout(local_size_x = 256) in;
#include "shaders/common.glsl"
#include "shaders/int8_io.glsl"

layout(constant_id = 0) const uint IN_KIND = 3;
layout(constant_id = 1) const uint OUT_KIND = 2;

const uint KIND_INT64 = 5u;

void main() {
  const uint total = P[2];
  const uint e = invocation_index();
  if (e >= total) return;
  const uint o = P[0] + strided_offset(e, 3u, 9u);
  const uint i = P[1] + strided_offset(e, 3u, 15u);
  if (IN_KIND == KIND_FP32) {
    const float v = IF[i];
    if (OUT_KIND == KIND_FP32) { OF[o] = v; return; }
    if (OUT_KIND == KIND_BOOL) { store_int(OUT_KIND, o, v != 0.0 ? 1 : 0); return; }
    const float r = roundEven(v);
    int result;
    if (isnan(v)) result = 0;
    else if (OUT_KIND == KIND_INT32) result = r >= 2147483648.0 ? 0x7fffffff : (r <= -2147483648.0 ? int(0x80000000u) : int(r));
    else result = int(clamp(r, OUT_KIND == KIND_INT8 ? -128.0 : 0.0, OUT_KIND == KIND_INT8 ? 127.0 : 255.0));
    store_int(OUT_KIND, o, result);
    return;
  }
  if (OUT_KIND == KIND_INT64) {
    const int v = load_int(IN_KIND, i);
    O32[2u * o] = v;
    O32[2u * o + 1u] = v < 0 ? -1 : 0;
    return;
  }
  const int v = IN_KIND == KIND_INT64 ? I32[2u * i] : load_int(IN_KIND, i);
  if (OUT_KIND == KIND_FP32) OF[o] = float(v);
  else if (OUT_KIND == KIND_BOOL) store_int(OUT_KIND, o, v != 0 ? 1 : 0);
  else store_int(OUT_KIND, o, v);
}
