// libFuzzer entry point of univk::fuzz::program_loader (fuzz_targets.h).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)univk::fuzz::program_loader({data, size});
  return 0;
}
