#version 450
// A deliberately long dispatch: out[i] = the LCG x -> x * 1664525 + 1013904223 applied
// `iterations` times to i. The host checks the result in closed form.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint values[]; };
layout(push_constant) uniform Params { uint iterations; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint v = i;
  for (uint k = 0u; k < p.iterations; ++k) v = v * 1664525u + 1013904223u;
  values[i] = v;
}
