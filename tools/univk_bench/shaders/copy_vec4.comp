#version 450
// The shader copy floor's kernel: dst = src, 16 bytes per load and store, grid-stride so any
// size works with a capped group count. Push constant: the number of 16-byte elements.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Params { uint count; } p;
void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) dst[i] = src[i];
}
