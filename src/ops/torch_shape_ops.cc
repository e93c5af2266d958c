// Shape rules of the PyTorch shape operators (view/reshape, flatten, permute, transpose, cat,
// slice, pad, squeeze, unsqueeze, contiguous) and the op-name table behind infer_shape.
#include <algorithm>
#include <limits>
#include <map>

#include "univk/ops/torch_index_ops.h"
#include "univk/ops/torch_ops.h"
#include "univk/ops/torch_volume_ops.h"

namespace univk::ops {

Result<Permutation> permute(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  Permutation p;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("dims"));
  UNIVK_ASSIGN_OR_RETURN(p.perm, check_permutation(std::move(dims), static_cast<int64_t>(inputs[0].rank()), "dims"));
  std::vector<int64_t> out;
  for (int64_t d : p.perm) out.push_back(inputs[0][static_cast<size_t>(d)]);
  p.output = Shape(std::move(out));
  return p;
}

Result<Permutation> transpose(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& s = inputs[0];
  const int64_t rank = static_cast<int64_t>(s.rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t a0, attrs.get_int("dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t a1, attrs.get_int("dim1"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d0, wrap_dim(a0, rank, "dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d1, wrap_dim(a1, rank, "dim1"));
  Permutation p;
  for (int64_t i = 0; i < rank; ++i) p.perm.push_back(i);
  if (rank > 0) std::swap(p.perm[static_cast<size_t>(d0)], p.perm[static_cast<size_t>(d1)]);
  std::vector<int64_t> out;
  for (int64_t d : p.perm) out.push_back(s[static_cast<size_t>(d)]);
  p.output = Shape(std::move(out));
  return p;
}

Result<Cat> cat(const Attributes& attrs, Shapes inputs) {
  if (inputs.empty()) return invalid_argument("needs at least one input tensor");
  const Shape& first = inputs[0];
  if (first.rank() == 0) return invalid_argument("zero-dimensional tensors cannot be concatenated");
  Cat c;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  UNIVK_ASSIGN_OR_RETURN(c.dim, wrap_dim(dim_attr, static_cast<int64_t>(first.rank()), "dim"));
  const size_t ud = static_cast<size_t>(c.dim);
  std::vector<int64_t> dims = first.dims();
  for (size_t i = 1; i < inputs.size(); ++i) {
    const Shape& s = inputs[i];
    bool match = s.rank() == first.rank();
    for (size_t d = 0; match && d < dims.size(); ++d) match = d == ud || s[d] == first[d];
    if (!match) {
      return invalid_argument("input " + std::to_string(i) + " shape " + s.to_string() + " does not match input 0 " +
                              first.to_string() + " outside dim " + std::to_string(c.dim));
    }
    dims[ud] += s[ud];
  }
  c.output = Shape(std::move(dims));
  return c;
}

Result<Slice> slice(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& in = inputs[0];
  const int64_t rank = static_cast<int64_t>(in.rank());
  if (rank == 0) return invalid_argument("cannot slice a 0-d tensor");
  Slice r;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  UNIVK_ASSIGN_OR_RETURN(r.dim, wrap_dim(dim_attr, rank, "dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t start, attrs.get_int_or("start", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t end, attrs.get_int_or("end", std::numeric_limits<int64_t>::max()));
  UNIVK_ASSIGN_OR_RETURN(r.step, attrs.get_int_or("step", 1));
  if (r.step <= 0) return invalid_argument("attribute 'step'=" + std::to_string(r.step) + " must be positive");
  const int64_t size = in[static_cast<size_t>(r.dim)];
  if (start < 0) start += size;
  if (end < 0) end += size;
  r.start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, r.start, size);
  r.length = (end - r.start + r.step - 1) / r.step;
  std::vector<int64_t> dims = in.dims();
  dims[static_cast<size_t>(r.dim)] = r.length;
  r.output = Shape(std::move(dims));
  return r;
}

Result<Pad> pad(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& in = inputs[0];
  const size_t rank = in.rank();
  Pad p;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> widths, attrs.get_ints("pad"));
  if (widths.size() % 2 != 0 || widths.size() > 2 * rank) {
    return invalid_argument("attribute 'pad' has " + std::to_string(widths.size()) + " values; expected pairs, " +
                            "at most two per dim of the rank-" + std::to_string(rank) + " input");
  }
  std::string mode_attr = "constant";
  if (attrs.has("mode")) {
    UNIVK_ASSIGN_OR_RETURN(mode_attr, attrs.get_string("mode"));
  }
  if (mode_attr == "constant") {
    p.mode = PadMode::kConstant;
  } else if (mode_attr == "reflect") {
    p.mode = PadMode::kReflect;
  } else if (mode_attr == "replicate") {
    p.mode = PadMode::kReplicate;
  } else {
    return unsupported("pad mode '" + mode_attr + "' (constant, reflect and replicate are supported)");
  }
  UNIVK_ASSIGN_OR_RETURN(p.value, attrs.get_float_or("value", 0.0));
  if (p.mode != PadMode::kConstant && p.value != 0.0) return invalid_argument("'value' is only used by constant mode");
  p.before.assign(rank, 0);
  p.after.assign(rank, 0);
  std::vector<int64_t> dims = in.dims();
  for (size_t i = 0; i < widths.size() / 2; ++i) {
    const size_t d = rank - 1 - i;
    const int64_t lo = widths[2 * i], hi = widths[2 * i + 1];
    if (lo < 0 || hi < 0) return unsupported("negative padding (cropping) on dim " + std::to_string(d));
    if (p.mode == PadMode::kReflect && (lo >= in[d] || hi >= in[d])) {
      return invalid_argument("reflect padding (" + std::to_string(lo) + ", " + std::to_string(hi) + ") of dim " +
                              std::to_string(d) + " must be smaller than its size " + std::to_string(in[d]));
    }
    if (p.mode == PadMode::kReplicate && in[d] == 0 && lo + hi > 0) {
      return invalid_argument("replicate padding of the empty dim " + std::to_string(d));
    }
    p.before[d] = lo;
    p.after[d] = hi;
    dims[d] += lo + hi;
  }
  p.output = Shape(std::move(dims));
  return p;
}

Result<Shape> reshape(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("shape"));
  return infer_reshape(dims, inputs[0].numel(), "shape");
}

Result<Shape> flatten(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& s = inputs[0];
  const int64_t rank = static_cast<int64_t>(s.rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t start_attr, attrs.get_int_or("start_dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t end_attr, attrs.get_int_or("end_dim", -1));
  UNIVK_ASSIGN_OR_RETURN(int64_t start, wrap_dim(start_attr, rank, "start_dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t end, wrap_dim(end_attr, rank, "end_dim"));
  if (start > end) return invalid_argument("attribute 'start_dim' comes after 'end_dim'");
  if (rank == 0) return Shape{1};  // flatten of a scalar is a 1-element vector
  std::vector<int64_t> dims;
  int64_t merged = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = s[static_cast<size_t>(d)];
    if (d < start || d > end) {
      dims.push_back(size);
    } else {
      merged *= size;
      if (d == end) dims.push_back(merged);
    }
  }
  return Shape(std::move(dims));
}

Result<Shape> squeeze(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  const Shape& s = inputs[0];
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
  return Shape(std::move(dims));
}

Result<Shape> unsqueeze(const Attributes& attrs, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  // Valid range is [-rank-1, rank], i.e. wrapping against rank+1.
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(inputs[0].rank()) + 1, "dim"));
  std::vector<int64_t> dims = inputs[0].dims();
  dims.insert(dims.begin() + dim, 1);
  return Shape(std::move(dims));
}

Result<Shape> contiguous(const Attributes&, Shapes inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs.size(), 1, 1));
  return inputs[0];
}

// ---- Every operator ------------------------------------------------------------------------

namespace {

using ShapeFn = Result<Shape> (*)(std::string_view op, const Attributes& attrs, Shapes inputs);

// The output shape of a resolver that returns a struct with `output`.
template <auto Fn>
Result<Shape> output_of(std::string_view op, const Attributes& attrs, Shapes inputs) {
  if constexpr (requires { Fn(op, attrs, inputs); }) {
    UNIVK_ASSIGN_OR_RETURN(auto r, Fn(op, attrs, inputs));
    if constexpr (requires { r.output; })
      return r.output;
    else
      return r;
  } else {
    UNIVK_ASSIGN_OR_RETURN(auto r, Fn(attrs, inputs));
    if constexpr (requires { r.output; })
      return r.output;
    else
      return r;
  }
}

// Built once on first use (thread-safe static initialisation), read-only afterwards.
const std::map<std::string, ShapeFn, std::less<>>& shape_fns() {
  static const std::map<std::string, ShapeFn, std::less<>> map = [] {
    std::map<std::string, ShapeFn, std::less<>> m;
    for (std::string_view op : unary_op_names()) m.emplace(op, output_of<unary>);
    for (std::string_view op : binary_op_names()) m.emplace(op, output_of<binary>);
    m.emplace("avg_pool2d", output_of<pool2d>);
    m.emplace("max_pool2d", output_of<pool2d>);
    m.emplace("adaptive_avg_pool2d", output_of<adaptive_avg_pool2d>);
    m.emplace("adaptive_max_pool2d", output_of<adaptive_avg_pool2d>);  // the same windows
    m.emplace("upsample_nearest2d", output_of<upsample2d>);
    m.emplace("upsample_bilinear2d", output_of<upsample2d>);
    m.emplace("conv2d", output_of<conv2d>);
    m.emplace("conv_transpose2d", output_of<conv_transpose2d>);
    m.emplace("linear", output_of<linear>);
    m.emplace("matmul", output_of<matmul>);
    m.emplace("bmm", output_of<bmm>);
    m.emplace("addmm", output_of<addmm>);
    m.emplace("softmax", output_of<softmax>);
    m.emplace("log_softmax", output_of<softmax>);
    m.emplace("sum", output_of<reduce>);
    m.emplace("mean", output_of<reduce>);
    m.emplace("amax", output_of<reduce>);
    m.emplace("amin", output_of<reduce>);
    m.emplace("prod", output_of<reduce>);
    m.emplace("all", output_of<reduce>);
    m.emplace("any", output_of<reduce>);
    m.emplace("layer_norm", output_of<layer_norm>);
    m.emplace("batch_norm", output_of<batch_norm>);
    m.emplace("view", output_of<reshape>);
    m.emplace("reshape", output_of<reshape>);
    m.emplace("flatten", output_of<flatten>);
    m.emplace("permute", output_of<permute>);
    m.emplace("transpose", output_of<transpose>);
    m.emplace("cat", output_of<cat>);
    m.emplace("slice", output_of<slice>);
    m.emplace("pad", output_of<pad>);
    m.emplace("squeeze", output_of<squeeze>);
    m.emplace("unsqueeze", output_of<unsqueeze>);
    m.emplace("contiguous", output_of<contiguous>);
    for (std::string_view op : compare_op_names()) m.emplace(op, output_of<compare>);
    for (std::string_view op : logical_op_names()) m.emplace(op, output_of<logical>);
    for (std::string_view op : integer_op_names()) m.emplace(op, output_of<integer_op>);
    m.emplace("where", output_of<where>);
    m.emplace("masked_fill", output_of<masked_fill>);
    m.emplace("index_select", output_of<index_select>);
    m.emplace("argmax", output_of<arg_reduce>);
    m.emplace("argmin", output_of<arg_reduce>);
    m.emplace("cumsum", output_of<cumsum>);
    m.emplace("flip", output_of<flip>);
    m.emplace("conv3d", output_of<conv3d>);
    return m;
  }();
  return map;
}

}  // namespace

Result<Shape> infer_shape(std::string_view op, const Attributes& attrs, Shapes inputs) {
  auto it = shape_fns().find(op);
  if (it == shape_fns().end()) return unsupported("op '" + std::string(op) + "' has no shape rule");
  auto shape = it->second(op, attrs, inputs);
  if (!shape.ok()) return shape.status().with_context(std::string(op));
  return shape;
}

bool is_known_op(std::string_view op) { return shape_fns().find(op) != shape_fns().end(); }

std::vector<std::string> known_ops() {
  std::vector<std::string> out;
  for (const auto& entry : shape_fns()) out.push_back(entry.first);
  return out;  // std::map keeps them sorted
}

}  // namespace univk::ops
