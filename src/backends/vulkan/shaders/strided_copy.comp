#version 450
// Generic strided copy of 32-bit elements: out[out_offset + sum(c*out_strides)] =
// in[in_offset + sum(c*in_strides)] for every coordinate c of `dims`. Serves permute,
// transpose, slice, cat and plain copies.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"


layout(set = 0, binding = 0) readonly buffer In { uint x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint rank;
  uint in_offset;
  uint out_offset;
  uint dims[6];
  uint in_strides[6];
  uint out_strides[6];
} params;

void main() {
  const uint i = linear_index();
  if (i >= params.n) return;
  uint rest = i, src = params.in_offset, dst = params.out_offset;
  for (int d = int(params.rank) - 1; d >= 0; --d) {
    const uint c = rest % params.dims[d];
    rest /= params.dims[d];
    src += c * params.in_strides[d];
    dst += c * params.out_strides[d];
  }
  y[dst] = x[src];
}
