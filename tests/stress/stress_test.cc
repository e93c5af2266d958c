// Concurrency stress (labels stress, concurrency; CI runs it under TSan): threads loading,
// running and unloading programs on one shared device, every output verified against the CPU;
// and races of method load against unload on the same device key, so that the shared device is
// destroyed and created again while other threads look it up. Bounded by time (UNIVK_STRESS_SECONDS,
// default 3 s per test) and by a minimum number of iterations per thread.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../fault/reliability_programs.h"
#include "univk_test.h"

namespace univk::reliability {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kThreads = 8;

std::chrono::milliseconds budget() {
  const char* env = std::getenv("UNIVK_STRESS_SECONDS");
  double seconds = env != nullptr ? std::atof(env) : 3.0;
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

// Collects the first error of any thread (gtest assertions are not made off the main thread).
class Errors {
 public:
  void add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (errors_.size() < 10) errors_.push_back(what);
    ++count_;
  }
  void expect_none() {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_EQ(count_, 0) << (errors_.empty() ? "" : errors_.front());
    for (const auto& e : errors_) ADD_FAILURE() << e;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> errors_;
  int count_ = 0;
};

class Stress : public ::testing::Test {
 protected:
  void SetUp() override {
    auto programs = available();
    UNIVK_ASSERT_OK(programs);
    programs_ = std::move(programs).value();
    if (programs_.empty()) GTEST_SKIP() << "this build has no backend to run a program with";
    options_.registry = &registry_;
    options_.config.enable_validation = true;
  }
  std::vector<TestProgram> programs_;
  vulkan::DeviceRegistry registry_;
  runtime::LoadOptions options_;
};

// 8 threads, each: load a method (programs and execution modes round robin), execute it twice on
// fresh inputs, verify, destroy; repeat until the time budget is spent. One device for all.
TEST_F(Stress, EightThreadsLoadRunUnloadOnOneDevice) {
  // Keep the shared device alive between iterations (otherwise each thread's last unload would
  // destroy it and the next load recreate it; that race has its own test below).
  auto keeper = programs_[0].program->load_method("forward", options_);
  UNIVK_ASSERT_OK(keeper);

  Errors errors;
  std::atomic<uint64_t> iterations{0}, executes{0};
  const auto deadline = Clock::now() + budget();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < 2 || Clock::now() < deadline; ++i) {
        const TestProgram& program = programs_[(t + i) % programs_.size()];
        runtime::LoadOptions options = options_;
        options.mode = (t + i) % 2 == 0 ? runtime::ExecutionMode::kAuto : runtime::ExecutionMode::kPerDelegate;
        auto method = program.program->load_method("forward", options);
        if (!method.ok()) {
          errors.add("thread " + std::to_string(t) + " load: " + method.status().to_string());
          return;
        }
        for (uint32_t r = 0; r < 2; ++r) {
          Status s = run_and_check(**method, program, t * 100000 + i * 10 + r);
          if (!s.ok()) {
            errors.add("thread " + std::to_string(t) + " " + program.name + ": " + s.to_string());
            return;
          }
          executes.fetch_add(1);
        }
        iterations.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  errors.expect_none();
  EXPECT_EQ(registry_.created_count(), 1u) << "every thread should have shared the one device";
  EXPECT_GE(iterations.load(), 2u * kThreads);
  std::printf("%d threads: %llu load/run/unload iterations, %llu verified executes\n", kThreads,
              static_cast<unsigned long long>(iterations.load()), static_cast<unsigned long long>(executes.load()));
}

// Methods of different threads executing concurrently, each loaded once: the queue is shared,
// every thread submits and waits on its own timeline values.
TEST_F(Stress, EightThreadsExecuteConcurrently) {
  std::vector<std::unique_ptr<runtime::Method>> methods;
  for (int t = 0; t < kThreads; ++t) {
    auto method = programs_[t % programs_.size()].program->load_method("forward", options_);
    UNIVK_ASSERT_OK(method);
    methods.push_back(std::move(method).value());
  }
  Errors errors;
  std::atomic<uint64_t> executes{0};
  const auto deadline = Clock::now() + budget() / 2;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const TestProgram& program = programs_[t % programs_.size()];
      for (uint32_t i = 0; i < 4 || Clock::now() < deadline; ++i) {
        Status s = run_and_check(*methods[t], program, t * 100000 + i);
        if (!s.ok()) {
          errors.add("thread " + std::to_string(t) + ": " + s.to_string());
          return;
        }
        executes.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  errors.expect_none();
  std::printf("%d threads: %llu verified concurrent executes\n", kThreads,
              static_cast<unsigned long long>(executes.load()));
}

// One Method called from 8 threads at once, 300 calls each, in both execution modes: the Method
// serialises its calls (program.h), so every caller gets the output of its own input.
TEST_F(Stress, EightThreadsShareOneMethod) {
  constexpr uint32_t kCallsPerThread = 300;
  for (const TestProgram& program : programs_) {
    for (runtime::ExecutionMode mode : {runtime::ExecutionMode::kFused, runtime::ExecutionMode::kPerDelegate}) {
      runtime::LoadOptions options = options_;
      options.mode = mode;
      auto method = program.program->load_method("forward", options);
      UNIVK_ASSERT_OK(method) << program.name;
      ASSERT_EQ((*method)->mode(), mode);
      Errors errors;
      std::atomic<uint64_t> verified{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          for (uint32_t i = 0; i < kCallsPerThread; ++i) {
            // Each thread's inputs differ, so an output handed to the wrong caller fails the check.
            Status s = run_and_check(**method, program, static_cast<uint32_t>(t) * 100000 + i);
            if (!s.ok()) {
              errors.add("thread " + std::to_string(t) + " call " + std::to_string(i) + ": " + s.to_string());
              return;
            }
            verified.fetch_add(1);
          }
        });
      }
      for (auto& thread : threads) thread.join();
      errors.expect_none();
      EXPECT_EQ(verified.load(), uint64_t{kThreads} * kCallsPerThread) << program.name;
      std::printf("%s (%s): %llu verified calls of one Method from %d threads\n", program.name.c_str(),
                  std::string(runtime::execution_mode_name(mode)).c_str(),
                  static_cast<unsigned long long>(verified.load()), kThreads);
    }
  }
}

// Load against unload on one key, in phases: in each phase all threads race to load a method on
// key "race"/0, run it and drop it, then meet at a barrier. When they meet no lease is left, so
// the device is destroyed, and the next phase's loads race to create it again: exactly one
// creation per phase. Two of the threads use lookup_only, which must either find the live device
// (created by a racing thread) or say NotFound. Every run that loaded must be correct.
TEST_F(Stress, LoadRacesUnloadOnTheSameKey) {
  Errors errors;
  std::atomic<uint64_t> loads{0}, not_found{0};
  const auto deadline = Clock::now() + budget();
  uint64_t phases = 0;
  bool more = true;
  std::barrier sync(kThreads, [&]() noexcept {
    ++phases;
    more = phases < 2 || Clock::now() < deadline;
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const bool lookup_only = t < 2;
      for (uint32_t i = 0; more; ++i) {
        const TestProgram& program = programs_[(t + i) % programs_.size()];
        runtime::LoadOptions options = options_;
        options.all_backends["vulkan_shared_context_name"] = "race";
        options.all_backends["vulkan_shared_context_mode"] = lookup_only ? "lookup_only" : "lookup_or_create";
        auto method = program.program->load_method("forward", options);
        if (method.ok()) {
          Status s = run_and_check(**method, program, t * 1000 + i);
          if (!s.ok()) errors.add("thread " + std::to_string(t) + " " + program.name + ": " + s.to_string());
          loads.fetch_add(1);
        } else if (lookup_only && method.status().code() == StatusCode::kNotFound) {
          not_found.fetch_add(1);
        } else {
          errors.add("thread " + std::to_string(t) + " load: " + method.status().to_string());
        }
        method = internal_error("dropped");  // unload before the barrier
        sync.arrive_and_wait();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  errors.expect_none();
  EXPECT_GE(loads.load(), phases * (kThreads - 2));
  EXPECT_EQ(registry_.created_count(), phases) << "one device creation per phase: racing loads must share it, "
                                                  "and the last unload of a phase must destroy it";
  std::printf("load/unload race: %llu phases, %llu verified loads, %llu lookup_only NotFound, %llu device creations\n",
              static_cast<unsigned long long>(phases), static_cast<unsigned long long>(loads.load()),
              static_cast<unsigned long long>(not_found.load()),
              static_cast<unsigned long long>(registry_.created_count()));
}

}  // namespace
}  // namespace univk::reliability
