// PyTorch view/reshape, flatten, permute, transpose, cat, slice, squeeze, unsqueeze and
// contiguous. These move bytes only, so they accept every dtype.
#include <algorithm>
#include <cstring>
#include <limits>

#include "common.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> reshape(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("shape"));
  UNIVK_ASSIGN_OR_RETURN(Shape shape, infer_reshape(dims, inputs[0].numel(), "shape"));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(shape));
  return single(std::move(out));
}

Result<Tensors> flatten(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const Shape& s = inputs[0].shape();
  const int64_t rank = static_cast<int64_t>(s.rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t start_attr, attrs.get_int_or("start_dim", 0));
  UNIVK_ASSIGN_OR_RETURN(int64_t end_attr, attrs.get_int_or("end_dim", -1));
  UNIVK_ASSIGN_OR_RETURN(int64_t start, wrap_dim(start_attr, rank, "start_dim"));
  UNIVK_ASSIGN_OR_RETURN(int64_t end, wrap_dim(end_attr, rank, "end_dim"));
  if (start > end) return invalid_argument("attribute 'start_dim' comes after 'end_dim'");
  std::vector<int64_t> dims;
  if (rank == 0) {
    dims = {1};  // flatten of a scalar is a 1-element vector
  } else {
    int64_t merged = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < start || d > end) {
        dims.push_back(s[static_cast<size_t>(d)]);
      } else {
        merged *= s[static_cast<size_t>(d)];
        if (d == end) dims.push_back(merged);
      }
    }
  }
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(Shape(dims)));
  return single(std::move(out));
}

Result<Tensors> permute(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.get_ints("dims"));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> perm,
                         check_permutation(dims, static_cast<int64_t>(inputs[0].shape().rank()), true, "dims"));
  return single(permute_tensor(inputs[0], perm));
}

Result<Tensors> transpose(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const int64_t rank = static_cast<int64_t>(inputs[0].shape().rank());
  UNIVK_ASSIGN_OR_RETURN(int64_t a0, attrs.get_int("dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t a1, attrs.get_int("dim1"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d0, wrap_dim(a0, rank, "dim0"));
  UNIVK_ASSIGN_OR_RETURN(int64_t d1, wrap_dim(a1, rank, "dim1"));
  if (rank == 0) return single(inputs[0]);
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  std::swap(perm[static_cast<size_t>(d0)], perm[static_cast<size_t>(d1)]);
  return single(permute_tensor(inputs[0], perm));
}

Result<Tensors> cat(std::string_view, const Attributes& attrs, Inputs inputs) {
  if (inputs.empty()) return invalid_argument("needs at least one input tensor");
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int_or("dim", 0));
  if (inputs[0].shape().rank() == 0) return invalid_argument("zero-dimensional tensors cannot be concatenated");
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(inputs[0].shape().rank()), "dim"));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, concat_tensors(inputs, dim));
  return single(std::move(out));
}

Result<Tensors> slice(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_ASSIGN_OR_RETURN(SliceRange range, resolve_slice(attrs, x.shape()));
  const int64_t rank = static_cast<int64_t>(x.shape().rank());
  const int64_t dim = range.dim, start = range.start, step = range.step, len = range.length;
  const int64_t size = x.shape()[static_cast<size_t>(dim)];
  const std::vector<int64_t>& dims = range.output.dims();
  HostTensor out(x.dtype(), range.output);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < dim) outer *= dims[static_cast<size_t>(d)];
    if (d > dim) inner *= dims[static_cast<size_t>(d)];
  }
  const size_t row = static_cast<size_t>(inner) * dtype_size(x.dtype());
  const uint8_t* src = x.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t a = 0; a < outer && row > 0; ++a) {
    for (int64_t i = 0; i < len; ++i) {
      std::memcpy(dst, src + static_cast<size_t>(a * size + start + i * step) * row, row);
      dst += row;
    }
  }
  return single(std::move(out));
}

Result<Tensors> squeeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const Shape& s = inputs[0].shape();
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
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(Shape(dims)));
  return single(std::move(out));
}

Result<Tensors> unsqueeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const Shape& s = inputs[0].shape();
  UNIVK_ASSIGN_OR_RETURN(int64_t dim_attr, attrs.get_int("dim"));
  // Valid range is [-rank-1, rank], i.e. wrapping against rank+1.
  UNIVK_ASSIGN_OR_RETURN(int64_t dim, wrap_dim(dim_attr, static_cast<int64_t>(s.rank()) + 1, "dim"));
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + dim, 1);
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(Shape(dims)));
  return single(std::move(out));
}

Result<Tensors> contiguous(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  return single(inputs[0]);  // HostTensor is always contiguous: a copy
}

}  // namespace

OpTable shape_ops() {
  return {{"view", reshape},       {"reshape", reshape}, {"flatten", flatten}, {"permute", permute},
          {"transpose", transpose}, {"cat", cat},         {"slice", slice},     {"squeeze", squeeze},
          {"unsqueeze", unsqueeze}, {"contiguous", contiguous}};
}

}  // namespace univk::reference::detail
