// Fault injection at the dispatch table, whole programs: load_method + execute + destroy of each
// program this build can make (reliability_programs.h) is repeated once for every
// VkResult-returning Vulkan call it makes, with that call failing (out of device memory, device
// lost, initialization failed). Each run must end in verified outputs or a Status whose code
// matches the injected result and names it, leak no device memory, and leave the device usable:
// a method of the same program loaded before the faults keeps producing correct outputs, and the
// registry keeps handing out the same device.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "injected_status.h"
#include "reliability_programs.h"
#include "univk/vulkan/fault_injection.h"
#include "univk_test.h"

namespace univk::reliability {
namespace {

namespace fi = vulkan::fault_injection;

using fault_testing::expected_code;

Status load_run_unload(const TestProgram& program, const runtime::LoadOptions& options, uint32_t seed) {
  UNIVK_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Method> method, program.program->load_method("forward", options));
  return run_and_check(*method, program, seed);
}

class FaultProgram : public ::testing::TestWithParam<runtime::ExecutionMode> {
 protected:
  void SetUp() override {
    fi::set_instrumentation(true);
    options_.registry = &registry_;
    options_.config.enable_validation = true;
    options_.mode = GetParam();
  }
  void TearDown() override {
    fi::disarm();
    fi::set_instrumentation(false);
  }
  vulkan::DeviceRegistry registry_;
  runtime::LoadOptions options_;
};

TEST_P(FaultProgram, EveryCallOfLoadExecuteDestroy) {
  auto programs = available();
  UNIVK_ASSERT_OK(programs);
  if (programs->empty()) GTEST_SKIP() << "this build has no backend to run a program with";

  for (const TestProgram& program : *programs) {
    SCOPED_TRACE(program.name + " program, mode " + std::string(runtime::execution_mode_name(GetParam())));
    auto bystander = program.program->load_method("forward", options_);
    UNIVK_ASSERT_OK(bystander);
    UNIVK_ASSERT_OK(run_and_check(**bystander, program, 1));
    auto device = registry_.find(vulkan::DeviceKey{});
    ASSERT_TRUE(device.has_value()) << "the program's delegates should share the default device key";
    EXPECT_EQ(fi::mismatched_tables(), 0u);

    fi::count_calls();
    Status counted = load_run_unload(program, options_, 2);
    const uint64_t calls = fi::calls();
    fi::disarm();
    UNIVK_ASSERT_OK(counted);
    ASSERT_GE(calls, 4u);
    const uint64_t live = (*device)->live_allocations();

    // Every result in the default (fused) mode; per_delegate runs the same calls of the device
    // runtime, so out-of-memory alone keeps the test fast.
    std::vector<VkResult> results = {VK_ERROR_OUT_OF_DEVICE_MEMORY};
    if (GetParam() == runtime::ExecutionMode::kAuto) {
      results.push_back(VK_ERROR_DEVICE_LOST);
      results.push_back(VK_ERROR_INITIALIZATION_FAILED);
    }
    uint64_t failed_runs = 0;
    for (VkResult result : results) {
      for (uint64_t n = 1; n <= calls; ++n) {
        Status status;
        std::string function;
        {
          fi::ScopedFault fault(n, result);
          status = load_run_unload(program, options_, static_cast<uint32_t>(n));
          EXPECT_TRUE(fault.fired()) << "call " << n << " of " << calls << " was never made";
          function = fi::fired_function();
        }
        const std::string where = "fault " + std::string(vulkan::vk_result_name(result)) + " at call " +
                                  std::to_string(n) + " (" + function + ")";
        if (!status.ok()) {
          ++failed_runs;
          EXPECT_EQ(status.code(), expected_code(result)) << where << ": " << status.to_string();
          EXPECT_NE(status.message().find(vulkan::vk_result_name(result)), std::string::npos)
              << where << ": " << status.to_string();
        }
        EXPECT_EQ((*device)->live_allocations(), live) << where << ": device memory leaked";
        Status after = run_and_check(**bystander, program, 100 + static_cast<uint32_t>(n));
        UNIVK_ASSERT_OK(after) << where;
      }
    }
    EXPECT_GT(failed_runs, 0u);
    auto again = registry_.find(vulkan::DeviceKey{});
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->get(), device->get());
    std::printf("%s program (%s): %llu calls, %llu faults injected, %llu runs failed cleanly\n", program.name.c_str(),
                std::string(runtime::execution_mode_name(GetParam())).c_str(), static_cast<unsigned long long>(calls),
                static_cast<unsigned long long>(results.size() * calls), static_cast<unsigned long long>(failed_runs));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, FaultProgram,
                         ::testing::Values(runtime::ExecutionMode::kAuto, runtime::ExecutionMode::kPerDelegate),
                         [](const auto& info) { return std::string(runtime::execution_mode_name(info.param)); });

}  // namespace
}  // namespace univk::reliability
