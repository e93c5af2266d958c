#version 450
// values[i] = base + step * i for i < n.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint values[]; };
layout(push_constant) uniform Params { uint base; uint step; uint n; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) values[i] = p.base + p.step * i;
}
