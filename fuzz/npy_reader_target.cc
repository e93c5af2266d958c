#include <algorithm>
#include <vector>

#include "fuzz_targets.h"
#include "univk/npy/npy.h"

namespace univk::fuzz {

// A tensor that parses must survive encode_npy + parse_npy unchanged; anything else is a bug
// (trapped).
Status npy_reader(std::span<const uint8_t> data) {
  auto tensor = npy::parse_npy(data);
  if (!tensor.ok()) return tensor.status();
  std::vector<uint8_t> encoded = npy::encode_npy(*tensor);
  auto again = npy::parse_npy(encoded);
  if (!again.ok() || again->dtype() != tensor->dtype() || again->shape() != tensor->shape() ||
      !std::equal(again->bytes().begin(), again->bytes().end(), tensor->bytes().begin(), tensor->bytes().end())) {
    __builtin_trap();
  }
  return ok_status();
}

}  // namespace univk::fuzz
