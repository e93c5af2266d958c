// Host memory running out (label fault): every host tensor allocation on the load and execute
// paths fails in turn through the allocation fault hook, and a CPU-fallback program whose value
// does not fit under a memory limit (RLIMIT_AS) runs in a child process. Each must end in an
// OutOfMemory naming the size, never a crash or a write through a null buffer, and the method
// must work again afterwards.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "reliability_programs.h"
#include "univk/runtime/program_writer.h"
#include "univk/tensor/host_allocation.h"
#include "univk_test.h"

namespace univk::reliability {
namespace {

// y = (x[n,1] + z[1,n]) * 2 on the CPU: an [n,n] value from two small inputs.
Result<std::shared_ptr<runtime::Program>> broadcast_program(int64_t n) {
  runtime::ProgramBuilder builder;
  runtime::MethodBuilder& m = builder.add_method("forward");
  runtime::ValueId x = m.add_value(DType::kFloat32, Shape{n, 1});
  runtime::ValueId z = m.add_value(DType::kFloat32, Shape{1, n});
  runtime::ValueId sum = m.add_value(DType::kFloat32, Shape{n, n});
  runtime::ValueId y = m.add_value(DType::kFloat32, Shape{n, n});
  m.add_kernel_call("add", {}, {x, z}, {sum});
  Attributes twice;
  twice.set("other", 2.0);
  m.add_kernel_call("mul", twice, {sum}, {y});
  m.set_inputs({x, z});
  m.set_outputs({y});
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, builder.finish());
  return runtime::Program::load_bytes(std::move(bytes));
}

Status check_broadcast(const std::vector<HostTensor>& outputs, const HostTensor& x, const HostTensor& z) {
  if (outputs.size() != 1) return internal_error("expected 1 output");
  const int64_t n = x.numel();
  auto y = outputs[0].data<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const float want = (x.data<float>()[i] + z.data<float>()[j]) * 2.f;
      if (y[i * n + j] != want) return internal_error("wrong element " + std::to_string(i * n + j));
    }
  }
  return ok_status();
}

void expect_out_of_memory(const Status& status) {
  EXPECT_EQ(status.code(), StatusCode::kOutOfMemory) << status.to_string();
  EXPECT_NE(status.message().find("bytes of host memory"), std::string::npos) << status.to_string();
}

// Counts the host tensor allocations of `run`, then fails each of them once: every run ends in
// OutOfMemory or a verified result, and `run` succeeds again with the hook disarmed.
template <typename Run>
void fail_every_allocation(Run run) {
  fail_nth_host_allocation_for_testing(0);
  UNIVK_ASSERT_OK(run());
  const uint64_t count = fail_nth_host_allocation_for_testing(0);
  ASSERT_GT(count, 0u);
  for (uint64_t n = 1; n <= count; ++n) {
    fail_nth_host_allocation_for_testing(n);
    Status status = run();
    if (!status.ok()) expect_out_of_memory(status);
  }
  fail_nth_host_allocation_for_testing(0);
  UNIVK_EXPECT_OK(run());
}

TEST(HostMemory, EveryAllocationOfACpuExecuteCanFail) {
  auto program = broadcast_program(8);
  UNIVK_ASSERT_OK(program);
  auto method = (*program)->load_method("forward");
  UNIVK_ASSERT_OK(method);
  const HostTensor x = random_input(Shape{8, 1}, 1), z = random_input(Shape{1, 8}, 2);
  const HostTensor inputs[] = {x, z};
  uint64_t failed = 0;
  fail_every_allocation([&]() -> Status {
    auto outputs = (*method)->execute(inputs);
    if (!outputs.ok()) {
      ++failed;
      return outputs.status();
    }
    return check_broadcast(*outputs, x, z);
  });
  EXPECT_GT(failed, 0u);
}

TEST(HostMemory, EveryAllocationOfLoadAndExecuteOnTheGpuCanFail) {
  auto programs = available();
  UNIVK_ASSERT_OK(programs);
  for (const TestProgram& program : *programs) {
    for (runtime::ExecutionMode mode : {runtime::ExecutionMode::kFused, runtime::ExecutionMode::kPerDelegate}) {
      SCOPED_TRACE(program.name + " " + std::string(runtime::execution_mode_name(mode)));
      runtime::LoadOptions options;
      options.mode = mode;
      // Inputs and expectations are made before the hook is armed: only univk's allocations fail.
      const HostTensor input = random_input(program.input_shape, 7);
      const HostTensor want = program.expected(input);
      auto run = [&](runtime::Method& method) -> Status {
        UNIVK_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, method.execute({&input, 1}));
        if (outputs.size() != 1) return internal_error("expected 1 output");
        return check_close(outputs[0], want);
      };
      fail_every_allocation([&]() -> Status {
        UNIVK_ASSIGN_OR_RETURN(auto method, program.program->load_method("forward", options));
        return run(*method);
      });
      // One Method through every failure of its execute: it must keep working after each.
      auto method = program.program->load_method("forward", options);
      UNIVK_ASSERT_OK(method);
      uint64_t failed = 0;
      fail_every_allocation([&]() -> Status {
        Status status = run(**method);
        failed += status.ok() ? 0 : 1;
        return status;
      });
      EXPECT_GT(failed, 0u);
    }
  }
}

// Virtual memory in use by this process, from /proc/self/status (VmSize, kB).
[[maybe_unused]] uint64_t virtual_memory_bytes() {  // unused in sanitizer builds
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kb = 0;
  while (status >> key) {
    if (key == "VmSize:") {
      status >> kb;
      break;
    }
  }
  return kb * 1024;
}

// A 40000 x 40000 float32 value (6.4 GB) under a limit of what the process uses plus 512 MiB.
TEST(HostMemory, LargeCpuValueUnderAMemoryLimitIsOutOfMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes reserve more address space than RLIMIT_AS allows";
#else
  constexpr int64_t kN = 40000;
  auto program = broadcast_program(kN);
  UNIVK_ASSERT_OK(program);
  const HostTensor x = random_input(Shape{kN, 1}, 1), z = random_input(Shape{1, kN}, 2);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlim_t limit = virtual_memory_bytes() + (512ull << 20);
    const struct rlimit rl { limit, limit };
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(10);
    auto method = (*program)->load_method("forward");
    if (!method.ok()) _exit(11);
    const HostTensor inputs[] = {x, z};
    auto outputs = (*method)->execute(inputs);
    if (outputs.ok()) _exit(12);
    const Status& s = outputs.status();
    if (s.code() != StatusCode::kOutOfMemory) _exit(13);
    if (s.message().find(std::to_string(kN * kN * 4) + " bytes of host memory") == std::string::npos) _exit(14);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died from signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit failed, 11: load failed, 12: execute succeeded, "
                                       "13: not OutOfMemory, 14: the message lacks the size";
#endif
}

}  // namespace
}  // namespace univk::reliability
