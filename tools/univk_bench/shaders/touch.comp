#version 450
// The dispatch floor's kernel: one workgroup where each invocation writes its own index, so the
// dispatch does the least real work a kernel can (one store per invocation).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint values[]; };
void main() { values[gl_LocalInvocationIndex] = gl_LocalInvocationIndex; }
