#version 450
// The fp32 FMA floor: eight independent vec4 FMA chains per invocation, `iterations` steps
// each (64 FLOP per step), no memory traffic but one store that keeps the chains alive.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) writeonly buffer Out { vec4 o[]; };
layout(push_constant) uniform Params { uint iterations; } p;

void main() {
  const vec4 seed = vec4(float(gl_GlobalInvocationID.x) * 1e-9);
  vec4 c0 = seed, c1 = seed + 1.0, c2 = seed + 2.0, c3 = seed + 3.0;
  vec4 c4 = seed + 4.0, c5 = seed + 5.0, c6 = seed + 6.0, c7 = seed + 7.0;
  const vec4 m = vec4(0.9999999), s = vec4(1e-7);
  for (uint i = 0u; i < p.iterations; ++i) {
    c0 = fma(c0, m, s); c1 = fma(c1, m, s); c2 = fma(c2, m, s); c3 = fma(c3, m, s);
    c4 = fma(c4, m, s); c5 = fma(c5, m, s); c6 = fma(c6, m, s); c7 = fma(c7, m, s);
  }
  o[gl_GlobalInvocationID.x] = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
}
