// libFuzzer entry point of univk::fuzz::vgf_decoder (fuzz_targets.h).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)univk::fuzz::vgf_decoder({data, size});
  return 0;
}
