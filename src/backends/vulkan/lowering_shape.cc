// Lowering of the shape operators. Reshape-likes (view, reshape, flatten, squeeze, unsqueeze,
// contiguous) alias their input; permute, transpose, slice and cat are strided copies.
#include <algorithm>
#include <limits>

#include "lowering_common.h"

namespace univk::backends::detail {
namespace {

Result<LoweredOp> alias_as(const ComputeTensorType& in, Shape shape) {
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(in.dtype, std::move(shape)));
  lowered.alias_of_input = true;
  return lowered;
}

Result<LoweredOp> lower_reshape(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("shape"));
  const int64_t numel = inputs[0].shape.numel();
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (infer >= 0) return invalid_argument("attribute 'shape' has more than one -1");
      infer = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return invalid_argument("attribute 'shape' has a negative dim " + std::to_string(dims[i]));
    } else {
      known *= dims[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      return invalid_argument("attribute 'shape' cannot infer -1 for " + std::to_string(numel) + " elements");
    }
    dims[static_cast<size_t>(infer)] = numel / known;
    known = numel;
  }
  if (known != numel) {
    return invalid_argument("attribute 'shape'=" + Shape(dims).to_string() + " does not match " +
                            std::to_string(numel) + " elements");
  }
  return alias_as(inputs[0], Shape(dims));
}

Result<LoweredOp> lower_flatten(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const Shape& s = inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(s.rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t start_attr, attrs.get_int_or("start_dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t end_attr, attrs.get_int_or("end_dim", -1));
  UNIVK_ASSIGN_OR_RETURN(int64_t start, wrap_dim(start_attr, rank, "start_dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t end, wrap_dim(end_attr, rank, "end_dim"));
  if (start > end) return invalid_argument("attribute 'start_dim' comes after 'end_dim'");
  std::vector<int64_t> dims;
  if (rank == 0) {
    dims = {1};
  } else {
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
  }
  return alias_as(inputs[0], Shape(dims));
}

Result<LoweredOp> lower_squeeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const Shape& s = inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(s.rank());
  std::vector<int64_t> dims;
  if (attrs.has("dim")) {
    UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
    UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, rank, "dim"));
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim || s[static_cast<size_t>(d)] != 1) dims.push_back(s[static_cast<size_t>(d)]);
    }
  } else {
    for (int64_t v : s.dims()) {
      if (v != 1) dims.push_back(v);
    }
  }
  return alias_as(inputs[0], Shape(dims));
}

Result<LoweredOp> lower_unsqueeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const Shape& s = inputs[0].shape;
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(s.rank()) + 1, "dim"));
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + dim, 1);
  return alias_as(inputs[0], Shape(dims));
}

Result<LoweredOp> lower_contiguous(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  return alias_as(inputs[0], inputs[0].shape);  // every value is stored contiguously already
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
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> perm, attrs.get_ints("dims"));
  const int64_t rank = static_cast<int64_t>(inputs[0].shape.rank());
  if (static_cast<int64_t>(perm.size()) != rank) {
    return invalid_argument("attribute 'dims' has " + std::to_string(perm.size()) + " entries for a tensor of rank " +
                            std::to_string(rank));
  }
  std::vector<bool> seen(perm.size(), false);
  for (int64_t& p : perm) {
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
      return invalid_argument("attribute 'dims' is not a permutation of the tensor's dims");
    }
    seen[static_cast<size_t>(p)] = true;
  }
  return permuted_copy(inputs[0], perm);
}

Result<LoweredOp> lower_transpose(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  const int64_t rank = static_cast<int64_t>(inputs[0].shape.rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t a0, attrs.get_int("dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t a1, attrs.get_int("dim1"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d0, wrap_dim(a0, rank, "dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d1, wrap_dim(a1, rank, "dim1"));
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  if (rank > 0) std::swap(perm[static_cast<size_t>(d0)], perm[static_cast<size_t>(d1)]);
  return permuted_copy(inputs[0], perm);
}

Result<LoweredOp> lower_slice(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  const Shape& s = inputs[0].shape;
  UNIVK_ASSIGN_OR_RETURN(reference::SliceRange range, reference::resolve_slice(attrs, s));
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
  if (inputs.empty()) return invalid_argument("needs at least one input tensor");
  UNIVK_RETURN_IF_ERROR(check_word_dtype(inputs));
  const Shape& first = inputs[0].shape;
  if (first.rank() == 0) return invalid_argument("zero-dimensional tensors cannot be concatenated");
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(first.rank()), "dim"));
  const size_t ud = static_cast<size_t>(dim);
  std::vector<int64_t> dims = first.dims();
  dims[ud] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape;
    bool match = s.rank() == first.rank() && inputs[i].dtype == inputs[0].dtype;
    for (size_t d = 0; match && d < s.rank(); ++d) match = d == ud || s[d] == first[d];
    if (!match) {
      return invalid_argument("input " + std::to_string(i) + " " + std::string(dtype_name(inputs[i].dtype)) +
                              s.to_string() + " does not match input 0 " + first.to_string() + " outside dim " +
                              std::to_string(dim));
    }
    UNIVK_RETURN_IF_ERROR(check_extent(s, "input " + std::to_string(i)));
    dims[ud] += s[ud];
  }
  UNIVK_ASSIGN_OR_RETURN(LoweredOp lowered, with_output(inputs[0].dtype, Shape(dims)));
  const std::vector<int64_t> out_strides = lowered.output.shape.contiguous_strides();
  int64_t position = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape;
    UNIVK_RETURN_IF_ERROR(append_strided_copy(lowered, s.dims(), s.contiguous_strides(), out_strides,
                                              0, position * out_strides[ud], static_cast<uint32_t>(i)));
    lowered.dispatches.back().disjoint_write = true;
    position += s[ud];
  }
  return lowered;
}

}  // namespace

LowerTable shape_lowerings() {
  return {{"view", lower_reshape},         {"reshape", lower_reshape}, {"flatten", lower_flatten},
          {"squeeze", lower_squeeze},      {"unsqueeze", lower_unsqueeze}, {"contiguous", lower_contiguous},
          {"permute", lower_permute},      {"transpose", lower_transpose}, {"slice", lower_slice},
          {"cat", lower_cat}};
}

}  // namespace univk::backends::detail
