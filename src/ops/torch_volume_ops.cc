// flip and conv3d (torch_volume_ops.h).
#include "univk/ops/torch_volume_ops.h"

#include <algorithm>
#include <string>

namespace univk::ops {

Result<Flip> flip(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("dims"));
  if (dims.empty()) return invalid_argument("attribute 'dims' is empty");
  Flip f;
  for (int64_t d : dims) {
    UNIVK_ASSIGN_OR_RETURN(int64_t wrapped, wrap_dim(d, static_cast<int64_t>(x.rank()), "dims"));
    if (std::find(f.dims.begin(), f.dims.end(), wrapped) != f.dims.end()) {
      return invalid_argument("attribute 'dims' names dim " + std::to_string(wrapped) + " twice");
    }
    f.dims.push_back(wrapped);
  }
  std::sort(f.dims.begin(), f.dims.end());
  if (x.rank() == 0) f.dims.clear();  // a 0-d tensor (dim 0 or -1, as in PyTorch) is its own flip
  f.output = x;
  return f;
}

Result<Conv3d> conv3d(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 3));
  const Shape& xs = inputs[0];
  const Shape& ws = inputs[1];
  Conv3d c;
  c.batched = xs.rank() == 5;
  if (xs.rank() != 4 && !c.batched) {
    return invalid_argument("input shape " + xs.to_string() + " must be 4-d (C,D,H,W) or 5-d (N,C,D,H,W)");
  }
  if (ws.rank() != 5) return invalid_argument("weight shape " + ws.to_string() + " must be 5-d");
  const size_t b = c.batched ? 1 : 0;
  c.n = c.batched ? xs[0] : 1;
  c.c = xs[b];
  c.oc = ws[0];
  UNIVK_ASSIGN_OR_RETURN(c.groups, attrs.get_int_or("groups", 1));
  if (c.groups <= 0 || c.c % c.groups != 0 || c.oc % c.groups != 0) {
    return invalid_argument("attribute 'groups'=" + std::to_string(c.groups) + " must divide in_channels " +
                            std::to_string(c.c) + " and out_channels " + std::to_string(c.oc));
  }
  if (ws[1] != c.c / c.groups) {
    return invalid_argument("weight shape " + ws.to_string() + " expects " + std::to_string(ws[1] * c.groups) +
                            " input channels, input has " + std::to_string(c.c));
  }
  c.has_bias = inputs.size() == 3;
  if (c.has_bias && inputs[2] != Shape{c.oc}) {
    return invalid_argument("bias shape " + inputs[2].to_string() + " must be [" + std::to_string(c.oc) + "]");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, attrs.ints_expanded("stride", 3, {1}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, attrs.ints_expanded("dilation", 3, {1}));
  std::vector<int64_t> pad = {0, 0, 0};
  auto padding_mode = attrs.get_string("padding");
  if (padding_mode.ok()) {
    if (*padding_mode != "valid") {
      return invalid_argument("attribute 'padding'='" + *padding_mode + "' must be ints or \"valid\"");
    }
  } else {
    UNIVK_ASSIGN_OR_RETURN(pad, attrs.ints_expanded("padding", 3, {0}));
  }
  for (size_t a = 0; a < 3; ++a) {
    if (stride[a] <= 0 || dil[a] <= 0) return invalid_argument("attributes 'stride' and 'dilation' must be positive");
    if (pad[a] < 0) return invalid_argument("attribute 'padding' must be non-negative");
    if (std::max({stride[a], dil[a], pad[a]}) > kMaxWindowAttr) {
      return invalid_argument("attribute 'stride', 'padding' or 'dilation' is above 2^31");
    }
    c.in[a] = xs[b + 1 + a];
    c.kernel[a] = ws[2 + a];
    c.stride[a] = stride[a], c.padding[a] = pad[a], c.dilation[a] = dil[a];
    const int64_t span = c.in[a] + 2 * pad[a] - dil[a] * (c.kernel[a] - 1) - 1;
    if (span < 0) {
      return invalid_argument("kernel " + ws.to_string() + " is larger than the padded input " + xs.to_string());
    }
    c.out[a] = span / stride[a] + 1;
  }
  c.output = c.batched ? Shape{c.n, c.oc, c.out[0], c.out[1], c.out[2]} : Shape{c.oc, c.out[0], c.out[1], c.out[2]};
  return c;
}

}  // namespace univk::ops
