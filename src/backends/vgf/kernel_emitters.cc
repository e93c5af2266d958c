#include "kernel_emitters.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>

#include "univk/ops/tosa_ops.h"

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

Status check_declared_output(const char* op, const Shape& computed, const TensorView& output) {
  if (computed != Shape(output.shape)) {
    return invalid_argument(std::string(op) + " output shape " + Shape(output.shape).to_string() +
                            " does not follow from its input and attributes (" + computed.to_string() + ")");
  }
  return ok_status();
}

namespace {

// Shaders index with 32-bit unsigned words.
Status check_u32(int64_t value, const char* what) {
  if (value < 0 || value > static_cast<int64_t>(UINT32_MAX))
    return unsupported(std::string(what) + " " + std::to_string(value) + " does not fit the shaders' 32-bit indexing");
  return ok_status();
}

Status append_u32(std::vector<uint32_t>& params, int64_t value, const char* what) {
  UNIVK_RETURN_IF_ERROR(check_u32(value, what));
  params.push_back(static_cast<uint32_t>(value));
  return ok_status();
}

// dims/strides left-padded to kMaxRank.
Status append_padded(std::vector<uint32_t>& params, const std::vector<int64_t>& values, int64_t fill, const char* what) {
  if (values.size() > kMaxRank) return unsupported("rank " + std::to_string(values.size()) + " exceeds " + std::to_string(kMaxRank));
  for (size_t i = values.size(); i < kMaxRank; ++i) params.push_back(static_cast<uint32_t>(fill));
  for (int64_t v : values) UNIVK_RETURN_IF_ERROR(append_u32(params, v, what));
  return ok_status();
}

// Strides of `input` read at the coordinates of `out_shape` (equal rank, 1-dims broadcast).
Result<std::vector<int64_t>> broadcast_strides(const TensorView& input, const std::vector<int64_t>& out_shape) {
  if (input.shape.size() > out_shape.size()) return invalid_argument("operand rank exceeds the output rank");
  const size_t lead = out_shape.size() - input.shape.size();
  std::vector<int64_t> strides(out_shape.size(), 0);
  for (size_t d = 0; d < input.shape.size(); ++d) {
    const int64_t n = input.shape[d], o = out_shape[lead + d];
    if (n == o) strides[lead + d] = input.strides[d];
    else if (n != 1) return invalid_argument("operand shape " + Shape(input.shape).to_string() + " does not broadcast to " + Shape(out_shape).to_string());
  }
  return strides;
}

// More kernels than this for one operator means the binding limit is absurdly small.
constexpr size_t kMaxSlices = 4096;

TensorView slice_dim(TensorView view, size_t dim, int64_t start, int64_t count) {
  view.offset += start * view.strides[dim];
  view.shape[dim] = count;
  return view;
}

// The views of rows [start, start + count) of one iteration dim.
using SliceViews = std::function<std::vector<TensorView>(int64_t start, int64_t count)>;

// Slices of [0, n) whose views fit `limit`: the fewest equal slices the first slice allows
// (rounded up to a multiple of 64 rows where that still fits, so slices of a packed dim start
// aligned and keep vector access), shrunk where a later start binds more alignment slack.
// Empty when a single row does not fit or more than kMaxSlices slices would be needed.
std::vector<std::pair<int64_t, int64_t>> plan_slices(int64_t n, const SliceViews& views, const BindingLimit& limit) {
  auto fits = [&](int64_t start, int64_t count) { return views_fit(views(start, count), limit); };
  auto largest = [&](int64_t start) -> int64_t {
    if (!fits(start, 1)) return 0;
    int64_t lo = 1, hi = n - start;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(start, mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const int64_t first = largest(0);
  if (first == 0) return {};
  const int64_t slices = (n + first - 1) / first;
  if (slices > static_cast<int64_t>(kMaxSlices)) return {};
  int64_t rows = (n + slices - 1) / slices;
  if ((rows + 63) / 64 * 64 <= first) rows = (rows + 63) / 64 * 64;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t start = 0; start < n;) {
    int64_t count = std::min(rows, n - start);
    if (!fits(start, count)) count = largest(start);
    if (count == 0 || out.size() >= kMaxSlices) return {};
    out.emplace_back(start, count);
    start += count;
  }
  return out;
}

// Splits views sharing one iteration shape (output first) until every piece fits `limit`:
// along `dim`, and row by row along the next dim where one row of `dim` is too big.
Status split_iteration(const std::vector<TensorView>& views, size_t dim, const BindingLimit& limit,
                       const std::string& what, std::vector<std::vector<TensorView>>& pieces) {
  if (views_fit(views, limit)) {
    pieces.push_back(views);
    return ok_status();
  }
  const size_t rank = views[0].shape.size();
  if (dim >= rank) return binding_limit_error(views, limit, what);
  auto slice = [&](int64_t start, int64_t count) {
    std::vector<TensorView> out;
    for (const TensorView& v : views) out.push_back(slice_dim(v, dim, start, count));
    return out;
  };
  const int64_t n = views[0].shape[dim];
  const auto slices = plan_slices(n, slice, limit);
  if (!slices.empty()) {
    if (pieces.size() + slices.size() > kMaxSlices) return binding_limit_error(views, limit, what);
    for (auto [start, count] : slices) pieces.push_back(slice(start, count));
    return ok_status();
  }
  if (pieces.size() + static_cast<size_t>(n) > kMaxSlices) return binding_limit_error(views, limit, what);
  for (int64_t row = 0; row < n; ++row)
    UNIVK_RETURN_IF_ERROR(split_iteration(slice(row, 1), dim + 1, limit, what, pieces));
  return ok_status();
}

Shader copy_shader(DType dtype) {
  switch (dtype_size(dtype)) {
    case 1: return Shader::kCopy8;
    case 2: return Shader::kCopy16;
    default: return Shader::kCopy32;
  }
}

struct CopySpec {
  std::vector<int64_t> iter_dims;
  std::vector<int64_t> out_strides;
  int64_t out_offset = 0;
  std::vector<int64_t> in_strides;
  std::vector<int64_t> in_dims;
  std::vector<int64_t> low;
  bool wrap = false;
  uint32_t pad_bits = 0;
};

Result<Dispatch> copy_kernel(const TensorView& input, const TensorView& output, const CopySpec& spec) {
  Dispatch k;
  k.shader = copy_shader(input.dtype);
  TensorView out = output;
  out.offset += spec.out_offset;
  k.outputs = {out};
  k.inputs = {input};
  const int64_t total = Shape(spec.iter_dims).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.iter_dims, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.out_strides, 0, "stride"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.in_strides, 0, "stride"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.in_dims, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.low, 0, "padding"));
  k.params.push_back(spec.wrap ? 1u : 0u);
  k.params.push_back(spec.pad_bits);
  k.work_items = static_cast<uint64_t>(total);
  return k;
}

// A plain copy (no padding, no wrapping) runs over the canonical iteration space of its two
// views and is split like an elementwise kernel; PAD and TILE run as one kernel.
Result<std::vector<Dispatch>> make_copy(const TensorView& input, const TensorView& output, const CopySpec& spec,
                                      const BindingLimit& limit) {
  if (dtype_size(input.dtype) != dtype_size(output.dtype) || dtype_size(input.dtype) > 4)
    return unsupported("copy of " + std::string(dtype_name(input.dtype)) + " to " + std::string(dtype_name(output.dtype)));
  const bool plain = !spec.wrap && spec.in_dims == spec.iter_dims &&
                     std::all_of(spec.low.begin(), spec.low.end(), [](int64_t v) { return v == 0; });
  if (!plain) {
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, copy_kernel(input, output, spec));
    return std::vector<Dispatch>{std::move(k)};
  }
  TensorView out = output, in = input;
  out.offset += spec.out_offset;
  out.shape = spec.iter_dims;
  out.strides = spec.out_strides;
  in.shape = spec.iter_dims;
  in.strides = spec.in_strides;
  UNIVK_ASSIGN_OR_RETURN(auto views, canonical_iteration(out, {in}));
  std::vector<std::vector<TensorView>> pieces;
  UNIVK_RETURN_IF_ERROR(split_iteration(views, 0, limit, "copy", pieces));
  std::vector<Dispatch> kernels;
  for (const auto& piece : pieces) {
    CopySpec s;
    s.iter_dims = piece[0].shape;
    s.in_dims = piece[0].shape;
    s.out_strides = piece[0].strides;
    s.in_strides = piece[1].strides;
    s.low.assign(piece[0].shape.size(), 0);
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, copy_kernel(piece[1], piece[0], s));
    kernels.push_back(std::move(k));
  }
  return kernels;
}

// Pad value bits for the element type of `view` from a float or int attribute.
Result<uint32_t> pad_bits(const TosaOperation& op, DType dtype) {
  if (dtype == DType::kFloat32 || dtype == DType::kFloat16) {
    UNIVK_ASSIGN_OR_RETURN(double v, op.attrs.get_float_or("pad_const", 0.0));
    if (dtype == DType::kFloat16) return static_cast<uint32_t>(float_to_half(static_cast<float>(v)));
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  UNIVK_ASSIGN_OR_RETURN(int64_t v, op.attrs.get_int_or("pad_const", 0));
  return static_cast<uint32_t>(v);
}

Result<std::vector<Dispatch>> emit_data_movement(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                               const TensorView& output, const BindingLimit& limit) {
  const TensorView& in = inputs[0];
  CopySpec spec;
  spec.iter_dims = output.shape;
  spec.out_strides = output.strides;
  spec.in_dims = output.shape;
  spec.low.assign(output.shape.size(), 0);
  switch (op.op) {
    case TosaOp::kTranspose: {
      UNIVK_ASSIGN_OR_RETURN(ops::TosaTranspose t, ops::tosa_transpose(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("TRANSPOSE", t.output, output));
      spec.in_strides.resize(t.perms.size());
      for (size_t d = 0; d < t.perms.size(); ++d) spec.in_strides[d] = in.strides[t.perms[d]];
      return make_copy(in, output, spec, limit);
    }
    case TosaOp::kSlice: {
      UNIVK_ASSIGN_OR_RETURN(ops::TosaSlice sl, ops::tosa_slice(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("SLICE", sl.output, output));
      TensorView src = in;
      for (size_t d = 0; d < sl.start.size(); ++d) src.offset += sl.start[d] * in.strides[d];
      spec.in_strides = in.strides;
      return make_copy(src, output, spec, limit);
    }
    case TosaOp::kReshape: {
      if (Shape(in.shape).numel() != Shape(output.shape).numel()) return invalid_argument("RESHAPE changes the element count");
      if (!output.contiguous()) return unsupported("RESHAPE into a strided resource");
      // Iterate over the input's coordinates; the packed output index is the row-major index.
      spec.iter_dims = in.shape;
      spec.in_dims = in.shape;
      spec.in_strides = in.strides;
      spec.out_strides = Shape(in.shape).contiguous_strides();
      spec.low.assign(in.shape.size(), 0);
      return make_copy(in, output, spec, limit);
    }
    case TosaOp::kPad: {
      UNIVK_ASSIGN_OR_RETURN(ops::TosaPad pd, ops::tosa_pad(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("PAD", pd.output, output));
      for (size_t d = 0; d < in.shape.size(); ++d) spec.low[d] = pd.padding[2 * d];
      spec.in_dims = in.shape;
      spec.in_strides = in.strides;
      UNIVK_ASSIGN_OR_RETURN(spec.pad_bits, pad_bits(op, in.dtype));
      return make_copy(in, output, spec, limit);
    }
    case TosaOp::kTile: {
      UNIVK_ASSIGN_OR_RETURN(Shape tiled, ops::tosa_tile(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("TILE", tiled, output));
      spec.in_dims = in.shape;
      spec.in_strides = in.strides;
      spec.wrap = true;
      return make_copy(in, output, spec, limit);
    }
    case TosaOp::kConcat: {
      std::vector<Shape> shapes;
      for (const TensorView& part : inputs) shapes.emplace_back(part.shape);
      UNIVK_ASSIGN_OR_RETURN(ops::TosaConcat cat, ops::tosa_concat(op.attrs, shapes));
      UNIVK_RETURN_IF_ERROR(check_declared_output("CONCAT", cat.output, output));
      const size_t axis = static_cast<size_t>(cat.axis);
      std::vector<Dispatch> kernels;
      int64_t at = 0;
      for (const TensorView& part : inputs) {
        CopySpec s;
        s.iter_dims = part.shape;
        s.in_dims = part.shape;
        s.in_strides = part.strides;
        s.out_strides = output.strides;
        s.low.assign(part.shape.size(), 0);
        s.out_offset = at * output.strides[axis];
        at += part.shape[axis];
        if (Shape(part.shape).numel() == 0) continue;
        UNIVK_ASSIGN_OR_RETURN(auto part_kernels, make_copy(part, output, s, limit));
        for (auto& k : part_kernels) kernels.push_back(std::move(k));
      }
      return kernels;
    }
    default:
      return unsupported("not a data-movement operator");
  }
}

}  // namespace

Status binding_limit_error(const std::vector<TensorView>& views, const BindingLimit& limit, const std::string& what) {
  uint64_t largest = 0;
  for (const TensorView& v : views) largest = std::max(largest, view_binding_bytes(v, 0, limit.offset_alignment));
  return unsupported(what + ": a tensor view of " + std::to_string(largest) + " bytes exceeds the binding limit of " +
                     std::to_string(limit.max_bytes) +
                     " bytes (maxStorageBufferRange, or the max_binding_bytes option) and cannot be split into "
                     "slices that fit");
}

Result<std::vector<TensorView>> canonical_iteration(const TensorView& output, const std::vector<TensorView>& inputs) {
  std::vector<std::vector<int64_t>> strides = {output.strides};
  for (const TensorView& in : inputs) {
    UNIVK_ASSIGN_OR_RETURN(auto s, broadcast_strides(in, output.shape));
    strides.push_back(std::move(s));
  }
  std::vector<size_t> dims;
  for (size_t d = 0; d < output.shape.size(); ++d)
    if (output.shape[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) { return output.strides[a] > output.strides[b]; });
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> merged(strides.size());
  for (size_t d : dims) {
    const int64_t n = output.shape[d];
    bool contiguous = !shape.empty() && n != 0 && shape.back() != 0;
    for (size_t v = 0; v < strides.size() && contiguous; ++v) contiguous = merged[v].back() == strides[v][d] * n;
    if (contiguous) {
      shape.back() *= n;
      for (size_t v = 0; v < strides.size(); ++v) merged[v].back() = strides[v][d];
      continue;
    }
    shape.push_back(n);
    for (size_t v = 0; v < strides.size(); ++v) merged[v].push_back(strides[v][d]);
  }
  if (shape.empty()) {  // one element
    shape = {1};
    for (auto& m : merged) m = {1};
  }
  std::vector<TensorView> views;
  for (size_t v = 0; v < strides.size(); ++v) {
    TensorView view = v == 0 ? output : inputs[v - 1];
    view.shape = shape;
    view.strides = merged[v];
    views.push_back(std::move(view));
  }
  return views;
}

Result<std::vector<Dispatch>> emit_copy(const TensorView& input, const TensorView& output, const BindingLimit& limit) {
  if (input.shape != output.shape) return invalid_argument("copy between different shapes");
  CopySpec spec;
  spec.iter_dims = output.shape;
  spec.out_strides = output.strides;
  spec.in_strides = input.strides;
  spec.in_dims = input.shape;
  spec.low.assign(output.shape.size(), 0);
  return make_copy(input, output, spec, limit);
}

namespace {

// One elementwise kernel over views in canonical form (output first).
Result<Dispatch> elementwise_kernel(DType dtype, const std::vector<TensorView>& views, const EwProgram& program) {
  const TensorView& output = views[0];
  const size_t num_inputs = views.size() - 1;
  Dispatch k;
  k.shader = dtype == DType::kInt32 ? Shader::kElementwiseI32
                                    : (dtype == DType::kFloat16 ? Shader::kElementwiseF16 : Shader::kElementwiseF32);
  k.outputs = {output};
  k.inputs.assign(views.begin() + 1, views.end());
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, output.shape, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, output.strides, 0, "stride"));
  // Linear: one packed dim for every operand (no broadcast); the recorder's base words carry
  // the views' offsets.
  bool linear = output.shape.size() == 1;
  for (const TensorView& v : views) linear = linear && v.strides[0] == 1;
  for (size_t i = 0; i < kProgramInputs; ++i) {
    if (i >= num_inputs) {
      k.params.insert(k.params.end(), kMaxRank, 0u);
      continue;
    }
    UNIVK_RETURN_IF_ERROR(append_padded(k.params, views[1 + i].strides, 0, "stride"));
  }
  k.specialization = {{kElementwiseModeConstant, linear ? kElementwiseModeLinear : kElementwiseModeStrided},
                      {kElementwiseInputCountConstant, static_cast<uint32_t>(num_inputs)}};
  for (auto& s : program.specialization(8)) k.specialization.push_back(s);
  k.work_items = (static_cast<uint64_t>(total) + 3) / 4;
  return k;
}

struct PoolGeometry {
  int64_t in_h = 0, in_w = 0, kernel_y = 0, kernel_x = 0, stride_y = 0, stride_x = 0, pad_top = 0, pad_left = 0;
  bool is_max = false;
  int64_t in_zp = 0, out_zp = 0;  // int8 AVG only
};

// Whether every stride of `v` but dim `skip` is a multiple of `m`, ignoring dims of size 1
// (their index is always 0).
bool strides_divisible(const TensorView& v, size_t skip, int64_t m) {
  for (size_t d = 0; d < v.strides.size(); ++d)
    if (d != skip && v.shape[d] > 1 && v.strides[d] % m != 0) return false;
  return true;
}

// One pool kernel over views {output, input, epilogue inputs...}; the epilogue views have the
// output's shape (broadcast dims have stride 0).
Result<Dispatch> pool_kernel(Shader shader, const PoolGeometry& g, const std::vector<TensorView>& views,
                           const EwProgram& epilogue) {
  const TensorView& output = views[0];
  const TensorView& in = views[1];
  Dispatch k;
  k.shader = shader;
  k.outputs = {output};
  k.inputs.assign(views.begin() + 1, views.end());
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  for (int64_t d : output.shape) UNIVK_RETURN_IF_ERROR(append_u32(k.params, d, "dimension"));
  for (int64_t s : output.strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  for (int64_t s : in.strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  for (int64_t v : {g.in_h, g.in_w, g.kernel_y, g.kernel_x, g.stride_y, g.stride_x, g.pad_top, g.pad_left})
    UNIVK_RETURN_IF_ERROR(append_u32(k.params, v, "pool parameter"));
  // NCHW memory (W stride below C stride): consecutive invocations take consecutive ox.
  // Kernel sizes and output dims are also specialization constants (see pool.glsl); kernel
  // sizes of 0 select the runtime-bounded tap loops for windows too large to unroll.
  const uint32_t nchw_order = output.strides[2] < output.strides[3] ? 1u : 0u;
  const bool unroll = g.kernel_y * g.kernel_x <= kMaxUnrolledPoolTaps;
  const uint32_t kernel_y = unroll ? static_cast<uint32_t>(g.kernel_y) : 0u;
  const uint32_t kernel_x = unroll ? static_cast<uint32_t>(g.kernel_x) : 0u;
  k.work_items = static_cast<uint64_t>(total);
  if (shader == Shader::kPoolI8) {
    if (views.size() != 2 || !epilogue.steps.empty()) return internal_error("int8 pooling has no epilogue");
    k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(g.in_zp)));
    k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(g.out_zp)));
    k.specialization = {{0u, g.is_max ? 1u : 0u},
                        {1u, nchw_order},
                        {2u, kernel_y},
                        {3u, kernel_x},
                        {4u, static_cast<uint32_t>(output.shape[1])},
                        {5u, static_cast<uint32_t>(output.shape[2])},
                        {6u, static_cast<uint32_t>(output.shape[3])}};
    return k;
  }
  for (size_t i = 2; i < 5; ++i) {
    if (i >= views.size()) {
      k.params.insert(k.params.end(), 4, 0u);
      continue;
    }
    for (int64_t s : views[i].strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  }
  // Two taps per load (see pool.glsl): the recorder clears it when the base word is odd.
  const bool pair_x = unroll && g.kernel_x == 2 && g.stride_x == 2 && g.pad_left == 0 && g.in_w == 2 * output.shape[2] &&
                      in.strides[2] == 1 && strides_divisible(in, 2, 2) && in.offset % 2 == 0;
  // Four outputs along ox per invocation, one 4-vector store; with pair geometry and 4-aligned
  // input strides, each row's 8 taps are two 4-vector loads. The recorder clears both when
  // the output's base word is not a multiple of 4 (and QUAD_LOAD when the input's is not).
  const bool quad_x = unroll && output.shape[2] % 4 == 0 && output.strides[2] == 1 && strides_divisible(output, 2, 4) &&
                      output.offset % 4 == 0;
  const bool quad_load = quad_x && pair_x && strides_divisible(in, 2, 4) && in.offset % 4 == 0;
  if (quad_x) k.work_items = static_cast<uint64_t>(total) / 4;
  // Epilogue inputs read as one 4-vector per invocation (bit k-1 for input k), same rule.
  uint32_t epilogue_quad = 0;
  for (size_t i = 2; quad_x && i < views.size(); ++i)
    if (views[i].strides[2] == 1 && strides_divisible(views[i], 2, 4) && views[i].offset % 4 == 0)
      epilogue_quad |= 1u << (i - 2);
  k.specialization = {{0u, g.is_max ? 1u : 0u},
                      {1u, static_cast<uint32_t>(views.size() - 1)},
                      {2u, nchw_order},
                      {3u, kernel_y},
                      {4u, kernel_x},
                      {5u, static_cast<uint32_t>(output.shape[1])},
                      {6u, static_cast<uint32_t>(output.shape[2])},
                      {7u, static_cast<uint32_t>(output.shape[3])},
                      {kPoolPairXConstant, pair_x ? 1u : 0u},
                      {kPoolQuadXConstant, quad_x ? 1u : 0u},
                      {kPoolQuadLoadConstant, quad_load ? 1u : 0u},
                      {kPoolEpilogueQuadConstant, epilogue_quad}};
  for (auto& s : epilogue.specialization(8)) k.specialization.push_back(s);
  return k;
}

}  // namespace

Result<std::vector<Dispatch>> emit_elementwise(DType dtype, const std::vector<TensorView>& inputs,
                                             const TensorView& output, const EwProgram& program,
                                             const BindingLimit& limit) {
  if (inputs.size() > kProgramInputs) return internal_error("too many program inputs");
  UNIVK_ASSIGN_OR_RETURN(auto views, canonical_iteration(output, inputs));
  std::vector<std::vector<TensorView>> pieces;
  UNIVK_RETURN_IF_ERROR(split_iteration(views, 0, limit, "elementwise program", pieces));
  std::vector<Dispatch> kernels;
  for (const auto& piece : pieces) {
    // A slice may have size-1 dims or newly mergeable ones.
    std::vector<TensorView> piece_inputs(piece.begin() + 1, piece.end());
    UNIVK_ASSIGN_OR_RETURN(auto canonical, canonical_iteration(piece[0], piece_inputs));
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, elementwise_kernel(dtype, canonical, program));
    kernels.push_back(std::move(k));
  }
  return kernels;
}

Result<std::vector<Dispatch>> emit_pool(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                      const TensorView& output, const EwProgram& epilogue, const BindingLimit& limit) {
  const TensorView& in = inputs[0];
  const bool is_int8 = in.dtype == DType::kInt8;
  const bool is_f16 = in.dtype == DType::kFloat16;
  if (output.dtype != in.dtype || (!is_int8 && !is_f16 && in.dtype != DType::kFloat32))
    return unsupported(std::string("pooling on ") + std::string(dtype_name(in.dtype)) + " (fp32, fp16 and int8 only)");
  if (in.shape.size() != 4 || output.shape.size() != 4) return invalid_argument("pooling needs rank-4 NHWC tensors");
  // Attributes, limits and the output size: the same rule as the TOSA reference kernels.
  UNIVK_ASSIGN_OR_RETURN(ops::TosaPool2d window, ops::tosa_pool2d(op.attrs, Shape(in.shape)));
  if (window.output != Shape(output.shape)) {
    return invalid_argument("output shape " + Shape(output.shape).to_string() + " does not follow the pooling rule (" +
                            window.output.to_string() + ")");
  }
  const int64_t* kernel = window.kernel;
  const int64_t* stride = window.stride;
  const int64_t* pad = window.pad;
  PoolGeometry geom;
  geom.is_max = op.op == TosaOp::kMaxPool2d;
  if (!geom.is_max) {
    UNIVK_ASSIGN_OR_RETURN(double izp, op.attrs.get_float_or("input_zp", 0.0));
    UNIVK_ASSIGN_OR_RETURN(double ozp, op.attrs.get_float_or("output_zp", 0.0));
    if (!is_int8 && (izp != 0.0 || ozp != 0.0)) return invalid_argument("float AVG_POOL2D needs zero points of 0");
    geom.in_zp = static_cast<int64_t>(izp);
    geom.out_zp = static_cast<int64_t>(ozp);
    if (geom.in_zp < -128 || geom.in_zp > 127 || geom.out_zp < -128 || geom.out_zp > 127)
      return invalid_argument("int8 zero point out of range");
  }
  geom.in_h = in.shape[1];
  geom.in_w = in.shape[2];
  geom.kernel_y = kernel[0];
  geom.kernel_x = kernel[1];
  geom.stride_y = stride[0];
  geom.stride_x = stride[1];
  geom.pad_top = pad[0];
  geom.pad_left = pad[2];
  if (is_int8 && inputs.size() != 1) return internal_error("int8 pooling has no epilogue");
  const Shader shader = is_int8 ? Shader::kPoolI8 : (is_f16 ? Shader::kPoolF16 : Shader::kPoolF32);

  // {output, input, epilogue inputs at the output's shape}.
  std::vector<TensorView> views = {output, in};
  for (size_t i = 1; i < inputs.size(); ++i) {
    TensorView v = inputs[i];
    UNIVK_ASSIGN_OR_RETURN(v.strides, broadcast_strides(inputs[i], output.shape));
    v.shape = output.shape;
    views.push_back(std::move(v));
  }
  const std::string what(spirv::tosa_op_name(op.op));
  std::vector<Dispatch> kernels;
  auto add = [&](const PoolGeometry& g, const std::vector<TensorView>& slice) -> Status {
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, pool_kernel(shader, g, slice, epilogue));
    kernels.push_back(std::move(k));
    return ok_status();
  };
  if (views_fit(views, limit)) {
    UNIVK_RETURN_IF_ERROR(add(geom, views));
    return kernels;
  }
  // Whole images: every view is sliced along N.
  auto batch = [&](int64_t start, int64_t count) {
    std::vector<TensorView> out;
    for (const TensorView& v : views) out.push_back(slice_dim(v, 0, start, count));
    return out;
  };
  const auto images = plan_slices(output.shape[0], batch, limit);
  if (!images.empty()) {
    for (auto [start, count] : images) UNIVK_RETURN_IF_ERROR(add(geom, batch(start, count)));
    return kernels;
  }
  // Bands of output rows of one image: the input rows their windows cover, with the top
  // padding that is left above the band.
  auto band = [&](int64_t n, int64_t start, int64_t count) {
    const int64_t top = start * geom.stride_y - geom.pad_top;
    const int64_t first_row = std::max<int64_t>(0, top);
    const int64_t end_row = std::min(geom.in_h, (start + count - 1) * geom.stride_y - geom.pad_top + geom.kernel_y);
    PoolGeometry g = geom;
    g.in_h = end_row - first_row;
    g.pad_top = first_row - top;
    std::vector<TensorView> out;
    for (size_t i = 0; i < views.size(); ++i) {
      TensorView v = slice_dim(views[i], 0, n, 1);
      out.push_back(i == 1 ? slice_dim(v, 1, first_row, g.in_h) : slice_dim(v, 1, start, count));
    }
    return std::make_pair(g, out);
  };
  const int64_t out_h = output.shape[1];
  for (int64_t n = 0; n < output.shape[0]; ++n) {
    const auto rows = plan_slices(out_h, [&](int64_t start, int64_t count) { return band(n, start, count).second; }, limit);
    if (rows.empty()) return binding_limit_error(band(n, 0, 1).second, limit, what + " (bands of output rows)");
    if (kernels.size() + rows.size() > kMaxSlices) return binding_limit_error(views, limit, what);
    for (auto [start, count] : rows) {
      auto [g, slice] = band(n, start, count);
      UNIVK_RETURN_IF_ERROR(add(g, slice));
    }
  }
  return kernels;
}

namespace {

// Operators whose work is independent along dim 0 of the output and of the inputs marked in
// `sliced` (batch of CONV2D/MATMUL, rows of CAST/TABLE): split along it when a view exceeds
// `limit`.
Result<std::vector<Dispatch>> emit_batch_split(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                             const TensorView& output, const std::vector<bool>& sliced,
                                             const BindingLimit& limit) {
  std::vector<TensorView> views = {output};
  views.insert(views.end(), inputs.begin(), inputs.end());
  if (views_fit(views, limit) || output.shape.empty()) return emit_compute(op, inputs, output);
  const std::string what(spirv::tosa_op_name(op.op));
  auto is_sliced = [&](size_t i) { return i < sliced.size() && sliced[i]; };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_sliced(i) && (inputs[i].shape.empty() || inputs[i].shape[0] != output.shape[0]))
      return binding_limit_error(views, limit, what);
  auto slice = [&](int64_t start, int64_t count) {
    std::vector<TensorView> out = {slice_dim(output, 0, start, count)};
    for (size_t i = 0; i < inputs.size(); ++i)
      out.push_back(is_sliced(i) ? slice_dim(inputs[i], 0, start, count) : inputs[i]);
    return out;
  };
  const auto slices = plan_slices(output.shape[0], slice, limit);
  if (slices.empty()) return binding_limit_error(views, limit, what);
  std::vector<Dispatch> kernels;
  for (auto [start, count] : slices) {
    std::vector<TensorView> piece = slice(start, count);
    UNIVK_ASSIGN_OR_RETURN(auto part, emit_compute(op, std::vector<TensorView>(piece.begin() + 1, piece.end()), piece[0]));
    for (auto& k : part) kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace

Result<std::vector<Dispatch>> emit_kernels(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                         const TensorView& output, const BindingLimit& limit) {
  if (inputs.empty()) return invalid_argument("operator without inputs");
  if (Shape(output.shape).numel() == 0) return std::vector<Dispatch>{};
  switch (op.op) {
    case TosaOp::kTranspose: case TosaOp::kSlice: case TosaOp::kReshape: case TosaOp::kPad:
    case TosaOp::kTile: case TosaOp::kConcat:
      return emit_data_movement(op, inputs, output, limit);
    case TosaOp::kAvgPool2d: case TosaOp::kMaxPool2d:
      // Pools the fusion pass did not take as an anchor (int8), without an epilogue.
      return emit_pool(op, {inputs[0]}, output, EwProgram{}, limit);
    case TosaOp::kConv2d: case TosaOp::kDepthwiseConv2d:  // input, weight, bias
      return emit_batch_split(op, inputs, output, {true, false, false}, limit);
    case TosaOp::kMatmul:  // A [B,M,K], B [B,K,N]
      return emit_batch_split(op, inputs, output, {true, true}, limit);
    case TosaOp::kCast: case TosaOp::kTable:  // input (and the 256-entry table)
      return emit_batch_split(op, inputs, output, {true, false}, limit);
    default:
      break;
  }
  return emit_compute(op, inputs, output);
}

}  // namespace univk::backends::vgf
