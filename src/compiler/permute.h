// Internal: dimension permutations of shapes and host tensors, and the NCHW <-> NHWC pair.
#pragma once

#include <cstdint>
#include <vector>

#include "univk/tensor/tensor.h"

namespace univk::compiler::detail {

// A copy of `tensor` with its dims permuted (out dim i = in dim perms[i]); any dtype.
HostTensor permute_tensor(const HostTensor& tensor, const std::vector<int64_t>& perms);
std::vector<int64_t> permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perms);

// NCHW <-> NHWC permutations.
inline const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
inline const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

}  // namespace univk::compiler::detail
