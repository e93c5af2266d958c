// Lowering of the shape operators. Reshape-likes (view, reshape, flatten, squeeze, unsqueeze,
// contiguous) alias their input; permute, transpose, slice, cat and flip are strided copies; pad
// runs its own shader.
#include "lowering_common.h"
#include "univk/ops/torch_volume_ops.h"

namespace univk::backends::vulkan {
namespace {

Result<LoweredOp> alias_as(const ComputeTensorType& in, Shape shape) {
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(in.dtype, std::move(shape)));
  lowered.alias_of_input = true;
  return lowered;
}

Result<LoweredOp> lower_reshape(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::reshape(attrs, shapes_of(inputs)));
  return alias_as(inputs[0], std::move(shape));
}

Result<LoweredOp> lower_flatten(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::flatten(attrs, shapes_of(inputs)));
  return alias_as(inputs[0], std::move(shape));
}

Result<LoweredOp> lower_squeeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::squeeze(attrs, shapes_of(inputs)));
  return alias_as(inputs[0], std::move(shape));
}

Result<LoweredOp> lower_unsqueeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::unsqueeze(attrs, shapes_of(inputs)));
  return alias_as(inputs[0], std::move(shape));
}

Result<LoweredOp> lower_contiguous(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::contiguous(attrs, shapes_of(inputs)));
  return alias_as(inputs[0], std::move(shape));
}

// Output dim i is input dim perm[i].
Result<LoweredOp> permuted_copy(const ComputeTensorType& in, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> in_strides = in.shape.contiguous_strides();
  std::vector<int64_t> dims(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = in.shape[static_cast<size_t>(perm[i])];
    strides[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(in.dtype, Shape(dims)));
  UNIVK_RETURN_IF_ERROR(
      append_strided_copy(lowered, dims, strides, lowered.output.shape.contiguous_strides(), 0, 0, 0));
  return lowered;
}

Result<LoweredOp> lower_permute(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Permutation p, ops::permute(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  return permuted_copy(inputs[0], p.perm);
}

Result<LoweredOp> lower_transpose(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Permutation p, ops::transpose(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  return permuted_copy(inputs[0], p.perm);
}

Result<LoweredOp> lower_slice(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Slice range, ops::slice(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  const Shape& s = inputs[0].shape;
  const size_t ud = static_cast<size_t>(range.dim);
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(inputs[0].dtype, range.output));
  std::vector<int64_t> in_strides = s.contiguous_strides();
  const int64_t in_offset = range.start * in_strides[ud];
  in_strides[ud] *= range.step;
  UNIVK_RETURN_IF_ERROR(append_strided_copy(lowered, range.output.dims(), in_strides,
                                            lowered.output.shape.contiguous_strides(), in_offset, 0, 0));
  return lowered;
}

Result<LoweredOp> lower_cat(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Cat cat, ops::cat(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  const size_t ud = static_cast<size_t>(cat.dim);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype != inputs[0].dtype) {
      return invalid_argument("input " + std::to_string(i) + " is " + std::string(dtype_name(inputs[i].dtype)) +
                              ", input 0 is " + std::string(dtype_name(inputs[0].dtype)));
    }
    UNIVK_RETURN_IF_ERROR(check_extent(inputs[i].shape, "input " + std::to_string(i)));
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(inputs[0].dtype, cat.output));
  const std::vector<int64_t> out_strides = lowered.output.shape.contiguous_strides();
  int64_t position = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape;
    UNIVK_RETURN_IF_ERROR(append_strided_copy(lowered, s.dims(), s.contiguous_strides(), out_strides, 0,
                                              position * out_strides[ud], static_cast<uint32_t>(i)));
    lowered.dispatches.back().disjoint_write = true;
    position += s[ud];
  }
  return lowered;
}

// flip: a strided copy reading each flipped dim from its last element with a negated stride
// (the shader's 32-bit offset arithmetic wraps, so the sum lands on the right element).
Result<LoweredOp> lower_flip(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Flip f, ops::flip(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  const Shape& s = inputs[0].shape;
  UNIVK_RETURN_IF_ERROR(check_extent(s, "input 0"));
  std::vector<int64_t> in_strides = s.contiguous_strides();
  int64_t in_offset = 0;
  for (int64_t d : f.dims) {
    const size_t ud = static_cast<size_t>(d);
    in_offset += (s[ud] - 1) * in_strides[ud];
    in_strides[ud] = -in_strides[ud];
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(inputs[0].dtype, f.output));
  UNIVK_RETURN_IF_ERROR(
      append_strided_copy(lowered, s.dims(), in_strides, lowered.output.shape.contiguous_strides(), in_offset, 0, 0));
  return lowered;
}

Result<LoweredOp> lower_pad(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Pad p, ops::pad(attrs, shapes_of(inputs)));
  const DType dtype = inputs[0].dtype;
  uint32_t fill = 0;
  if (dtype == DType::kFloat32) {
    fill = float_bits(static_cast<float>(p.value));
  } else if (dtype == DType::kInt32) {
    fill = static_cast<uint32_t>(static_cast<int32_t>(p.value));
  } else {
    return unsupported("input 0 is " + std::string(dtype_name(dtype)) + "; pad handles float32 and int32");
  }
  const Shape& s = inputs[0].shape;
  UNIVK_RETURN_IF_ERROR(check_extent(s, "input 0"));
  if (s.rank() > kMaxRank) return unsupported("pad of a rank-" + std::to_string(s.rank()) + " tensor");
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(dtype, p.output));
  const int64_t n = p.output.numel();
  Dispatch d;
  d.shader = Shader::kPad;
  d.variant = static_cast<uint32_t>(p.mode);
  // Params { n, rank, fill, out_dims[6], in_dims[6], before[6] }
  d.push = {u32(n), u32(static_cast<int64_t>(s.rank())), fill};
  const std::vector<int64_t>& before = p.before;
  for (const std::vector<int64_t>* list : {&p.output.dims(), &s.dims(), &before}) {
    for (uint32_t i = 0; i < kMaxRank; ++i) d.push.push_back(i < list->size() ? u32((*list)[i]) : 0);
  }
  d.bindings = {Operand::input(0), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return lowered;
}

}  // namespace

LowerTable shape_lowerings() {
  return {{"view", lower_reshape},
          {"reshape", lower_reshape},
          {"flatten", lower_flatten},
          {"squeeze", lower_squeeze},
          {"unsqueeze", lower_unsqueeze},
          {"contiguous", lower_contiguous},
          {"permute", lower_permute},
          {"transpose", lower_transpose},
          {"slice", lower_slice},
          {"cat", lower_cat},
          {"pad", lower_pad},
          {"flip", lower_flip}};
}

}  // namespace univk::backends::vulkan
