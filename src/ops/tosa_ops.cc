// TOSA 1.0 shape rules (tosa_ops.h): pooling and convolution windows (attributes, limits and the
// exact output-size rule), MATMUL, the reductions, the data-movement operators and RESIZE.
#include "univk/ops/tosa_ops.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "univk/ops/torch_ops.h"

namespace univk::ops {
namespace {

// A list attribute of `count` values in [min_value, kMaxWindowAttr].
Result<std::vector<int64_t>> int_list(const Attributes& attrs, const std::string& name, size_t count,
                                      std::vector<int64_t> fallback, int64_t min_value) {
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> v, attrs.get_ints_or(name, std::move(fallback)));
  if (v.size() != count) {
    return invalid_argument("attribute '" + name + "' has " + std::to_string(v.size()) + " values, expected " +
                            std::to_string(count));
  }
  for (int64_t x : v) {
    if (x > kMaxWindowAttr) {
      return invalid_argument("attribute '" + name + "' has value " + std::to_string(x) + " above 2^31");
    }
    if (x < min_value) {
      return invalid_argument("attribute '" + name + "' has value " + std::to_string(x) + " below " +
                              std::to_string(min_value));
    }
  }
  return v;
}

Status check_nhwc(const Shape& input) {
  if (input.rank() != 4) return invalid_argument("input shape " + input.to_string() + " must be 4-d NHWC");
  return ok_status();
}

// Output size per the spec's idiv_check: the division must be exact.
Result<int64_t> exact_out(int64_t in, int64_t pad, int64_t eff_kernel, int64_t stride, const char* axis) {
  const int64_t span = in - 1 + pad - (eff_kernel - 1);
  if (span < 0) return invalid_argument(std::string("kernel does not fit the padded input along ") + axis);
  if (span % stride != 0) {
    return invalid_argument(std::string("output ") + axis + " is not an exact division: (" + std::to_string(span) +
                            ") / stride " + std::to_string(stride));
  }
  return span / stride + 1;
}

}  // namespace

Result<TosaPool2d> tosa_pool2d(const Attributes& attrs, const Shape& input) {
  TosaPool2d p;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> k, int_list(attrs, "kernel", 2, {}, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> s, int_list(attrs, "stride", 2, {}, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, int_list(attrs, "pad", 4, {0, 0, 0, 0}, 0));
  for (size_t i = 0; i < 2; ++i) p.kernel[i] = k[i], p.stride[i] = s[i];
  for (size_t i = 0; i < 4; ++i) p.pad[i] = pad[i];
  if (pad[0] >= k[0] || pad[1] >= k[0] || pad[2] >= k[1] || pad[3] >= k[1]) {
    return invalid_argument("attribute 'pad' must be smaller than the kernel in each dimension");
  }
  UNIVK_RETURN_IF_ERROR(check_nhwc(input));
  UNIVK_ASSIGN_OR_RETURN(p.out_h, exact_out(input[1], pad[0] + pad[1], k[0], s[0], "height"));
  UNIVK_ASSIGN_OR_RETURN(p.out_w, exact_out(input[2], pad[2] + pad[3], k[1], s[1], "width"));
  p.output = Shape{input[0], p.out_h, p.out_w, input[3]};
  return p;
}

Result<TosaConv2d> tosa_conv2d(const Attributes& attrs, const Shape& input, int64_t kh, int64_t kw) {
  TosaConv2d c;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, int_list(attrs, "pad", 4, {0, 0, 0, 0}, 0));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, int_list(attrs, "stride", 2, {1, 1}, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, int_list(attrs, "dilation", 2, {1, 1}, 1));
  for (size_t i = 0; i < 4; ++i) c.pad[i] = pad[i];
  for (size_t i = 0; i < 2; ++i) c.stride[i] = stride[i], c.dilation[i] = dil[i];
  UNIVK_RETURN_IF_ERROR(check_nhwc(input));
  UNIVK_ASSIGN_OR_RETURN(c.out_h, exact_out(input[1], pad[0] + pad[1], (kh - 1) * dil[0] + 1, stride[0], "height"));
  UNIVK_ASSIGN_OR_RETURN(c.out_w, exact_out(input[2], pad[2] + pad[3], (kw - 1) * dil[1] + 1, stride[1], "width"));
  return c;
}

Result<TosaTransposeConv2d> tosa_transpose_conv2d(const Attributes& attrs, const Shape& input, int64_t kh, int64_t kw) {
  TosaTransposeConv2d c;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, int_list(attrs, "out_pad", 4, {0, 0, 0, 0}, -kMaxWindowAttr));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, int_list(attrs, "stride", 2, {1, 1}, 1));
  UNIVK_RETURN_IF_ERROR(check_nhwc(input));
  if (kh < 1 || kw < 1) return invalid_argument("kernel " + std::to_string(kh) + "x" + std::to_string(kw));
  const int64_t kernel[2] = {kh, kw};
  for (size_t i = 0; i < 4; ++i) {
    if (pad[i] <= -kernel[i / 2]) {
      return invalid_argument("attribute 'out_pad' value " + std::to_string(pad[i]) + " must be above -" +
                              std::to_string(kernel[i / 2]));
    }
    c.out_pad[i] = pad[i];
  }
  c.stride[0] = stride[0], c.stride[1] = stride[1];
  c.out_h = (input[1] - 1) * stride[0] + pad[0] + pad[1] + kh;
  c.out_w = (input[2] - 1) * stride[1] + pad[2] + pad[3] + kw;
  if (c.out_h < 1 || c.out_w < 1) {
    return invalid_argument("output size " + std::to_string(c.out_h) + "x" + std::to_string(c.out_w) +
                            " is not positive");
  }
  return c;
}

Result<TosaTranspose> tosa_transpose(const Attributes& attrs, const Shape& input) {
  TosaTranspose t;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> perms, attrs.get_ints("perms"));
  UNIVK_ASSIGN_OR_RETURN(t.perms, check_permutation(perms, static_cast<int64_t>(input.rank()), "perms", false));
  std::vector<int64_t> dims;
  for (int64_t p : t.perms) dims.push_back(input[static_cast<size_t>(p)]);
  t.output = Shape(std::move(dims));
  return t;
}

Result<TosaSlice> tosa_slice(const Attributes& attrs, const Shape& input) {
  TosaSlice r;
  const size_t rank = input.rank();
  UNIVK_ASSIGN_OR_RETURN(r.start, attrs.get_ints("start"));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.get_ints("size"));
  if (r.start.size() != rank || size.size() != rank) {
    return invalid_argument("attributes 'start' and 'size' need " + std::to_string(rank) + " values each");
  }
  for (size_t d = 0; d < rank; ++d) {
    if (r.start[d] < 0 || size[d] <= 0 || r.start[d] > input[d] || size[d] > input[d] - r.start[d]) {
      return invalid_argument("start " + std::to_string(r.start[d]) + " / size " + std::to_string(size[d]) +
                              " out of bounds in dim " + std::to_string(d) + " of " + input.to_string());
    }
  }
  r.output = Shape(std::move(size));
  return r;
}

Result<TosaPad> tosa_pad(const Attributes& attrs, const Shape& input) {
  TosaPad r;
  const size_t rank = input.rank();
  UNIVK_ASSIGN_OR_RETURN(r.padding, int_list(attrs, "padding", 2 * rank, {}, 0));
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) dims[d] = input[d] + r.padding[2 * d] + r.padding[2 * d + 1];
  UNIVK_ASSIGN_OR_RETURN(r.output, Shape::checked(std::move(dims)));
  return r;
}

Result<TosaResize> tosa_resize(const Attributes& attrs, const Shape& input) {
  UNIVK_RETURN_IF_ERROR(check_nhwc(input));
  TosaResize r;
  UNIVK_ASSIGN_OR_RETURN(r.mode, attrs.get_int("mode"));
  if (r.mode != kTosaResizeNearest && r.mode != kTosaResizeBilinear) {
    return invalid_argument("attribute 'mode'=" + std::to_string(r.mode) + " is not 1 (NEAREST) or 2 (BILINEAR)");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> scale, int_list(attrs, "scale", 4, {}, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> offset, int_list(attrs, "offset", 2, {}, -kMaxWindowAttr));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> border, int_list(attrs, "border", 2, {}, -kMaxWindowAttr));
  std::vector<int64_t> dims = input.dims();
  for (int a = 0; a < 2; ++a) {
    const char* axis = a == 0 ? "y" : "x";
    const int64_t n = scale[2 * a], d = scale[2 * a + 1];
    r.scale[2 * a] = n, r.scale[2 * a + 1] = d, r.offset[a] = offset[a], r.border[a] = border[a];
    if (n > (int64_t{1} << 11) || d >= 16 * n) {
      return invalid_argument(std::string("scale_") + axis + " " + std::to_string(n) + "/" + std::to_string(d) +
                              " needs n <= 2048 and d < 16 n");
    }
    if (offset[a] < -n || offset[a] >= 16 * n || border[a] < -16 * n || border[a] >= n) {
      return invalid_argument(std::string("offset_") + axis + "=" + std::to_string(offset[a]) + " / border_" + axis +
                              "=" + std::to_string(border[a]) +
                              " out of [-n, 16 n) / [-16 n, n) for n=" + std::to_string(n));
    }
    const int64_t span = (input[1 + a] - 1) * n - offset[a] + border[a];
    if (span < 0 || span % d != 0) {
      return invalid_argument(std::string("the ") + axis + " output size is not exact: ((in-1) n - offset + border) " +
                              std::to_string(span) + " is not a multiple of d=" + std::to_string(d));
    }
    dims[1 + a] = span / d + 1;
  }
  UNIVK_ASSIGN_OR_RETURN(r.output, Shape::checked(std::move(dims)));
  return r;
}

Result<Shape> tosa_tile(const Attributes& attrs, const Shape& input) {
  const size_t rank = input.rank();
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> multiples, int_list(attrs, "multiples", rank, {}, 1));
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (input[d] > std::numeric_limits<int64_t>::max() / multiples[d]) {
      return invalid_argument("attribute 'multiples' overflows dim " + std::to_string(d) + " of " + input.to_string());
    }
    dims[d] = input[d] * multiples[d];
  }
  return Shape::checked(std::move(dims));
}

Result<Shape> tosa_matmul(const Shape& a, const Shape& b) {
  if (a.rank() != 3 || b.rank() != 3 || a[0] != b[0] || a[2] != b[1])
    return invalid_argument("A " + a.to_string() + " and B " + b.to_string() + " must be [N,H,C] and [N,C,W]");
  return Shape{a[0], a[1], b[2]};
}

Result<int64_t> tosa_axis(const Attributes& attrs, const Shape& input) {
  const int64_t rank = static_cast<int64_t>(input.rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t axis, attrs.get_int("axis"));
  if (axis < 0 || axis >= rank) {
    return invalid_argument("attribute 'axis'=" + std::to_string(axis) + " is not in [0, " + std::to_string(rank) +
                            ")");
  }
  return axis;
}

Result<TosaReduce> tosa_reduce(const Attributes& attrs, const Shape& input) {
  TosaReduce r;
  UNIVK_ASSIGN_OR_RETURN(r.axis, tosa_axis(attrs, input));
  std::vector<int64_t> dims = input.dims();
  dims[static_cast<size_t>(r.axis)] = 1;
  r.output = Shape(std::move(dims));
  return r;
}

Result<TosaReduce> tosa_argmax(const Attributes& attrs, const Shape& input) {
  TosaReduce r;
  UNIVK_ASSIGN_OR_RETURN(r.axis, tosa_axis(attrs, input));
  std::vector<int64_t> dims = input.dims();
  dims.erase(dims.begin() + r.axis);
  r.output = Shape(std::move(dims));
  return r;
}

Result<Shape> tosa_reshape(const Attributes& attrs, const Shape& input) {
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("shape"));
  return infer_reshape(dims, input.numel(), "shape");
}

Result<TosaConcat> tosa_concat(const Attributes& attrs, std::span<const Shape> inputs) {
  if (inputs.empty()) return invalid_argument("needs at least one input tensor");
  TosaConcat c;
  const Shape& first = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(c.axis, tosa_axis(attrs, first));
  const size_t axis = static_cast<size_t>(c.axis);
  std::vector<int64_t> dims = first.dims();
  for (size_t i = 1; i < inputs.size(); ++i) {
    const Shape& s = inputs[i];
    bool match = s.rank() == first.rank();
    for (size_t d = 0; match && d < s.rank(); ++d) match = d == axis || s[d] == first[d];
    if (!match) {
      return invalid_argument("input " + std::to_string(i) + " shape " + s.to_string() + " differs from input 0 " +
                              first.to_string() + " outside the concatenation axis " + std::to_string(axis));
    }
    dims[axis] += s[axis];
  }
  c.output = Shape(std::move(dims));
  return c;
}

Result<TosaScale> tosa_scale32(double scale) {
  if (!std::isfinite(scale) || scale <= 0.0)
    return invalid_argument("RESCALE scale " + std::to_string(scale) + " (must be finite and > 0)");
  int exponent = 0;
  const double fraction = std::frexp(scale, &exponent);  // scale = fraction * 2^exponent, fraction in [0.5, 1)
  TosaScale s{std::llround(std::ldexp(fraction, 31)), 31 - int64_t{exponent}};
  if (s.multiplier == int64_t{1} << 31) {  // the fraction rounded up to 1.0
    s.multiplier >>= 1;
    s.shift -= 1;
  }
  if (s.shift < 2) return invalid_argument("RESCALE scale " + std::to_string(scale) + " (must be below 2^29)");
  if (s.shift > 62) s = {std::llround(std::ldexp(scale, 62)), 62};
  return s;
}

Result<TosaConv3d> tosa_conv3d(const Attributes& attrs, const Shape& input, int64_t kd, int64_t kh, int64_t kw) {
  TosaConv3d c;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, int_list(attrs, "pad", 6, {0, 0, 0, 0, 0, 0}, 0));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, int_list(attrs, "stride", 3, {1, 1, 1}, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, int_list(attrs, "dilation", 3, {1, 1, 1}, 1));
  for (size_t i = 0; i < 6; ++i) c.pad[i] = pad[i];
  for (size_t i = 0; i < 3; ++i) c.stride[i] = stride[i], c.dilation[i] = dil[i];
  if (input.rank() != 5) return invalid_argument("input shape " + input.to_string() + " must be 5-d NDHWC");
  if (kd < 1 || kh < 1 || kw < 1) return invalid_argument("kernel sizes must be at least 1");
  UNIVK_ASSIGN_OR_RETURN(c.out_d, exact_out(input[1], pad[0] + pad[1], (kd - 1) * dil[0] + 1, stride[0], "depth"));
  UNIVK_ASSIGN_OR_RETURN(c.out_h, exact_out(input[2], pad[2] + pad[3], (kh - 1) * dil[1] + 1, stride[1], "height"));
  UNIVK_ASSIGN_OR_RETURN(c.out_w, exact_out(input[3], pad[4] + pad[5], (kw - 1) * dil[2] + 1, stride[2], "width"));
  return c;
}

Result<int64_t> tosa_reverse(const Attributes& attrs, const Shape& input) { return tosa_axis(attrs, input); }

Result<Shape> tosa_scatter(const Shape& values_in, const Shape& indices, const Shape& input) {
  if (values_in.rank() != 3 || indices.rank() != 2 || input.rank() != 3 || indices[0] != values_in[0] ||
      input[0] != values_in[0] || input[1] != indices[1] || input[2] != values_in[2]) {
    return invalid_argument("values_in " + values_in.to_string() + ", indices " + indices.to_string() + " and input " +
                            input.to_string() + " are not [N,K,C], [N,W] and [N,W,C]");
  }
  if (indices[1] > values_in[1]) {
    return invalid_argument("indices " + indices.to_string() + " name more rows than values_in " +
                            values_in.to_string() + " has (W > K)");
  }
  return values_in;
}

namespace {

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Status check_fft_input(const Shape& s, const char* what) {
  if (s.rank() != 3) return invalid_argument(std::string(what) + " shape " + s.to_string() + " must be [N,H,W]");
  if (!power_of_two(s[1]) || !power_of_two(s[2])) {
    return invalid_argument(std::string(what) + " shape " + s.to_string() + ": H and W must be powers of two");
  }
  return ok_status();
}

}  // namespace

Result<Shape> tosa_fft2d(const Shape& input_real, const Shape& input_imag) {
  UNIVK_RETURN_IF_ERROR(check_fft_input(input_real, "input_real"));
  if (input_imag != input_real) {
    return invalid_argument("input_imag " + input_imag.to_string() + " differs from input_real " +
                            input_real.to_string());
  }
  return input_real;
}

Result<Shape> tosa_rfft2d(const Shape& input_real) {
  UNIVK_RETURN_IF_ERROR(check_fft_input(input_real, "input_real"));
  return Shape{input_real[0], input_real[1], input_real[2] / 2 + 1};
}

}  // namespace univk::ops
