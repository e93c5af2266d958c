// Shared helpers of the VulkanBackend shaders. Dispatches are laid out 2-d (see
// grid_for_groups in op_lowering.cc): x up to 65535 workgroups, then rows of y.

// Linear workgroup index of a 2-d dispatch.
uint linear_group() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Linear invocation index of a 2-d dispatch of 1-d workgroups.
uint linear_index() { return linear_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }

#define kInf uintBitsToFloat(0x7f800000u)
#define kNaN uintBitsToFloat(0x7fc00000u)

// maximum/minimum with NaN propagation, as torch.maximum/torch.minimum.
float nan_max(float a, float b) { return (isnan(a) || isnan(b)) ? kNaN : max(a, b); }
float nan_min(float a, float b) { return (isnan(a) || isnan(b)) ? kNaN : min(a, b); }

// C's powf for the cases PyTorch tests care about: negative bases with integral exponents,
// zero bases and exponent zero (GLSL's pow is undefined there).
float pow_c(float x, float y) {
  if (y == 0.0) return 1.0;
  if (isnan(x) || isnan(y)) return kNaN;
  if (x == 0.0) {
    const bool odd = fract(y * 0.5) == 0.5;
    if (y > 0.0) return odd ? x : 0.0;
    return odd ? (1.0 / x) : kInf;
  }
  if (x < 0.0) {
    if (floor(y) != y) return kNaN;
    const float r = exp2(y * log2(-x));
    return fract(y * 0.5) == 0.5 ? -r : r;
  }
  return exp2(y * log2(x));
}
