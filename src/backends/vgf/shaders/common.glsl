// Shared by every VgfBackend shader: the parameter buffer and invocation indexing.
// Binding 0 holds the dispatch's parameter words: first one base element offset per tensor
// binding (written by the recorder), then the dispatch's own words (written by the lowering).
// Dispatches are 2-D (x capped at 65535 groups, y up to 65535: every device's minimum), which
// covers any element count up to 2^32 with one invocation per work item; invocations past the
// end return. (A grid-stride loop around the body made lavapipe's shaders ~80x slower.)
#extension GL_EXT_control_flow_attributes : require

layout(std430, set = 0, binding = 0) readonly buffer Params { uint P[]; };

uint invocation_index() {
  return gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x) + gl_GlobalInvocationID.x;
}

// Element offset of linear index `e` over the 6 dims at P[dims_at..] with strides at P[strides_at..].
uint strided_offset(uint e, uint dims_at, uint strides_at) {
  uint off = 0u;
  [[unroll]] for (int d = 5; d >= 0; --d) {
    uint n = P[dims_at + uint(d)];
    off += (e % n) * P[strides_at + uint(d)];
    e /= n;
  }
  return off;
}
