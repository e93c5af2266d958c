// libFuzzer entry point of univk::fuzz::compute_graph (fuzz_targets.h).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)univk::fuzz::compute_graph({data, size});
  return 0;
}
