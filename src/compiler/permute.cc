#include "permute.h"

#include <cstring>

namespace univk::compiler::detail {

std::vector<int64_t> permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perms) {
  std::vector<int64_t> out(perms.size());
  for (size_t i = 0; i < perms.size(); ++i) out[i] = dims[static_cast<size_t>(perms[i])];
  return out;
}

HostTensor permute_tensor(const HostTensor& tensor, const std::vector<int64_t>& perms) {
  const std::vector<int64_t>& in_dims = tensor.shape().dims();
  const Shape out_shape(permuted(in_dims, perms));
  HostTensor out(tensor.dtype(), out_shape);
  const size_t rank = perms.size();
  const size_t elem = dtype_size(tensor.dtype());
  const std::vector<int64_t> in_strides = tensor.shape().contiguous_strides();
  std::vector<int64_t> index(rank, 0);
  const uint8_t* src = tensor.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t i = 0; i < out_shape.numel(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * in_strides[static_cast<size_t>(perms[d])];
    std::memcpy(dst + static_cast<size_t>(i) * elem, src + static_cast<size_t>(offset) * elem, elem);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace univk::compiler::detail
