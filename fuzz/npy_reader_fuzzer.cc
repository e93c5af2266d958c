// libFuzzer entry point of univk::fuzz::npy_reader (fuzz_targets.h).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)univk::fuzz::npy_reader({data, size});
  return 0;
}
