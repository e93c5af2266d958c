// Data movement: copies between views, TRANSPOSE, SLICE, RESHAPE, PAD, TILE, CONCAT and REVERSE,
// all on the copy shaders (copy.glsl).
#include "emitter_internal.h"

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

namespace {

struct CopySpec {
  std::vector<int64_t> iter_dims;
  std::vector<int64_t> out_strides;
  int64_t out_offset = 0;
  std::vector<int64_t> in_strides;
  std::vector<int64_t> in_dims;
  std::vector<int64_t> low;
  bool wrap = false;
  uint32_t pad_bits = 0;
  uint32_t reversed = 0;  // bit d: padded dim d is read from its end (REVERSE)
};

Result<Dispatch> copy_dispatch(const TensorView& input, const TensorView& output, const CopySpec& spec) {
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
  k.params.push_back(spec.reversed);
  k.work_items = static_cast<uint64_t>(total);
  return k;
}

// A plain copy (no padding, no wrapping) runs over the canonical iteration space of its two
// views and is split like an elementwise dispatch; PAD and TILE run as one dispatch.
Result<std::vector<Dispatch>> make_copy(const TensorView& input, const TensorView& output, const CopySpec& spec,
                                        const BindingLimit& limit) {
  if (dtype_size(input.dtype) != dtype_size(output.dtype) || dtype_size(input.dtype) > 4)
    return unsupported("copy of " + std::string(dtype_name(input.dtype)) + " to " +
                       std::string(dtype_name(output.dtype)));
  const bool plain = !spec.wrap && spec.reversed == 0 && spec.in_dims == spec.iter_dims &&
                     std::all_of(spec.low.begin(), spec.low.end(), [](int64_t v) { return v == 0; });
  if (!plain) {
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, copy_dispatch(input, output, spec));
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
  std::vector<Dispatch> dispatches;
  for (const auto& piece : pieces) {
    CopySpec s;
    s.iter_dims = piece[0].shape;
    s.in_dims = piece[0].shape;
    s.out_strides = piece[0].strides;
    s.in_strides = piece[1].strides;
    s.low.assign(piece[0].shape.size(), 0);
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, copy_dispatch(piece[1], piece[0], s));
    dispatches.push_back(std::move(k));
  }
  return dispatches;
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

}  // namespace

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
      UNIVK_ASSIGN_OR_RETURN(Shape reshaped, ops::tosa_reshape(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("RESHAPE", reshaped, output));
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
      std::vector<Dispatch> dispatches;
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
        UNIVK_ASSIGN_OR_RETURN(auto part_dispatches, make_copy(part, output, s, limit));
        for (auto& k : part_dispatches) dispatches.push_back(std::move(k));
      }
      return dispatches;
    }
    case TosaOp::kReverse: {
      UNIVK_ASSIGN_OR_RETURN(int64_t axis, ops::tosa_reverse(op.attrs, Shape(in.shape)));
      UNIVK_RETURN_IF_ERROR(check_declared_output("REVERSE", Shape(in.shape), output));
      if (in.shape.size() > kMaxRank) return unsupported("REVERSE of rank " + std::to_string(in.shape.size()));
      spec.in_strides = in.strides;
      spec.reversed = 1u << (kMaxRank - in.shape.size() + static_cast<size_t>(axis));
      return make_copy(in, output, spec, limit);
    }
    default:
      return unsupported("not a data-movement operator");
  }
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

}  // namespace univk::backends::vgf
