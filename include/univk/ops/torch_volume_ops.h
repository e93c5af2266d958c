// PyTorch semantics of flip and conv3d: attributes, validation and result shapes, shared by the
// reference kernels and the lowerings (VulkanBackend, TOSA). Pure functions; InvalidArgument
// naming the attribute or operand.
#pragma once

#include <cstdint>
#include <vector>

#include "univk/ops/torch_ops.h"

namespace univk::ops {

// flip(x, dims): reverses each listed dim (negative ones wrap; each at most once; at least one).
// The result has x's shape; `dims` comes back wrapped and sorted (empty for a 0-d x, which dims
// 0 and -1 name, as in PyTorch).
struct Flip {
  std::vector<int64_t> dims;
  Shape output;
};
Result<Flip> flip(const Attributes& attrs, Shapes inputs);

// conv3d: x [N,C,D,H,W] (or [C,D,H,W]), weight [OC, C/groups, KD, KH, KW], optional bias [OC];
// stride, padding (ints, symmetric, or "valid"), dilation: one value or three (d, h, w);
// groups. out = (in + 2 pad - dilation (k-1) - 1) / stride + 1 per axis, rounded down.
struct Conv3d {
  bool batched = true;
  int64_t n = 1, c = 0, oc = 0, groups = 1;
  int64_t in[3] = {0, 0, 0}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, padding[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  int64_t out[3] = {0, 0, 0};
  bool has_bias = false;
  Shape output;
};
Result<Conv3d> conv3d(const Attributes& attrs, Shapes inputs);

}  // namespace univk::ops
