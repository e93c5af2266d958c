// Result shapes of the PyTorch-semantics operators (infer_op_shape) from input shapes and
// attributes alone, with the same rules and attribute defaults as the kernels in this folder.
#include <algorithm>
#include <limits>
#include <map>

#include "common.h"

namespace univk::reference {
namespace {

using detail::kMaxWindowAttr;
using Shapes = std::span<const Shape>;
using ShapeFn = Result<Shape> (*)(const Attributes& attrs, Shapes in);

Status check_count(Shapes in, size_t min, size_t max) {
  if (in.size() < min || in.size() > max) {
    return invalid_argument("takes " + std::to_string(min) + (min == max ? "" : ".." + std::to_string(max)) +
                            " tensor inputs, got " + std::to_string(in.size()));
  }
  return ok_status();
}

Result<Shape> same_as_first(const Attributes&, Shapes in) {
  if (in.empty()) return invalid_argument("needs at least one tensor input");
  return in[0];
}

Result<Shape> unary(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  return same_as_first(attrs, in);
}

Result<Shape> binary(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 2));
  if (in.size() == 2) {
    if (attrs.has("other")) return invalid_argument("attribute 'other' given together with two tensor inputs");
    return broadcast_shapes(in[0], in[1]);
  }
  if (!attrs.has("other")) return invalid_argument("one tensor input needs the scalar attribute 'other'");
  return in[0];
}

// [..., H, W] of a 3-d or 4-d pooling input, split into the leading dims and H, W.
Result<std::vector<int64_t>> pool_prefix(const Shape& s) {
  if (s.rank() != 3 && s.rank() != 4) {
    return invalid_argument("input shape " + s.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  return std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2);
}

Result<Shape> pool(const Attributes& attrs, Shapes in, bool with_dilation) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, pool_prefix(in[0]));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> k, attrs.ints_expanded("kernel_size", 2, {}));
  std::vector<int64_t> s = k;
  if (attrs.has("stride")) {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> given, attrs.get_ints("stride"));
    if (!given.empty()) {
      UNIVK_ASSIGN_OR_RETURN(s, attrs.ints_expanded("stride", 2, {}));
    }
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
  std::vector<int64_t> dil = {1, 1};
  if (with_dilation) {
    UNIVK_ASSIGN_OR_RETURN(dil, attrs.ints_expanded("dilation", 2, {1}));
  }
  UNIVK_ASSIGN_OR_RETURN(bool ceil_mode, attrs.get_bool_or("ceil_mode", false));
  for (size_t i = 0; i < 2; ++i) {
    if (k[i] <= 0 || s[i] <= 0 || dil[i] <= 0 || pad[i] < 0) {
      return invalid_argument("kernel_size, stride and dilation must be positive and padding non-negative");
    }
    if (std::max({k[i], s[i], dil[i], pad[i]}) > kMaxWindowAttr) {
      return invalid_argument("a window attribute is above 2^31");
    }
    if (pad[i] > ((k[i] - 1) * dil[i] + 1) / 2) {
      return invalid_argument("attribute 'padding' must be at most half of the kernel size");
    }
    const int64_t size = in[0][in[0].rank() - 2 + i];
    UNIVK_ASSIGN_OR_RETURN(int64_t out, pooled_size(size, k[i], s[i], pad[i], dil[i], ceil_mode));
    dims.push_back(out);
  }
  return Shape(dims);
}

Result<Shape> avg_pool2d(const Attributes& attrs, Shapes in) { return pool(attrs, in, false); }
Result<Shape> max_pool2d(const Attributes& attrs, Shapes in) { return pool(attrs, in, true); }

Result<Shape> adaptive_avg_pool2d(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, pool_prefix(in[0]));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.ints_expanded("output_size", 2, {}));
  if (size[0] <= 0 || size[1] <= 0) return invalid_argument("attribute 'output_size' must be positive");
  dims.insert(dims.end(), size.begin(), size.end());
  return Shape(dims);
}

Result<Shape> conv2d(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 2, 3));
  const Shape& x = in[0];
  const Shape& w = in[1];
  if (x.rank() != 3 && x.rank() != 4) {
    return invalid_argument("input shape " + x.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  if (w.rank() != 4) return invalid_argument("weight shape " + w.to_string() + " must be 4-d");
  const size_t b = x.rank() - 3;
  UNIVK_ASSIGN_OR_RETURN(int64_t groups, attrs.get_int_or("groups", 1));
  if (groups <= 0 || x[b] % groups != 0 || w[0] % groups != 0 || w[1] * groups != x[b]) {
    return invalid_argument("weight " + w.to_string() + " with groups=" + std::to_string(groups) +
                            " does not match input " + x.to_string());
  }
  if (in.size() == 3 && in[2] != Shape{w[0]}) {
    return invalid_argument("bias shape " + in[2].to_string() + " must be [" + std::to_string(w[0]) + "]");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, attrs.ints_expanded("stride", 2, {1}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, attrs.ints_expanded("dilation", 2, {1}));
  std::vector<int64_t> pad_total = {0, 0};
  auto mode = attrs.get_string("padding");
  if (mode.ok()) {
    if (*mode == "same") {
      if (stride[0] != 1 || stride[1] != 1) return invalid_argument("padding='same' needs stride 1");
      pad_total = {dil[0] * (w[2] - 1), dil[1] * (w[3] - 1)};
    } else if (*mode != "valid") {
      return invalid_argument("attribute 'padding'='" + *mode + "' must be ints, \"valid\" or \"same\"");
    }
  } else {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
    pad_total = {2 * pad[0], 2 * pad[1]};
  }
  std::vector<int64_t> dims(x.dims().begin(), x.dims().begin() + static_cast<std::ptrdiff_t>(b));
  dims.push_back(w[0]);
  for (size_t i = 0; i < 2; ++i) {
    if (stride[i] <= 0 || dil[i] <= 0 || pad_total[i] < 0 ||
        std::max({stride[i], dil[i], pad_total[i] / 2}) > kMaxWindowAttr) {
      return invalid_argument("attribute 'stride', 'dilation' or 'padding' is out of range");
    }
    const int64_t span = x[b + 1 + i] + pad_total[i] - dil[i] * (w[2 + i] - 1) - 1;
    if (span < 0) return invalid_argument("kernel " + w.to_string() + " is larger than the padded input " + x.to_string());
    dims.push_back(span / stride[i] + 1);
  }
  return Shape(dims);
}

Result<Shape> batched_matmul(const Shape& a, const Shape& b) {
  if (a[a.rank() - 1] != b[b.rank() - 2]) {
    return invalid_argument("shapes " + a.to_string() + " and " + b.to_string() + " cannot be multiplied");
  }
  UNIVK_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes(Shape(std::vector<int64_t>(a.dims().begin(), a.dims().end() - 2)),
                                                       Shape(std::vector<int64_t>(b.dims().begin(), b.dims().end() - 2))));
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(a[a.rank() - 2]);
  dims.push_back(b[b.rank() - 1]);
  return Shape(dims);
}

Result<Shape> matmul(const Attributes&, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 2, 2));
  if (in[0].rank() == 0 || in[1].rank() == 0) return invalid_argument("both arguments need at least 1 dim");
  std::vector<int64_t> da = in[0].dims(), db = in[1].dims();
  if (in[0].rank() == 1) da.insert(da.begin(), 1);
  if (in[1].rank() == 1) db.push_back(1);
  UNIVK_ASSIGN_OR_RETURN(Shape out, batched_matmul(Shape(da), Shape(db)));
  std::vector<int64_t> dims = out.dims();
  if (in[1].rank() == 1) dims.pop_back();
  if (in[0].rank() == 1) dims.erase(dims.end() - (in[1].rank() == 1 ? 1 : 2));
  return Shape(dims);
}

Result<Shape> bmm(const Attributes&, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 2, 2));
  if (in[0].rank() != 3 || in[1].rank() != 3 || in[0][0] != in[1][0]) {
    return invalid_argument("needs two 3-d tensors with equal batch, got " + in[0].to_string() + " and " +
                            in[1].to_string());
  }
  return batched_matmul(in[0], in[1]);
}

Result<Shape> linear(const Attributes&, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 2, 3));
  const Shape& x = in[0];
  const Shape& w = in[1];
  if (x.rank() == 0 || w.rank() != 2 || x[x.rank() - 1] != w[1]) {
    return invalid_argument("input " + x.to_string() + " and weight " + w.to_string() + " do not match");
  }
  if (in.size() == 3 && in[2] != Shape{w[0]}) {
    return invalid_argument("bias shape " + in[2].to_string() + " must be [" + std::to_string(w[0]) + "]");
  }
  std::vector<int64_t> dims = x.dims();
  dims.back() = w[0];
  return Shape(dims);
}

Result<Shape> addmm(const Attributes&, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 3, 3));
  if (in[1].rank() != 2 || in[2].rank() != 2) {
    return invalid_argument("mat1 " + in[1].to_string() + " and mat2 " + in[2].to_string() + " must be 2-d");
  }
  UNIVK_ASSIGN_OR_RETURN(Shape out, batched_matmul(in[1], in[2]));
  UNIVK_ASSIGN_OR_RETURN(Shape with_bias, broadcast_shapes(in[0], out));
  if (with_bias != out) {
    return invalid_argument("bias shape " + in[0].to_string() + " does not broadcast to " + out.to_string());
  }
  return out;
}

Result<Shape> softmax(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, attrs.get_int("dim"));
  UNIVK_RETURN_IF_ERROR(wrap_dim(dim, static_cast<int64_t>(in[0].rank()), "dim").status());
  return in[0];
}

Result<Shape> reduce(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  const int64_t rank = static_cast<int64_t>(in[0].rank());
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints_or("dim", {}));
  UNIVK_ASSIGN_OR_RETURN(bool keepdim, attrs.get_bool_or("keepdim", false));
  std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());
  for (int64_t d : dims) {
    UNIVK_ASSIGN_OR_RETURN(int64_t w, wrap_dim(d, rank, "dim"));
    if (rank == 0) continue;
    if (reduced[static_cast<size_t>(w)]) return invalid_argument("attribute 'dim' repeats dim " + std::to_string(w));
    reduced[static_cast<size_t>(w)] = true;
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) out.push_back(in[0][d]);
    else if (keepdim) out.push_back(1);
  }
  return Shape(out);
}

Result<Shape> layer_norm(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 3));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> norm, attrs.get_ints("normalized_shape"));
  const Shape& s = in[0];
  if (norm.empty() || norm.size() > s.rank() ||
      !std::equal(norm.begin(), norm.end(), s.dims().end() - static_cast<std::ptrdiff_t>(norm.size()))) {
    return invalid_argument("attribute 'normalized_shape'=" + Shape(norm).to_string() +
                            " is not a suffix of the input shape " + s.to_string());
  }
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i] != Shape(norm)) return invalid_argument("weight and bias must have the shape normalized_shape");
  }
  return s;
}

Result<Shape> batch_norm(const Attributes&, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 5, 5));
  if (in[0].rank() < 2) return invalid_argument("input shape " + in[0].to_string() + " needs at least 2 dims");
  for (size_t i = 1; i < 5; ++i) {
    if (in[i] != Shape{in[0][1]}) {
      return invalid_argument("weight, bias, running_mean and running_var must be [" + std::to_string(in[0][1]) + "]");
    }
  }
  return in[0];
}

Result<Shape> reshape(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("shape"));
  return detail::infer_reshape(dims, in[0].numel(), "shape");
}

Result<Shape> flatten(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  const int64_t rank = static_cast<int64_t>(in[0].rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t start_attr, attrs.get_int_or("start_dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t end_attr, attrs.get_int_or("end_dim", -1));
  UNIVK_ASSIGN_OR_RETURN(int64_t start, wrap_dim(start_attr, rank, "start_dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t end, wrap_dim(end_attr, rank, "end_dim"));
  if (start > end) return invalid_argument("attribute 'start_dim' comes after 'end_dim'");
  if (rank == 0) return Shape{1};
  std::vector<int64_t> dims;
  int64_t merged = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = in[0][static_cast<size_t>(d)];
    if (d < start || d > end) {
      dims.push_back(size);
    } else {
      merged *= size;
      if (d == end) dims.push_back(merged);
    }
  }
  return Shape(dims);
}

Result<Shape> permute(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("dims"));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> perm,
                         detail::check_permutation(dims, static_cast<int64_t>(in[0].rank()), true, "dims"));
  std::vector<int64_t> out;
  for (int64_t p : perm) out.push_back(in[0][static_cast<size_t>(p)]);
  return Shape(out);
}

Result<Shape> transpose(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  const int64_t rank = static_cast<int64_t>(in[0].rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t a0, attrs.get_int("dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t a1, attrs.get_int("dim1"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d0, wrap_dim(a0, rank, "dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d1, wrap_dim(a1, rank, "dim1"));
  if (rank == 0) return in[0];
  std::vector<int64_t> dims = in[0].dims();
  std::swap(dims[static_cast<size_t>(d0)], dims[static_cast<size_t>(d1)]);
  return Shape(dims);
}

Result<Shape> cat(const Attributes& attrs, Shapes in) {
  if (in.empty()) return invalid_argument("needs at least one input tensor");
  if (in[0].rank() == 0) return invalid_argument("zero-dimensional tensors cannot be concatenated");
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(in[0].rank()), "dim"));
  std::vector<int64_t> dims = in[0].dims();
  for (size_t i = 1; i < in.size(); ++i) {
    bool match = in[i].rank() == in[0].rank();
    for (size_t d = 0; match && d < dims.size(); ++d) match = static_cast<int64_t>(d) == dim || in[i][d] == dims[d];
    if (!match) {
      return invalid_argument("input " + std::to_string(i) + " shape " + in[i].to_string() + " does not match " +
                              in[0].to_string() + " outside dim " + std::to_string(dim));
    }
    dims[static_cast<size_t>(dim)] += in[i][static_cast<size_t>(dim)];
  }
  return Shape(dims);
}

Result<Shape> slice(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(SliceRange range, resolve_slice(attrs, in[0]));
  return range.output;
}

Result<Shape> squeeze(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  const Shape& s = in[0];
  std::vector<int64_t> dims;
  if (attrs.has("dim")) {
    UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
    UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(s.rank()), "dim"));
    for (size_t d = 0; d < s.rank(); ++d) {
      if (static_cast<int64_t>(d) != dim || s[d] != 1) dims.push_back(s[d]);
    }
  } else {
    for (int64_t v : s.dims()) {
      if (v != 1) dims.push_back(v);
    }
  }
  return Shape(dims);
}

Result<Shape> unsqueeze(const Attributes& attrs, Shapes in) {
  UNIVK_RETURN_IF_ERROR(check_count(in, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(in[0].rank()) + 1, "dim"));
  std::vector<int64_t> dims = in[0].dims();
  dims.insert(dims.begin() + dim, 1);
  return Shape(dims);
}

// Built once on first use (thread-safe static initialisation), read-only afterwards.
const std::map<std::string, ShapeFn, std::less<>>& shape_fns() {
  static const std::map<std::string, ShapeFn, std::less<>> map = [] {
    std::map<std::string, ShapeFn, std::less<>> m;
    for (const char* op : {"sigmoid", "tanh", "relu", "relu6", "hardtanh", "clamp", "gelu", "silu", "hardswish",
                           "hardsigmoid", "exp", "log", "neg", "abs", "sqrt", "rsqrt", "reciprocal", "contiguous"}) {
      m[op] = unary;
    }
    for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum", "pow"}) m[op] = binary;
    m["avg_pool2d"] = avg_pool2d;
    m["max_pool2d"] = max_pool2d;
    m["adaptive_avg_pool2d"] = adaptive_avg_pool2d;
    m["conv2d"] = conv2d;
    m["linear"] = linear;
    m["matmul"] = matmul;
    m["bmm"] = bmm;
    m["addmm"] = addmm;
    m["softmax"] = softmax;
    m["log_softmax"] = softmax;
    m["sum"] = reduce;
    m["mean"] = reduce;
    m["layer_norm"] = layer_norm;
    m["batch_norm"] = batch_norm;
    m["view"] = reshape;
    m["reshape"] = reshape;
    m["flatten"] = flatten;
    m["permute"] = permute;
    m["transpose"] = transpose;
    m["cat"] = cat;
    m["slice"] = slice;
    m["squeeze"] = squeeze;
    m["unsqueeze"] = unsqueeze;
    return m;
  }();
  return map;
}

}  // namespace

Result<Shape> infer_op_shape(std::string_view op, const Attributes& attrs, std::span<const Shape> inputs) {
  auto it = shape_fns().find(op);
  if (it == shape_fns().end()) return unsupported("op '" + std::string(op) + "' has no shape rule");
  auto shape = it->second(attrs, inputs);
  if (!shape.ok()) return shape.status().with_context(std::string(op));
  return shape;
}

}  // namespace univk::reference
