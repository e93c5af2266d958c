// Shared main of every univk test binary. Runs all tests and fails the binary when the Vulkan
// validation layer reported anything during a test (UNIVK_VALIDATION=1 turns the layer on in
// every instance univk creates; CTest sets it for all tests).
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>

#include "univk/vulkan/validation.h"

namespace {

class ValidationListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo&) override { start_ = univk::vulkan::validation_message_count(); }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    auto messages = univk::vulkan::validation_messages_since(start_);
    if (messages.empty()) return;
    failed_ = true;
    std::fprintf(stderr, "FAILED: %s.%s produced %zu Vulkan validation message(s):\n", info.test_suite_name(),
                 info.name(), messages.size());
    for (const auto& m : messages) std::fprintf(stderr, "  %s\n", m.c_str());
  }
  bool failed() const { return failed_; }

 private:
  uint64_t start_ = 0;
  bool failed_ = false;
};

}  // namespace

// The Vulkan loader unloads the driver and layer libraries at vkDestroyInstance, after which
// LeakSanitizer can no longer attribute (or see the roots of) their allocations and reports them
// as univk leaks. Keeping the two libraries resident makes the leak check see univk's own leaks
// only; what the validation layer itself leaks is suppressed in tests/support/lsan.supp.
void keep_vulkan_libraries_loaded() {
  for (const char* lib : {"libvulkan_lvp.so", "libVkLayer_khronos_validation.so"}) {
    dlopen(lib, RTLD_NOW | RTLD_NODELETE);  // absent on some machines: then nothing to keep
  }
}

int main(int argc, char** argv) {
  keep_vulkan_libraries_loaded();
  ::testing::InitGoogleTest(&argc, argv);
  auto* listener = new ValidationListener();
  ::testing::UnitTest::GetInstance()->listeners().Append(listener);  // gtest owns it
  int rc = RUN_ALL_TESTS();
  if (rc == 0 && listener->failed()) rc = 1;
  return rc;
}
