#version 450
// y = x * scale + bias over `count` floats (the fake test backend's one operator).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Input { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Output { float y[]; };
layout(push_constant) uniform Params {
  float scale;
  float bias;
  uint count;
} params;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.count) y[i] = x[i] * params.scale + params.bias;
}
