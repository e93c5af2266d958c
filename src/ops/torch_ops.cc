// Attribute parsing, validation and shape rules of the PyTorch-semantics operators: shared
// rules, elementwise, pooling, convolution, matrix products, normalisation and reductions.
// The shape operators and the infer_shape table are in torch_shape_ops.cc.
#include <algorithm>
#include <array>

#include "univk/ops/torch_ops.h"

namespace univk::ops {
namespace {

std::string ints_to_string(std::span<const int64_t> v) {
  return Shape(std::vector<int64_t>(v.begin(), v.end())).to_string();
}

}  // namespace

// ---- Shared rules --------------------------------------------------------------------------

Status check_input_count(size_t count, size_t min, size_t max) {
  if (count < min || count > max) {
    return invalid_argument("takes " + std::to_string(min) + (min == max ? "" : ".." + std::to_string(max)) +
                            " tensor inputs, got " + std::to_string(count));
  }
  return ok_status();
}

Result<int64_t> wrap_dim(int64_t dim, int64_t rank, const std::string& name) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    return invalid_argument("attribute '" + name + "'=" + std::to_string(dim) + " is out of range for rank " +
                            std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.rank(), 0);
  const std::vector<int64_t> in_strides = in.contiguous_strides();
  const size_t lead = out.rank() - in.rank();
  for (size_t d = 0; d < in.rank(); ++d) {
    strides[lead + d] = in[d] == 1 ? 0 : in_strides[d];
  }
  return strides;
}

Result<int64_t> pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  if (out <= 0) return invalid_argument("output size " + std::to_string(out) + " is not positive");
  return out;
}

Result<std::vector<int64_t>> check_permutation(std::vector<int64_t> perm, int64_t rank, const std::string& name,
                                               bool allow_negative) {
  if (static_cast<int64_t>(perm.size()) != rank) {
    return invalid_argument("attribute '" + name + "' has " + std::to_string(perm.size()) +
                            " entries for a tensor of rank " + std::to_string(rank));
  }
  std::vector<bool> seen(perm.size(), false);
  for (int64_t& p : perm) {
    if (allow_negative && p < 0) p += rank;
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
      return invalid_argument("attribute '" + name + "' is not a permutation of the tensor's dims");
    }
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

Result<Shape> infer_reshape(const std::vector<int64_t>& dims, int64_t numel, const std::string& name) {
  std::vector<int64_t> out = dims;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer >= 0) return invalid_argument("attribute '" + name + "' has more than one -1");
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      return invalid_argument("attribute '" + name + "' has a negative dim " + std::to_string(out[i]));
    } else {
      known *= out[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      return invalid_argument("attribute '" + name + "' cannot infer -1 for " + std::to_string(numel) + " elements");
    }
    out[static_cast<size_t>(infer)] = numel / known;
    known *= out[static_cast<size_t>(infer)];
  }
  if (known != numel) {
    return invalid_argument("attribute '" + name + "'=" + Shape(dims).to_string() + " does not match " +
                            std::to_string(numel) + " elements");
  }
  return Shape(out);
}

// ---- Elementwise ---------------------------------------------------------------------------

std::span<const std::string_view> unary_op_names() {
  static constexpr std::array<std::string_view, 21> kNames = {
      "sigmoid", "tanh", "relu", "relu6", "hardtanh", "clamp",      "gelu",  "silu", "hardswish", "hardsigmoid", "exp",
      "log",     "neg",  "abs",  "sqrt",  "rsqrt",    "reciprocal", "floor", "ceil", "sin",       "cos"};
  return kNames;
}

std::span<const std::string_view> binary_op_names() {
  static constexpr std::array<std::string_view, 7> kNames = {"add", "sub", "mul", "div", "maximum", "minimum", "pow"};
  return kNames;
}

Result<Unary> unary(std::string_view op, const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  Unary u;
  if (op == "relu6") {
    u.min = 0.0, u.max = 6.0;
  } else if (op == "hardtanh") {
    UNIVK_ASSIGN_OR_RETURN(u.min, attrs.get_float_or("min_val", -1.0));
    UNIVK_ASSIGN_OR_RETURN(u.max, attrs.get_float_or("max_val", 1.0));
  } else if (op == "clamp") {
    if (!attrs.has("min") && !attrs.has("max")) return invalid_argument("at least one of 'min' or 'max' is required");
    UNIVK_ASSIGN_OR_RETURN(u.min, attrs.get_float_or("min", u.min));
    UNIVK_ASSIGN_OR_RETURN(u.max, attrs.get_float_or("max", u.max));
  } else if (op == "gelu" && attrs.has("approximate")) {
    UNIVK_ASSIGN_OR_RETURN(std::string approx, attrs.get_string("approximate"));
    if (approx != "none" && approx != "tanh") {
      return invalid_argument("attribute 'approximate'='" + approx + "' must be \"none\" or \"tanh\"");
    }
    u.gelu_tanh = approx == "tanh";
  }
  u.output = inputs[0];
  return u;
}

Result<Binary> binary(std::string_view op, const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 2));
  Binary b;
  if (op == "add" || op == "sub") {
    UNIVK_ASSIGN_OR_RETURN(b.alpha, attrs.get_float_or("alpha", 1.0));
  } else if (attrs.has("alpha")) {
    return invalid_argument("attribute 'alpha' is only valid for add and sub");
  }
  if (inputs.size() == 2) {
    if (attrs.has("other")) return invalid_argument("attribute 'other' given together with two tensor inputs");
    UNIVK_ASSIGN_OR_RETURN(b.output, broadcast_shapes(inputs[0], inputs[1]));
    return b;
  }
  if (!attrs.has("other")) return invalid_argument("one tensor input needs the scalar attribute 'other'");
  b.has_scalar = true;
  UNIVK_ASSIGN_OR_RETURN(b.other, attrs.get_float("other"));
  UNIVK_ASSIGN_OR_RETURN(b.scalar_first, attrs.get_bool_or("scalar_first", false));
  b.output = inputs[0];
  return b;
}

// ---- Pooling and convolution ---------------------------------------------------------------

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

namespace {

Shape planes_output(const Planes& in, int64_t oh, int64_t ow) {
  std::vector<int64_t> dims = in.prefix;
  dims.push_back(oh);
  dims.push_back(ow);
  return Shape(std::move(dims));
}

}  // namespace

Result<Pool2d> pool2d(std::string_view op, const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  Pool2d p;
  p.is_max = op == "max_pool2d";
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> k, attrs.ints_expanded("kernel_size", 2, {}));
  std::vector<int64_t> s = k;
  if (attrs.has("stride")) {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> given, attrs.get_ints("stride"));
    if (!given.empty()) {  // PyTorch: stride=[] or None means stride = kernel_size
      UNIVK_ASSIGN_OR_RETURN(s, attrs.ints_expanded("stride", 2, {}));
    }
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
  std::vector<int64_t> dil = {1, 1};
  if (p.is_max) {
    UNIVK_ASSIGN_OR_RETURN(dil, attrs.ints_expanded("dilation", 2, {1}));
  } else if (attrs.has("dilation")) {
    return invalid_argument("attribute 'dilation' is not valid for this op");
  }
  UNIVK_ASSIGN_OR_RETURN(p.ceil_mode, attrs.get_bool_or("ceil_mode", false));
  for (size_t i = 0; i < 2; ++i) {
    for (int64_t v : {k[i], s[i], pad[i], dil[i]}) {
      if (v > kMaxWindowAttr) return invalid_argument("window attribute value " + std::to_string(v) + " is above 2^31");
    }
    if (k[i] <= 0) return invalid_argument("attribute 'kernel_size' must be positive");
    if (s[i] <= 0) return invalid_argument("attribute 'stride' must be positive");
    if (dil[i] <= 0) return invalid_argument("attribute 'dilation' must be positive");
    if (pad[i] < 0) return invalid_argument("attribute 'padding' must be non-negative");
    // PyTorch: pad should be at most half of the (effective) kernel size.
    if (pad[i] > ((k[i] - 1) * dil[i] + 1) / 2) {
      return invalid_argument("attribute 'padding' must be at most half of the kernel size");
    }
    p.kernel[i] = k[i], p.stride[i] = s[i], p.padding[i] = pad[i], p.dilation[i] = dil[i];
  }
  if (!p.is_max) {
    UNIVK_ASSIGN_OR_RETURN(p.count_include_pad, attrs.get_bool_or("count_include_pad", true));
    UNIVK_ASSIGN_OR_RETURN(p.divisor_override, attrs.get_int_or("divisor_override", 0));
    if (p.divisor_override < 0) return invalid_argument("attribute 'divisor_override' must be positive");
  }
  UNIVK_ASSIGN_OR_RETURN(p.in, planes_of(inputs[0]));
  UNIVK_ASSIGN_OR_RETURN(p.out_h, pooled_size(p.in.h, k[0], s[0], pad[0], dil[0], p.ceil_mode));
  UNIVK_ASSIGN_OR_RETURN(p.out_w, pooled_size(p.in.w, k[1], s[1], pad[1], dil[1], p.ceil_mode));
  p.output = planes_output(p.in, p.out_h, p.out_w);
  return p;
}

Result<AdaptiveAvgPool2d> adaptive_avg_pool2d(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  AdaptiveAvgPool2d p;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.ints_expanded("output_size", 2, {}));
  UNIVK_ASSIGN_OR_RETURN(p.in, planes_of(inputs[0]));
  if (size[0] <= 0 || size[1] <= 0) return invalid_argument("attribute 'output_size' must be positive");
  if (p.in.h == 0 || p.in.w == 0) return invalid_argument("input has an empty spatial dim");
  p.out_h = size[0];
  p.out_w = size[1];
  p.output = planes_output(p.in, p.out_h, p.out_w);
  return p;
}

Result<Upsample2d> upsample2d(std::string_view op, const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  Upsample2d u;
  u.bilinear = op == "upsample_bilinear2d";
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.ints_expanded("output_size", 2, {}));
  UNIVK_ASSIGN_OR_RETURN(u.in, planes_of(inputs[0]));
  if (size[0] <= 0 || size[1] <= 0) return invalid_argument("attribute 'output_size' must be positive");
  if (u.in.h == 0 || u.in.w == 0) return invalid_argument("input has an empty spatial dim");
  std::vector<double> scales = {0.0, 0.0};
  if (attrs.has("scales")) {
    UNIVK_ASSIGN_OR_RETURN(scales, attrs.get_floats("scales"));
    if (scales.size() != 2) return invalid_argument("attribute 'scales' needs 2 values (h, w)");
    if (scales[0] < 0 || scales[1] < 0) return invalid_argument("attribute 'scales' must not be negative");
  }
  int64_t align = 0;
  if (u.bilinear) {
    UNIVK_ASSIGN_OR_RETURN(align, attrs.get_int_or("align_corners", 0));
  } else if (attrs.has("align_corners")) {
    return invalid_argument("attribute 'align_corners' is only for bilinear");
  }
  u.align_corners = align != 0;
  u.out_h = size[0];
  u.out_w = size[1];
  auto step = [&](int64_t in, int64_t out, double scale) -> float {
    if (u.align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
    if (scale > 0) return static_cast<float>(1.0 / scale);
    return static_cast<float>(in) / static_cast<float>(out);
  };
  u.scale_h = step(u.in.h, u.out_h, scales[0]);
  u.scale_w = step(u.in.w, u.out_w, scales[1]);
  u.output = planes_output(u.in, u.out_h, u.out_w);
  return u;
}

Result<Conv2d> conv2d(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 3));
  const Shape& xs = inputs[0];
  const Shape& ws = inputs[1];
  Conv2d c;
  c.batched = xs.rank() == 4;
  if (xs.rank() != 3 && !c.batched) {
    return invalid_argument("input shape " + xs.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  if (ws.rank() != 4) return invalid_argument("weight shape " + ws.to_string() + " must be 4-d");
  const size_t b = c.batched ? 1 : 0;
  c.n = c.batched ? xs[0] : 1;
  c.c = xs[b], c.h = xs[b + 1], c.w = xs[b + 2];
  c.oc = ws[0], c.icg = ws[1], c.kh = ws[2], c.kw = ws[3];
  UNIVK_ASSIGN_OR_RETURN(c.groups, attrs.get_int_or("groups", 1));
  if (c.groups <= 0 || c.c % c.groups != 0 || c.oc % c.groups != 0) {
    return invalid_argument("attribute 'groups'=" + std::to_string(c.groups) + " must divide in_channels " +
                            std::to_string(c.c) + " and out_channels " + std::to_string(c.oc));
  }
  if (c.icg != c.c / c.groups) {
    return invalid_argument("weight shape " + ws.to_string() + " expects " + std::to_string(c.icg * c.groups) +
                            " input channels, input has " + std::to_string(c.c));
  }
  c.has_bias = inputs.size() == 3;
  if (c.has_bias && inputs[2] != Shape{c.oc}) {
    return invalid_argument("bias shape " + inputs[2].to_string() + " must be [" + std::to_string(c.oc) + "]");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, attrs.ints_expanded("stride", 2, {1}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, attrs.ints_expanded("dilation", 2, {1}));
  if (stride[0] <= 0 || stride[1] <= 0) return invalid_argument("attribute 'stride' must be positive");
  if (dil[0] <= 0 || dil[1] <= 0) return invalid_argument("attribute 'dilation' must be positive");
  if (std::max({stride[0], stride[1], dil[0], dil[1]}) > kMaxWindowAttr) {
    return invalid_argument("attribute 'stride' or 'dilation' is above 2^31");
  }
  auto padding_mode = attrs.get_string("padding");
  if (padding_mode.ok()) {
    if (*padding_mode == "same") {
      if (stride[0] != 1 || stride[1] != 1) return invalid_argument("padding='same' needs stride 1");
      const int64_t th = dil[0] * (c.kh - 1), tw = dil[1] * (c.kw - 1);
      c.pad_top = th / 2, c.pad_bottom = th - c.pad_top, c.pad_left = tw / 2, c.pad_right = tw - c.pad_left;
    } else if (*padding_mode != "valid") {
      return invalid_argument("attribute 'padding'='" + *padding_mode + "' must be ints, \"valid\" or \"same\"");
    }
  } else {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
    if (pad[0] < 0 || pad[1] < 0) return invalid_argument("attribute 'padding' must be non-negative");
    c.pad_top = c.pad_bottom = pad[0];
    c.pad_left = c.pad_right = pad[1];
  }
  if (std::max({c.pad_top, c.pad_bottom, c.pad_left, c.pad_right}) > kMaxWindowAttr) {
    return invalid_argument("attribute 'padding' is above 2^31");
  }
  c.stride[0] = stride[0], c.stride[1] = stride[1], c.dilation[0] = dil[0], c.dilation[1] = dil[1];
  if (c.h + c.pad_top + c.pad_bottom < dil[0] * (c.kh - 1) + 1 ||
      c.w + c.pad_left + c.pad_right < dil[1] * (c.kw - 1) + 1) {
    return invalid_argument("kernel " + ws.to_string() + " is larger than the padded input " + xs.to_string());
  }
  c.out_h = (c.h + c.pad_top + c.pad_bottom - dil[0] * (c.kh - 1) - 1) / stride[0] + 1;
  c.out_w = (c.w + c.pad_left + c.pad_right - dil[1] * (c.kw - 1) - 1) / stride[1] + 1;
  c.output = c.batched ? Shape{c.n, c.oc, c.out_h, c.out_w} : Shape{c.oc, c.out_h, c.out_w};
  return c;
}

Result<ConvTranspose2d> conv_transpose2d(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 3));
  const Shape& xs = inputs[0];
  const Shape& ws = inputs[1];
  ConvTranspose2d c;
  c.batched = xs.rank() == 4;
  if (xs.rank() != 3 && !c.batched) {
    return invalid_argument("input shape " + xs.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  if (ws.rank() != 4) return invalid_argument("weight shape " + ws.to_string() + " must be 4-d");
  const size_t b = c.batched ? 1 : 0;
  c.n = c.batched ? xs[0] : 1;
  c.c = xs[b], c.h = xs[b + 1], c.w = xs[b + 2];
  c.ocg = ws[1], c.kh = ws[2], c.kw = ws[3];
  if (ws[0] != c.c) {
    return invalid_argument("weight shape " + ws.to_string() + " expects " + std::to_string(ws[0]) +
                            " input channels, input has " + std::to_string(c.c));
  }
  UNIVK_ASSIGN_OR_RETURN(c.groups, attrs.get_int_or("groups", 1));
  if (c.groups <= 0 || c.c % c.groups != 0) {
    return invalid_argument("attribute 'groups'=" + std::to_string(c.groups) + " must divide in_channels " +
                            std::to_string(c.c));
  }
  c.oc = c.ocg * c.groups;
  c.has_bias = inputs.size() == 3;
  if (c.has_bias && inputs[2] != Shape{c.oc}) {
    return invalid_argument("bias shape " + inputs[2].to_string() + " must be [" + std::to_string(c.oc) + "]");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, attrs.ints_expanded("stride", 2, {1}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, attrs.ints_expanded("output_padding", 2, {0}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, attrs.ints_expanded("dilation", 2, {1}));
  for (int d = 0; d < 2; ++d) {
    if (stride[d] <= 0) return invalid_argument("attribute 'stride' must be positive");
    if (dil[d] <= 0) return invalid_argument("attribute 'dilation' must be positive");
    if (pad[d] < 0 || out_pad[d] < 0) {
      return invalid_argument("attributes 'padding' and 'output_padding' must be non-negative");
    }
    if (std::max({stride[d], dil[d], pad[d]}) > kMaxWindowAttr) {
      return invalid_argument("attribute 'stride', 'padding' or 'dilation' is above 2^31");
    }
    if (out_pad[d] >= stride[d] && out_pad[d] >= dil[d]) {
      return invalid_argument("attribute 'output_padding' " + ints_to_string(out_pad) +
                              " must be smaller than either stride or dilation");
    }
    c.stride[d] = stride[d], c.padding[d] = pad[d], c.output_padding[d] = out_pad[d], c.dilation[d] = dil[d];
  }
  c.out_h = (c.h - 1) * stride[0] - 2 * pad[0] + dil[0] * (c.kh - 1) + out_pad[0] + 1;
  c.out_w = (c.w - 1) * stride[1] - 2 * pad[1] + dil[1] * (c.kw - 1) + out_pad[1] + 1;
  if (c.h <= 0 || c.w <= 0 || c.out_h <= 0 || c.out_w <= 0) {
    return invalid_argument("output size " + std::to_string(c.out_h) + "x" + std::to_string(c.out_w) + " of input " +
                            xs.to_string() + " and weight " + ws.to_string() + " is not positive");
  }
  c.output = c.batched ? Shape{c.n, c.oc, c.out_h, c.out_w} : Shape{c.oc, c.out_h, c.out_w};
  return c;
}

// ---- Matrix products -----------------------------------------------------------------------

Result<Linear> linear(const Attributes&, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 3));
  const Shape& sx = inputs[0];
  const Shape& sw = inputs[1];
  if (sx.rank() == 0 || sw.rank() != 2 || sx[sx.rank() - 1] != sw[1]) {
    return invalid_argument("input " + sx.to_string() + " and weight " + sw.to_string() +
                            " do not match (weight must be [out_features, in_features])");
  }
  Linear l;
  l.out_features = sw[0];
  l.in_features = sw[1];
  l.has_bias = inputs.size() == 3;
  if (l.has_bias && inputs[2] != Shape{l.out_features}) {
    return invalid_argument("bias shape " + inputs[2].to_string() + " must be [" + std::to_string(l.out_features) +
                            "]");
  }
  std::vector<int64_t> dims = sx.dims();
  dims.back() = l.out_features;
  l.output = Shape(std::move(dims));
  return l;
}

namespace {

// a [..., M, K] @ b [..., K, N] with broadcast batch dims.
Result<Matmul> batched(const Shape& a, const Shape& b) {
  Matmul r;
  r.m = a[a.rank() - 2], r.k = a[a.rank() - 1];
  const int64_t kb = b[b.rank() - 2];
  r.n = b[b.rank() - 1];
  if (r.k != kb) {
    return invalid_argument("shapes " + a.to_string() + " and " + b.to_string() + " cannot be multiplied (inner dims " +
                            std::to_string(r.k) + " and " + std::to_string(kb) + ")");
  }
  r.a_batch = Shape(std::vector<int64_t>(a.dims().begin(), a.dims().end() - 2));
  r.b_batch = Shape(std::vector<int64_t>(b.dims().begin(), b.dims().end() - 2));
  UNIVK_ASSIGN_OR_RETURN(r.batch, broadcast_shapes(r.a_batch, r.b_batch));
  std::vector<int64_t> dims = r.batch.dims();
  dims.push_back(r.m);
  dims.push_back(r.n);
  r.output = Shape(std::move(dims));
  return r;
}

}  // namespace

Result<Matmul> matmul(const Attributes&, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 2));
  const Shape& sa = inputs[0];
  const Shape& sb = inputs[1];
  if (sa.rank() == 0 || sb.rank() == 0) return invalid_argument("both arguments need at least 1 dim");
  std::vector<int64_t> da = sa.dims(), db = sb.dims();
  if (sa.rank() == 1) da.insert(da.begin(), 1);
  if (sb.rank() == 1) db.push_back(1);
  UNIVK_ASSIGN_OR_RETURN(Matmul r, batched(Shape(da), Shape(db)));
  std::vector<int64_t> dims = r.output.dims();
  if (sb.rank() == 1) dims.pop_back();
  if (sa.rank() == 1) dims.erase(dims.end() - (sb.rank() == 1 ? 1 : 2));
  r.output = Shape(std::move(dims));
  return r;
}

Result<Matmul> bmm(const Attributes&, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 2, 2));
  const Shape& sa = inputs[0];
  const Shape& sb = inputs[1];
  if (sa.rank() != 3 || sb.rank() != 3 || sa[0] != sb[0]) {
    return invalid_argument("needs two 3-d tensors with equal batch, got " + sa.to_string() + " and " + sb.to_string());
  }
  return batched(sa, sb);
}

Result<Addmm> addmm(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 3, 3));
  Addmm r;
  UNIVK_ASSIGN_OR_RETURN(r.beta, attrs.get_float_or("beta", 1.0));
  UNIVK_ASSIGN_OR_RETURN(r.alpha, attrs.get_float_or("alpha", 1.0));
  const Shape& s1 = inputs[1];
  const Shape& s2 = inputs[2];
  if (s1.rank() != 2 || s2.rank() != 2) {
    return invalid_argument("mat1 " + s1.to_string() + " and mat2 " + s2.to_string() + " must be 2-d");
  }
  UNIVK_ASSIGN_OR_RETURN(r.product, batched(s1, s2));
  r.output = r.product.output;
  UNIVK_ASSIGN_OR_RETURN(Shape with_bias, broadcast_shapes(inputs[0], r.output));
  if (with_bias != r.output) {
    return invalid_argument("bias shape " + inputs[0].to_string() + " does not broadcast to " + r.output.to_string());
  }
  return r;
}

// ---- Normalisation and reductions ----------------------------------------------------------

Result<Softmax> softmax(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& s = inputs[0];
  Softmax r;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  UNIVK_ASSIGN_OR_RETURN(r.dim, wrap_dim(dim_attr, static_cast<int64_t>(s.rank()), "dim"));
  for (size_t d = 0; d < s.rank(); ++d) {
    if (static_cast<int64_t>(d) < r.dim)
      r.outer *= s[d];
    else if (static_cast<int64_t>(d) == r.dim)
      r.size = s[d];
    else
      r.inner *= s[d];
  }
  r.output = s;
  return r;
}

Result<Reduce> reduce(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& s = inputs[0];
  const int64_t rank = static_cast<int64_t>(s.rank());
  Reduce r;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints_or("dim", {}));
  UNIVK_ASSIGN_OR_RETURN(r.keepdim, attrs.get_bool_or("keepdim", false));
  r.reduced.assign(static_cast<size_t>(rank), dims.empty());  // no dims: reduce all
  for (int64_t d : dims) {
    UNIVK_ASSIGN_OR_RETURN(int64_t w, wrap_dim(d, rank, "dim"));
    if (rank == 0) continue;
    if (r.reduced[static_cast<size_t>(w)]) return invalid_argument("attribute 'dim' repeats dim " + std::to_string(w));
    r.reduced[static_cast<size_t>(w)] = true;
    r.dims.push_back(w);
  }
  if (dims.empty()) {
    for (int64_t d = 0; d < rank; ++d) r.dims.push_back(d);
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < r.reduced.size(); ++d) {
    if (r.reduced[d]) {
      r.count *= s[d];
      if (r.keepdim) out.push_back(1);
    } else {
      out.push_back(s[d]);
    }
  }
  r.output = Shape(std::move(out));
  return r;
}

Result<LayerNorm> layer_norm(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 3));
  const Shape& s = inputs[0];
  LayerNorm r;
  UNIVK_ASSIGN_OR_RETURN(r.normalized_shape, attrs.get_ints("normalized_shape"));
  UNIVK_ASSIGN_OR_RETURN(r.eps, attrs.get_float_or("eps", 1e-5));
  const std::vector<int64_t>& norm = r.normalized_shape;
  if (norm.empty() || norm.size() > s.rank() ||
      !std::equal(norm.begin(), norm.end(), s.dims().end() - static_cast<std::ptrdiff_t>(norm.size()))) {
    return invalid_argument("attribute 'normalized_shape'=" + ints_to_string(norm) +
                            " is not a suffix of the input shape " + s.to_string());
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i] != Shape(norm)) {
      return invalid_argument(std::string(i == 1 ? "weight" : "bias") + " shape " + inputs[i].to_string() +
                              " must equal normalized_shape " + ints_to_string(norm));
    }
  }
  r.inner = Shape(norm).numel();
  r.rows = r.inner == 0 ? 0 : s.numel() / r.inner;
  r.output = s;
  return r;
}

Result<BatchNorm> batch_norm(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 5, 5));
  const Shape& s = inputs[0];
  BatchNorm r;
  UNIVK_ASSIGN_OR_RETURN(r.eps, attrs.get_float_or("eps", 1e-5));
  if (s.rank() < 2) return invalid_argument("input shape " + s.to_string() + " needs at least 2 dims");
  r.outer = s[0];
  r.channels = s[1];
  for (size_t d = 2; d < s.rank(); ++d) r.inner *= s[d];
  static const char* kNames[] = {"weight", "bias", "running_mean", "running_var"};
  for (size_t i = 1; i < 5; ++i) {
    if (inputs[i] != Shape{r.channels}) {
      return invalid_argument(std::string(kNames[i - 1]) + " shape " + inputs[i].to_string() + " must be [" +
                              std::to_string(r.channels) + "]");
    }
  }
  r.output = s;
  return r;
}

}  // namespace univk::ops
