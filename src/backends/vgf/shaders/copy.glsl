// Strided copy: TRANSPOSE (permuted strides), SLICE (offset), RESHAPE of a non-packed view,
// CONCAT (one dispatch per input into its slice of the output), PAD (out-of-range source
// coordinates read the pad value), TILE (source coordinates wrap) and REVERSE (the source
// coordinate of a reversed dim counts down from its end). The includer defines
// ELEM (the stored element type) and ELEM_FROM_BITS(u).
// Bindings: 1 output, 2 input. Params after 2 base words: P[2] element count, P[3..8]
// iteration dims, P[9..14] output strides, P[15..20] input strides, P[21..26] input dims,
// P[27..32] low padding per dim, P[33] 1 = wrap (TILE), P[34] pad value bits, P[35] reversed
// dims (bit d: padded dim d).
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 1) writeonly buffer Out { ELEM O[]; };
layout(std430, set = 0, binding = 2) readonly buffer In0 { ELEM I0[]; };

void main() {
  const uint total = P[2];
  const uint e = invocation_index();
  if (e >= total) return;
  uint rest = e;
  uint out_off = P[0];
  uint in_off = P[1];
  bool inside = true;
  [[unroll]] for (int d = 5; d >= 0; --d) {
    const uint n = P[3u + uint(d)];
    const uint coord = rest % n;
    rest /= n;
    out_off += coord * P[9u + uint(d)];
    int src = int(coord) - int(P[27u + uint(d)]);
    const int in_dim = int(P[21u + uint(d)]);
    if (P[33] != 0u) src = src % in_dim;
    if ((P[35] & (1u << uint(d))) != 0u) src = in_dim - 1 - src;
    inside = inside && src >= 0 && src < in_dim;
    in_off += uint(max(src, 0)) * P[15u + uint(d)];
  }
  O[out_off] = inside ? I0[in_off] : ELEM_FROM_BITS(P[34]);
}
