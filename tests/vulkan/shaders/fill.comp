#version 450
// out[i] = base + i for i < n.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint values[]; };
layout(push_constant) uniform Params { uint base; uint n; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) values[i] = p.base + i;
}
