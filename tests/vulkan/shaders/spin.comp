#version 450
// A deliberately long dispatch: out[i] = the LCG x -> x * 1664525 + 1013904223 applied
// `iterations` times to i; the host checks the result in closed form. llvmpipe ends a shader's
// loops after about 65535 iterations, so `iterations` stays below that and the length of the
// dispatch comes from the number of workgroups.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint values[]; };
layout(push_constant) uniform Params { uint iterations; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint v = i;
  for (uint k = 0u; k < p.iterations; ++k) v = v * 1664525u + 1013904223u;
  values[i] = v;
}
