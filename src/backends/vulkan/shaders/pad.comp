#version 450
// pad of 32-bit elements (ops::pad): output coordinate c reads input coordinate c - before per
// dim; outside the input, MODE 0 (constant) writes `fill`, MODE 1 (reflect) mirrors without
// repeating the edge, MODE 2 (replicate) clamps to the edge.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;  // before common.glsl: it reads gl_WorkGroupSize
#include "shaders/common.glsl"

layout(constant_id = 0) const uint MODE = 0;  // ops::PadMode

layout(set = 0, binding = 0) readonly buffer In { uint x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint y[]; };
layout(push_constant) uniform Params {
  uint n;
  uint rank;
  uint fill;  // bit pattern of the constant
  uint out_dims[6];
  uint in_dims[6];
  uint before[6];
} params;

void main() {
  const uint i = linear_index();
  if (i >= params.n) return;
  uint rest = i, src = 0, stride = 1;
  bool inside = true;
  for (int d = int(params.rank) - 1; d >= 0; --d) {
    const int size = int(params.in_dims[d]);
    int c = int(rest % params.out_dims[d]) - int(params.before[d]);
    rest /= params.out_dims[d];
    if (c < 0 || c >= size) {
      if (MODE == 0) inside = false;
      else if (MODE == 1) c = c < 0 ? -c : 2 * (size - 1) - c;
      else c = c < 0 ? 0 : size - 1;
    }
    src += uint(c) * stride;
    stride *= uint(size);
  }
  y[i] = inside ? x[src] : params.fill;
}
