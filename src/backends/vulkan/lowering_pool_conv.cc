// Lowering of avg_pool2d, max_pool2d, adaptive_avg_pool2d (pool2d.comp) and conv2d
// (conv2d.comp), NCHW or unbatched CHW.
#include <algorithm>

#include "lowering_common.h"

namespace univk::backends::detail {
namespace {

enum PoolMode : uint32_t { kAvgPool = 0, kMaxPool = 1, kAdaptiveAvgPool = 2 };

struct Planes {
  int64_t count = 1, h = 0, w = 0;
  std::vector<int64_t> prefix;  // N,C or C
};

Result<Planes> planes_of(const Shape& s) {
  if (s.rank() != 3 && s.rank() != 4) {
    return invalid_argument("input shape " + s.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  Planes p;
  p.prefix.assign(s.dims().begin(), s.dims().end() - 2);
  for (int64_t d : p.prefix) p.count *= d;
  p.h = s[s.rank() - 2];
  p.w = s[s.rank() - 1];
  return p;
}

Result<LoweredOp> pool_output(const Planes& pl, int64_t oh, int64_t ow) {
  std::vector<int64_t> dims = pl.prefix;
  dims.push_back(oh);
  dims.push_back(ow);
  return with_output(DType::kFloat32, Shape(dims));
}

Result<LoweredOp> lower_pool(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  const bool is_max = op == "max_pool2d";
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> k, attrs.ints_expanded("kernel_size", 2, {}));
  std::vector<int64_t> s = k;
  if (attrs.has("stride")) {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> given, attrs.get_ints("stride"));
    if (!given.empty()) {  // stride=[] means stride = kernel_size, as in PyTorch
      UNIVK_ASSIGN_OR_RETURN(s, attrs.ints_expanded("stride", 2, {}));
    }
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
  std::vector<int64_t> dil = {1, 1};
  if (is_max) {
    UNIVK_ASSIGN_OR_RETURN(dil, attrs.ints_expanded("dilation", 2, {1}));
  } else if (attrs.has("dilation")) {
    return invalid_argument("attribute 'dilation' is not valid for this op");
  }
  UNIVK_ASSIGN_OR_RETURN(bool ceil_mode, attrs.get_bool_or("ceil_mode", false));
  for (int i = 0; i < 2; ++i) {
    if (k[i] <= 0) return invalid_argument("attribute 'kernel_size' must be positive");
    if (s[i] <= 0) return invalid_argument("attribute 'stride' must be positive");
    if (dil[i] <= 0) return invalid_argument("attribute 'dilation' must be positive");
    if (pad[i] < 0) return invalid_argument("attribute 'padding' must be non-negative");
    if (pad[i] > ((k[i] - 1) * dil[i] + 1) / 2) {
      return invalid_argument("attribute 'padding' must be at most half of the kernel size");
    }
  }
  bool include_pad = true;
  int64_t divisor_override = 0;
  if (!is_max) {
    UNIVK_ASSIGN_OR_RETURN(include_pad, attrs.get_bool_or("count_include_pad", true));
    UNIVK_ASSIGN_OR_RETURN(divisor_override, attrs.get_int_or("divisor_override", 0));
    if (divisor_override < 0) return invalid_argument("attribute 'divisor_override' must be positive");
  }
  UNIVK_ASSIGN_OR_RETURN(Planes pl, planes_of(inputs[0].shape));
  UNIVK_ASSIGN_OR_RETURN(int64_t oh, pooled_size(pl.h, k[0], s[0], pad[0], dil[0], ceil_mode));
  UNIVK_ASSIGN_OR_RETURN(int64_t ow, pooled_size(pl.w, k[1], s[1], pad[1], dil[1], ceil_mode));
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, pool_output(pl, oh, ow));
  const int64_t n = lowered.output.shape.numel();
  Dispatch d;
  d.shader = Shader::kPool2d;
  d.variant = is_max ? kMaxPool : kAvgPool;
  // Params { n, H, W, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, include_pad, divisor_override }
  d.push = {u32(n),      u32(pl.h),   u32(pl.w),   u32(oh),     u32(ow),          u32(k[0]),
            u32(k[1]),   u32(s[0]),   u32(s[1]),   u32(pad[0]), u32(pad[1]),      u32(dil[0]),
            u32(dil[1]), include_pad, u32(divisor_override)};
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_adaptive_pool(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  UNIVK_RETURN_IF_ERROR(check_extent(inputs[0].shape, "input"));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.ints_expanded("output_size", 2, {}));
  UNIVK_ASSIGN_OR_RETURN(Planes pl, planes_of(inputs[0].shape));
  if (size[0] <= 0 || size[1] <= 0) return invalid_argument("attribute 'output_size' must be positive");
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, pool_output(pl, size[0], size[1]));
  const int64_t n = lowered.output.shape.numel();
  Dispatch d;
  d.shader = Shader::kPool2d;
  d.variant = kAdaptiveAvgPool;
  d.push = {u32(n), u32(pl.h), u32(pl.w), u32(size[0]), u32(size[1]), 0, 0, 0, 0, 0, 0, 1, 1, 0, 0};
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

Result<LoweredOp> lower_conv2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 3));
  UNIVK_RETURN_IF_ERROR(check_float(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(check_extent(inputs[i].shape, "input " + std::to_string(i)));
  }
  const Shape& xs = inputs[0].shape;
  const Shape& ws = inputs[1].shape;
  const bool batched = xs.rank() == 4;
  if (xs.rank() != 3 && !batched) {
    return invalid_argument("input shape " + xs.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  if (ws.rank() != 4) return invalid_argument("weight shape " + ws.to_string() + " must be 4-d");
  const int64_t n = batched ? xs[0] : 1;
  const size_t b = batched ? 1 : 0;
  const int64_t c = xs[b], h = xs[b + 1], w = xs[b + 2];
  const int64_t oc = ws[0], icg = ws[1], kh = ws[2], kw = ws[3];
  UNIVK_ASSIGN_OR_RETURN(int64_t groups, attrs.get_int_or("groups", 1));
  if (groups <= 0 || c % groups != 0 || oc % groups != 0) {
    return invalid_argument("attribute 'groups'=" + std::to_string(groups) + " must divide in_channels " +
                            std::to_string(c) + " and out_channels " + std::to_string(oc));
  }
  if (icg != c / groups) {
    return invalid_argument("weight shape " + ws.to_string() + " expects " + std::to_string(icg * groups) +
                            " input channels, input has " + std::to_string(c));
  }
  const bool has_bias = inputs.size() == 3;
  if (has_bias && inputs[2].shape != Shape{oc}) {
    return invalid_argument("bias shape " + inputs[2].shape.to_string() + " must be [" + std::to_string(oc) + "]");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, attrs.ints_expanded("stride", 2, {1}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, attrs.ints_expanded("dilation", 2, {1}));
  if (stride[0] <= 0 || stride[1] <= 0) return invalid_argument("attribute 'stride' must be positive");
  if (dil[0] <= 0 || dil[1] <= 0) return invalid_argument("attribute 'dilation' must be positive");
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  auto padding_mode = attrs.get_string("padding");
  if (padding_mode.ok()) {
    if (*padding_mode == "same") {
      if (stride[0] != 1 || stride[1] != 1) return invalid_argument("padding='same' needs stride 1");
      const int64_t th = dil[0] * (kh - 1), tw = dil[1] * (kw - 1);
      pt = th / 2, pb = th - pt, pl = tw / 2, pr = tw - pl;
    } else if (*padding_mode != "valid") {
      return invalid_argument("attribute 'padding'='" + *padding_mode + "' must be ints, \"valid\" or \"same\"");
    }
  } else {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
    if (pad[0] < 0 || pad[1] < 0) return invalid_argument("attribute 'padding' must be non-negative");
    pt = pb = pad[0];
    pl = pr = pad[1];
  }
  if (h + pt + pb < dil[0] * (kh - 1) + 1 || w + pl + pr < dil[1] * (kw - 1) + 1) {
    return invalid_argument("kernel " + ws.to_string() + " is larger than the padded input " + xs.to_string());
  }
  const int64_t oh = (h + pt + pb - dil[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (w + pl + pr - dil[1] * (kw - 1) - 1) / stride[1] + 1;
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered,
                         with_output(DType::kFloat32, batched ? Shape{n, oc, oh, ow} : Shape{oc, oh, ow}));
  // Up to 4 output channels per invocation (each loaded input element feeds all of them).
  const int64_t ocg = oc / groups;
  const int64_t ocb = ocg >= 4 ? 4 : 1;
  const int64_t blocks = (ocg + ocb - 1) / ocb;
  const int64_t invocations = n * groups * blocks * oh * ow;
  if (invocations > int64_t{UINT32_MAX}) return unsupported("conv2d output is too large");
  Dispatch d;
  d.shader = Shader::kConv2d;
  d.variant = static_cast<uint32_t>(ocb);
  // Params { n, N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, groups, has_bias, blocks }
  d.push = {u32(invocations), u32(n),  u32(c),         u32(h),         u32(w),      u32(oc),
            u32(oh),          u32(ow), u32(kh),        u32(kw),        u32(stride[0]), u32(stride[1]),
            u32(pt),          u32(pl), u32(dil[0]),    u32(dil[1]),    u32(groups), has_bias,
            u32(blocks)};
  // Without a bias the weight is bound in its place; the shader does not read it.
  d.bindings = {Operand::input(0), Operand::input(1), Operand::input(has_bias ? 2 : 1), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(invocations)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

}  // namespace

LowerTable pool_conv_lowerings() {
  return {{"avg_pool2d", lower_pool},
          {"max_pool2d", lower_pool},
          {"adaptive_avg_pool2d", lower_adaptive_pool},
          {"conv2d", lower_conv2d}};
}

}  // namespace univk::backends::detail
