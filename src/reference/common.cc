#include "common.h"

#include <algorithm>
#include <cstring>

namespace univk::reference::detail {

Result<HostTensor> make_output(DType dtype, std::vector<int64_t> dims) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, Shape::checked(std::move(dims)));
  if (static_cast<uint64_t>(shape.numel()) > kMaxOutputBytes / dtype_size(dtype)) {
    return invalid_argument("output shape " + shape.to_string() + " exceeds the reference kernels' 4 GiB limit");
  }
  return HostTensor(dtype, std::move(shape));
}

Status check_input_count(Inputs inputs, size_t min, size_t max) {
  if (inputs.size() < min || inputs.size() > max) {
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max);
    return invalid_argument("expected " + want + " input tensors, got " + std::to_string(inputs.size()));
  }
  return ok_status();
}

Status check_same_dtypes(const HostTensor& a, const HostTensor& b) {
  if (a.dtype() != b.dtype()) {
    return invalid_argument("input dtypes differ: " + std::string(dtype_name(a.dtype())) + " and " +
                            std::string(dtype_name(b.dtype())));
  }
  return ok_status();
}

Status check_dtype(const HostTensor& t, size_t index, DType expected) {
  if (t.dtype() != expected) {
    return invalid_argument("input " + std::to_string(index) + " has dtype " + std::string(dtype_name(t.dtype())) +
                            ", expected " + std::string(dtype_name(expected)));
  }
  return ok_status();
}

Status check_all_float(Inputs inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != DType::kFloat32) {
      return unsupported("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(inputs[i].dtype())) +
                         "; only float32 is implemented");
    }
  }
  return ok_status();
}

std::vector<Shape> shapes_of(Inputs inputs) {
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const HostTensor& t : inputs) shapes.push_back(t.shape());
  return shapes;
}

HostTensor select_broadcast(const HostTensor& cond, const HostTensor& x, const HostTensor& y, const Shape& shape) {
  const auto size = static_cast<int64_t>(dtype_size(x.dtype()));
  HostTensor out(x.dtype(), shape);
  const uint8_t* c = cond.data<uint8_t>().data();
  const uint8_t* xs = x.bytes().data();
  const uint8_t* ys = y.bytes().data();
  uint8_t* o = out.bytes().data();
  for_each_broadcast(shape,
                     {broadcast_strides(cond.shape(), shape), broadcast_strides(x.shape(), shape),
                      broadcast_strides(y.shape(), shape)},
                     [&](int64_t i, const std::vector<int64_t>& off) {
                       const uint8_t* src = c[off[0]] != 0 ? xs + off[1] * size : ys + off[2] * size;
                       std::memcpy(o + i * size, src, static_cast<size_t>(size));
                     });
  return out;
}

HostTensor permute_tensor(const HostTensor& in, const std::vector<int64_t>& perm) {
  const Shape& s = in.shape();
  std::vector<int64_t> out_dims(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out_dims[i] = s[static_cast<size_t>(perm[i])];
  HostTensor out(in.dtype(), Shape(out_dims));
  const std::vector<int64_t> in_strides = s.contiguous_strides();
  std::vector<int64_t> strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) strides[i] = in_strides[static_cast<size_t>(perm[i])];
  const size_t esize = dtype_size(in.dtype());
  const uint8_t* src = in.bytes().data();
  uint8_t* dst = out.bytes().data();
  for_each_broadcast(out.shape(), {strides}, [&](int64_t flat, const std::vector<int64_t>& off) {
    std::memcpy(dst + static_cast<size_t>(flat) * esize, src + static_cast<size_t>(off[0]) * esize, esize);
  });
  return out;
}

Result<HostTensor> concat_tensors(Inputs inputs, int64_t axis) {
  if (inputs.empty()) return invalid_argument("needs at least one input tensor");
  const HostTensor& first = inputs[0];
  const size_t rank = first.shape().rank();
  std::vector<int64_t> out_dims = first.shape().dims();
  out_dims[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor& t = inputs[i];
    if (t.dtype() != first.dtype()) {
      return invalid_argument("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(t.dtype())) +
                              ", input 0 has " + std::string(dtype_name(first.dtype())));
    }
    if (t.shape().rank() != rank) {
      return invalid_argument("input " + std::to_string(i) + " has shape " + t.shape().to_string() +
                              ", rank differs from input 0 " + first.shape().to_string());
    }
    for (size_t d = 0; d < rank; ++d) {
      if (d != static_cast<size_t>(axis) && t.shape()[d] != first.shape()[d]) {
        return invalid_argument("input " + std::to_string(i) + " has shape " + t.shape().to_string() +
                                ", which differs from input 0 " + first.shape().to_string() +
                                " outside the concatenation dim " + std::to_string(axis));
      }
    }
    out_dims[static_cast<size_t>(axis)] += t.shape()[static_cast<size_t>(axis)];
  }
  HostTensor out(first.dtype(), Shape(out_dims));
  // Rows = product of dims before axis; each input contributes a contiguous block per row.
  int64_t rows = 1;
  for (size_t d = 0; d < static_cast<size_t>(axis); ++d) rows *= out_dims[d];
  uint8_t* dst = out.bytes().data();
  for (int64_t r = 0; r < rows; ++r) {
    for (const HostTensor& t : inputs) {
      const size_t block = rows == 0 ? 0 : t.byte_size() / static_cast<size_t>(rows);
      if (block == 0) continue;  // empty input: its data pointer may be null
      std::memcpy(dst, t.bytes().data() + static_cast<size_t>(r) * block, block);
      dst += block;
    }
  }
  return out;
}

}  // namespace univk::reference::detail
