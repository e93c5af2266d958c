// PyTorch view/reshape, flatten, permute, transpose, cat, slice, pad, squeeze, unsqueeze and
// contiguous. These move bytes only, so they accept every dtype (pad: the dtypes its fill value
// has a meaning for, float32 and int32).
#include <cstring>

#include "common.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> reshape(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::reshape(attrs, shapes_of(inputs)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(shape));
  return single(std::move(out));
}

Result<Tensors> flatten(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::flatten(attrs, shapes_of(inputs)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(shape));
  return single(std::move(out));
}

Result<Tensors> permute(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Permutation p, ops::permute(attrs, shapes_of(inputs)));
  return single(permute_tensor(inputs[0], p.perm));
}

Result<Tensors> transpose(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Permutation p, ops::transpose(attrs, shapes_of(inputs)));
  if (p.perm.empty()) return single(inputs[0]);
  return single(permute_tensor(inputs[0], p.perm));
}

Result<Tensors> cat(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Cat c, ops::cat(attrs, shapes_of(inputs)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, concat_tensors(inputs, c.dim));
  return single(std::move(out));
}

Result<Tensors> slice(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Slice range, ops::slice(attrs, shapes_of(inputs)));
  const HostTensor& x = inputs[0];
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

// The input coordinate output coordinate `c` reads along a dim of `size` padded by `before`,
// or -1 where constant padding fills.
int64_t pad_source(ops::PadMode mode, int64_t c, int64_t before, int64_t size) {
  const int64_t i = c - before;
  if (i >= 0 && i < size) return i;
  switch (mode) {
    case ops::PadMode::kConstant:
      return -1;
    case ops::PadMode::kReflect:
      return i < 0 ? -i : 2 * (size - 1) - i;
    case ops::PadMode::kReplicate:
      return i < 0 ? 0 : size - 1;
  }
  return -1;
}

Result<Tensors> pad(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Pad p, ops::pad(attrs, shapes_of(inputs)));
  const HostTensor& x = inputs[0];
  uint8_t fill[4] = {};
  if (x.dtype() == DType::kFloat32) {
    const float v = static_cast<float>(p.value);
    std::memcpy(fill, &v, 4);
  } else if (x.dtype() == DType::kInt32) {
    const int32_t v = static_cast<int32_t>(p.value);
    std::memcpy(fill, &v, 4);
  } else {
    return unsupported(std::string("pad of ") + std::string(dtype_name(x.dtype())) + " (float32 and int32 only)");
  }
  HostTensor out(x.dtype(), p.output);
  const size_t rank = p.output.rank();
  const std::vector<int64_t> in_strides = x.shape().contiguous_strides();
  const int64_t n = p.output.numel();
  std::vector<int64_t> c(rank, 0);  // output coordinate of element i, row-major
  const uint8_t* src = x.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t i = 0; i < n; ++i, dst += 4) {
    int64_t at = 0;
    for (size_t d = 0; d < rank && at >= 0; ++d) {
      const int64_t s = pad_source(p.mode, c[d], p.before[d], x.shape()[d]);
      at = s < 0 ? -1 : at + s * in_strides[d];
    }
    std::memcpy(dst, at < 0 ? fill : src + static_cast<size_t>(at) * 4, 4);
    for (size_t d = rank; d-- > 0;) {
      if (++c[d] < p.output[d]) break;
      c[d] = 0;
    }
  }
  return single(std::move(out));
}

Result<Tensors> squeeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::squeeze(attrs, shapes_of(inputs)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(shape));
  return single(std::move(out));
}

Result<Tensors> unsqueeze(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::unsqueeze(attrs, shapes_of(inputs)));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, inputs[0].reshaped(shape));
  return single(std::move(out));
}

Result<Tensors> contiguous(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(ops::contiguous(attrs, shapes_of(inputs)).status());
  return single(inputs[0]);  // HostTensor is always contiguous: a copy
}

}  // namespace

OpTable shape_ops() {
  return {{"view", reshape},         {"reshape", reshape},
          {"flatten", flatten},      {"permute", permute},
          {"transpose", transpose},  {"cat", cat},
          {"slice", slice},          {"pad", pad},
          {"squeeze", squeeze},      {"unsqueeze", unsqueeze},
          {"contiguous", contiguous}};
}

}  // namespace univk::reference::detail
