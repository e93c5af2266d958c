#version 450
// The COMPUTE segment of vgf_segments_test: b = a * 2 + 1, 4 invocations per group.
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer B { float b[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  b[i] = a[i] * 2.0 + 1.0;
}
