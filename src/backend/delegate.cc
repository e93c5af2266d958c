// The contract's input check (delegate.h).
#include "univk/backend/delegate.h"

#include <string>

namespace univk::backend {
namespace {

std::string describe(const TensorInfo& info) { return std::string(dtype_name(info.dtype)) + info.shape.to_string(); }

}  // namespace

Status check_input(size_t index, const HostTensor& input, const TensorInfo& expected) {
  const std::string where = "input " + std::to_string(index) + ": expected " + describe(expected);
  if (input.dtype() != expected.dtype || input.shape() != expected.shape)
    return invalid_argument(where + ", got " + input.describe());
  const size_t held = input.bytes().data() == nullptr ? 0 : input.byte_size();
  if (held != expected.byte_size()) {
    return invalid_argument(where + " (" + std::to_string(expected.byte_size()) + " bytes), got " + input.describe() +
                            " holding " + std::to_string(held) + " bytes");
  }
  return ok_status();
}

Status check_inputs(std::span<const HostTensor> inputs, std::span<const TensorInfo> expected) {
  if (inputs.size() != expected.size()) {
    return invalid_argument("takes " + std::to_string(expected.size()) + " inputs, got " +
                            std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) UNIVK_RETURN_IF_ERROR(check_input(i, inputs[i], expected[i]));
  return ok_status();
}

}  // namespace univk::backend
