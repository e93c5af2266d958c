// Fused mode with the fake backend on a real device: one submission per execute, values between
// delegates in a planned arena, IO through mapped buffers (and the staging path). Every result is
// compared with per_delegate mode on the same inputs; the validation layer (with synchronization
// validation) must stay silent, which checks the barriers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <random>
#include <thread>

#include "fake_backend.h"
#include "fake_backend_fixture.h"
#include "univk/base/logging.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

using testing::affine_payload;

HostTensor random_input(Shape shape, uint32_t seed) {
  return ::univk::testing::random_tensor(DType::kFloat32, shape, seed, -1, 1);
}

// x -> A(2x+1) -> a -> B(0.5a-1) -> bb -> A(3bb) -> c -> B(-c+0.25) -> y, and k -> A(2k+1) -> kk.
// Four delegates in a chain plus a branch, so the arena reuses memory (a and c have disjoint
// lifetimes), a method output is also read by a later delegate, a constant feeds a delegate,
// and the program input is returned as an output too.
std::shared_ptr<Program> fused_program(const Shape& shape) {
  ProgramBuilder b;
  const uint32_t d0 = b.add_delegate("FakeA", affine_payload(2.f, 1.f));
  const uint32_t d1 = b.add_delegate("FakeB", affine_payload(0.5f, -1.f));
  const uint32_t d2 = b.add_delegate("FakeA", affine_payload(3.f, 0.f));
  const uint32_t d3 = b.add_delegate("FakeB", affine_payload(-1.f, 0.25f));
  MethodBuilder& m = b.add_method("forward");
  const ValueId x = m.add_value(DType::kFloat32, shape);
  const ValueId a = m.add_value(DType::kFloat32, shape);
  const ValueId bb = m.add_value(DType::kFloat32, shape);
  const ValueId c = m.add_value(DType::kFloat32, shape);
  const ValueId y = m.add_value(DType::kFloat32, shape);
  std::vector<float> constant_values(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < constant_values.size(); ++i) constant_values[i] = 0.125f * static_cast<float>(i % 7);
  std::vector<uint8_t> constant_bytes(constant_values.size() * 4);
  std::memcpy(constant_bytes.data(), constant_values.data(), constant_bytes.size());
  const ValueId k = m.add_constant(DType::kFloat32, shape, constant_bytes);
  const ValueId kk = m.add_value(DType::kFloat32, shape);
  m.add_delegate_call(d0, {x}, {a});
  m.add_delegate_call(d1, {a}, {bb});  // bb: an output, also read below
  m.add_delegate_call(d2, {bb}, {c});
  m.add_delegate_call(d3, {c}, {y});
  m.add_delegate_call(d0, {k}, {kk});  // a constant into a delegate
  m.set_inputs({x});
  m.set_outputs({y, bb, x, kk});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  auto program = Program::load_bytes(std::move(bytes).value());
  UNIVK_EXPECT_OK(program);
  return std::move(program).value();
}

class Fused : public testing::FakeBackendsTest {
 protected:
  std::unique_ptr<Method> load(const std::shared_ptr<Program>& program, ExecutionMode mode) {
    LoadOptions options = options_;
    options.mode = mode;
    auto method = program->load_method("forward", options);
    UNIVK_EXPECT_OK(method);
    return method.ok() ? std::move(method).value() : nullptr;
  }

  static void expect_same(const std::vector<HostTensor>& fused, const std::vector<HostTensor>& reference) {
    ASSERT_EQ(fused.size(), reference.size());
    for (size_t i = 0; i < fused.size(); ++i) {
      EXPECT_TRUE(::univk::testing::tensors_close(fused[i], reference[i], {1e-5, 1e-5})) << "output " << i;
    }
  }
};

TEST_F(Fused, MatchesPerDelegateAndSubmitsOnce) {
  for (const Shape& shape : {Shape{1, 3, 8, 8}, Shape{7}, Shape{2, 129}}) {
    SCOPED_TRACE(shape.to_string());
    auto program = fused_program(shape);
    auto fused = load(program, ExecutionMode::kAuto);
    auto per_delegate = load(program, ExecutionMode::kPerDelegate);
    ASSERT_TRUE(fused && per_delegate);
    EXPECT_EQ(fused->mode(), ExecutionMode::kFused);
    EXPECT_EQ(fused->mode_reason(), "auto: every delegate is on one device and no operator runs on the CPU");
    EXPECT_EQ(per_delegate->mode(), ExecutionMode::kPerDelegate);
    EXPECT_EQ(per_delegate->mode_reason(), "requested");

    const FusedInfo info = fused->fused_info();
    // a and c share memory: the arena holds two values (a/c and nothing else: bb, y, kk are
    // outputs in their own mapped buffers), rounded to the device's offset alignment.
    const uint64_t value_bytes = static_cast<uint64_t>(shape.numel()) * 4;
    EXPECT_GE(info.arena_bytes, value_bytes);
    EXPECT_LT(info.arena_bytes, 2 * value_bytes + 256);
    EXPECT_GT(info.barriers, 0u);
    EXPECT_EQ(per_delegate->fused_info().arena_bytes, 0u);

    const uint64_t before = registry_->find(vulkan::DeviceKey{}).value()->queue().last_submitted_value();
    for (uint32_t seed = 0; seed < 3; ++seed) {
      const HostTensor x = random_input(shape, seed);
      auto got = fused->execute(std::span<const HostTensor>(&x, 1));
      auto want = per_delegate->execute(std::span<const HostTensor>(&x, 1));
      UNIVK_ASSERT_OK(got);
      UNIVK_ASSERT_OK(want);
      expect_same(*got, *want);
      // y = -(3 * (0.5 * (2x + 1) - 1)) + 0.25
      const float x0 = x.data<float>()[0];
      EXPECT_NEAR((*got)[0].data<float>()[0], -(3.f * (0.5f * (2.f * x0 + 1.f) - 1.f)) + 0.25f, 1e-5f);
    }
    // Exactly one submission per fused execute (per_delegate fake delegates run on the host).
    const uint64_t after = registry_->find(vulkan::DeviceKey{}).value()->queue().last_submitted_value();
    EXPECT_EQ(after - before, 3u);

    const auto calls = fused->delegate_calls();
    ASSERT_EQ(calls.size(), 5u);
    for (const auto& call : calls) {
      EXPECT_EQ(call.device, calls[0].device);
      EXPECT_EQ(call.stats.dispatches, 1u);
    }
  }
}

// Every IO placement (UNIVK_FUSED_IO) gives the per_delegate result.
TEST_F(Fused, EveryIoPlacementMatches) {
  auto program = fused_program(Shape{3, 5, 7});
  auto per_delegate = load(program, ExecutionMode::kPerDelegate);
  ASSERT_TRUE(per_delegate);
  for (const char* io : {"staged", "host_outputs", "auto"}) {
    SCOPED_TRACE(io);
    ASSERT_EQ(setenv("UNIVK_FUSED_IO", io, 1), 0);
    auto fused = load(program, ExecutionMode::kFused);
    unsetenv("UNIVK_FUSED_IO");
    ASSERT_TRUE(fused);
    EXPECT_EQ(fused->fused_info().staged_io, std::string(io) == "staged");
    EXPECT_EQ(fused->fused_info().host_outputs, std::string(io) == "host_outputs");
    for (uint32_t seed = 10; seed < 12; ++seed) {
      const HostTensor x = random_input(Shape{3, 5, 7}, seed);
      auto got = fused->execute(std::span<const HostTensor>(&x, 1));
      auto want = per_delegate->execute(std::span<const HostTensor>(&x, 1));
      UNIVK_ASSERT_OK(got);
      UNIVK_ASSERT_OK(want);
      expect_same(*got, *want);
    }
  }
}

TEST_F(Fused, UnknownIoPlacementIsALoadError) {
  auto program = fused_program(Shape{4});
  ASSERT_EQ(setenv("UNIVK_FUSED_IO", "sideways", 1), 0);
  LoadOptions options = options_;
  options.mode = ExecutionMode::kFused;
  auto method = program->load_method("forward", options);
  unsetenv("UNIVK_FUSED_IO");
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.status().to_string().find("UNIVK_FUSED_IO"), std::string::npos) << method.status().to_string();
  EXPECT_NE(method.status().to_string().find("sideways"), std::string::npos);
}

TEST_F(Fused, ExplicitFusedExplainsWhyNot) {
  // A CPU kernel between delegates.
  ProgramBuilder b;
  const uint32_t d = b.add_delegate("FakeA", affine_payload(1.f, 0.f));
  MethodBuilder& m = b.add_method("forward");
  const ValueId x = m.add_value(DType::kFloat32, Shape{4});
  const ValueId y = m.add_value(DType::kFloat32, Shape{4});
  const ValueId z = m.add_value(DType::kFloat32, Shape{4});
  m.add_delegate_call(d, {x}, {y});
  m.add_kernel_call("relu", {}, {y}, {z});
  m.set_inputs({x});
  m.set_outputs({z});
  auto program = Program::load_bytes(*b.finish());
  UNIVK_ASSERT_OK(program);
  LoadOptions options = options_;
  options.mode = ExecutionMode::kFused;
  auto cpu = (*program)->load_method("forward", options);
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(cpu.status().message(), "method 'forward' cannot run fused: instruction 1 runs operator 'relu' on the CPU");
  options.mode = ExecutionMode::kAuto;
  auto automatic = (*program)->load_method("forward", options);
  UNIVK_ASSERT_OK(automatic);
  EXPECT_EQ((*automatic)->mode(), ExecutionMode::kPerDelegate);
  EXPECT_EQ((*automatic)->mode_reason(), "auto: instruction 1 runs operator 'relu' on the CPU");

  // Delegates on two devices.
  auto chain = fused_program(Shape{4});
  options.mode = ExecutionMode::kFused;
  options.backend_options["FakeB"]["vulkan_shared_context_name"] = "other";
  auto split = chain->load_method("forward", options);
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.status().message(), "method 'forward' cannot run fused: its delegates use more than one device");
  options.mode = ExecutionMode::kAuto;
  auto split_auto = chain->load_method("forward", options);
  UNIVK_ASSERT_OK(split_auto);
  EXPECT_EQ((*split_auto)->mode(), ExecutionMode::kPerDelegate);
  EXPECT_EQ((*split_auto)->mode_reason(), "auto: its delegates use more than one device");
}

// The mode and its reason, and one line per delegate call, go to the info log at load.
TEST_F(Fused, LoadLogsEachDelegateAndTheModeReason) {
  auto program = fused_program(Shape{6});
  LoadOptions options = options_;
  options.backend_options["FakeB"]["fake_no_record"] = "1";
  const LogLevel saved = log_level();
  set_log_level(LogLevel::kInfo);
  ::testing::internal::CaptureStderr();
  auto method = program->load_method("forward", options);
  const std::string log = ::testing::internal::GetCapturedStderr();
  set_log_level(saved);
  UNIVK_ASSERT_OK(method);
  for (const DelegateCallInfo& call : (*method)->delegate_calls()) {
    const std::string line = "method 'forward' instruction " + std::to_string(call.instruction) + " (" +
                             call.backend_id + ") on device " + call.device_key.to_string() + ": ready in ";
    EXPECT_NE(log.find(line), std::string::npos) << line << "\n" << log;
  }
  EXPECT_NE(log.find("mode per_delegate (auto: a delegate cannot be recorded into the method's command buffer: "
                     "Unsupported: instruction 1 (FakeB) record"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("[univk I method_loader.cc:"), std::string::npos) << log;

  // At the default level the load writes nothing: no progress line either, since the fake
  // backend creates its pipeline without the device's cache.
  set_log_level(LogLevel::kWarning);
  ::testing::internal::CaptureStderr();
  auto quiet = program->load_method("forward", options);
  const std::string quiet_log = ::testing::internal::GetCapturedStderr();
  set_log_level(saved);
  UNIVK_ASSERT_OK(quiet);
  EXPECT_EQ(quiet_log, "");
}

TEST_F(Fused, AutoFallsBackWhenADelegateCannotRecord) {
  auto program = fused_program(Shape{6});
  LoadOptions options = options_;
  options.backend_options["FakeB"]["fake_no_record"] = "1";
  options.mode = ExecutionMode::kAuto;
  auto automatic = program->load_method("forward", options);
  UNIVK_ASSERT_OK(automatic);
  EXPECT_EQ((*automatic)->mode(), ExecutionMode::kPerDelegate);
  EXPECT_EQ((*automatic)
                ->mode_reason()
                .rfind("auto: a delegate cannot be recorded into the method's command buffer: Unsupported: ", 0),
            0u)
      << (*automatic)->mode_reason();
  const HostTensor x = random_input(Shape{6}, 4);
  auto y = (*automatic)->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_ASSERT_OK(y);
  EXPECT_EQ(y->size(), 4u);

  options.mode = ExecutionMode::kFused;
  auto fused = program->load_method("forward", options);
  ASSERT_FALSE(fused.ok());
  EXPECT_EQ(fused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(fused.status().message().find("instruction 1 (FakeB) record"), std::string::npos)
      << fused.status().message();
}

TEST_F(Fused, MethodsShareTheDeviceAndDestroyInAnyOrder) {
  auto program = fused_program(Shape{2, 3, 4});
  auto first = load(program, ExecutionMode::kFused);
  auto second = load(program, ExecutionMode::kFused);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->delegate_calls()[0].device, second->delegate_calls()[0].device);
  program.reset();
  registry_.reset();
  const HostTensor x = random_input(Shape{2, 3, 4}, 77);
  auto a = first->execute(std::span<const HostTensor>(&x, 1));
  auto b = second->execute(std::span<const HostTensor>(&x, 1));
  ASSERT_TRUE(a.ok() && b.ok());
  expect_same(*a, *b);
  first.reset();
  auto again = second->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_ASSERT_OK(again);
  expect_same(*again, *b);
  second.reset();
}

// Two threads load and run fused methods of one program at the same time: one device is created
// (lookup_or_create races), both methods share its queue, and results stay correct.
TEST_F(Fused, ConcurrentMethodsOnOneDevice) {
  auto program = fused_program(Shape{5, 9});
  auto reference = load(program, ExecutionMode::kPerDelegate);
  ASSERT_TRUE(reference);
  std::vector<std::vector<HostTensor>> expected;
  for (uint32_t seed = 0; seed < 4; ++seed) {
    const HostTensor x = random_input(Shape{5, 9}, seed);
    expected.push_back(*reference->execute(std::span<const HostTensor>(&x, 1)));
  }
  registry_ = std::make_unique<vulkan::DeviceRegistry>();
  options_.registry = registry_.get();
  std::vector<Status> results(2);
  std::vector<VkDevice> devices(2, VK_NULL_HANDLE);
  // Both methods are loaded (and hold their leases) before either runs or goes away.
  std::latch loaded(2);
  auto worker = [&](size_t index) {
    LoadOptions options = options_;
    options.mode = ExecutionMode::kFused;
    auto method = program->load_method("forward", options);
    loaded.arrive_and_wait();
    if (!method.ok()) {
      results[index] = method.status();
      return;
    }
    devices[index] = (*method)->delegate_calls()[0].device;
    for (int round = 0; round < 5; ++round) {
      for (uint32_t seed = 0; seed < 4; ++seed) {
        const HostTensor x = random_input(Shape{5, 9}, seed);
        auto got = (*method)->execute(std::span<const HostTensor>(&x, 1));
        if (!got.ok()) {
          results[index] = got.status();
          return;
        }
        auto got_values = (*got)[0].data<float>();
        auto want_values = expected[seed][0].data<float>();
        for (size_t e = 0; e < got_values.size(); ++e) {
          if (std::abs(got_values[e] - want_values[e]) > 1e-5f * (1.f + std::abs(want_values[e]))) {
            results[index] =
                internal_error("thread " + std::to_string(index) + ": wrong output at " + std::to_string(e));
            return;
          }
        }
      }
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  UNIVK_EXPECT_OK(results[0]);
  UNIVK_EXPECT_OK(results[1]);
  EXPECT_EQ(devices[0], devices[1]);
  EXPECT_EQ(registry_->created_count(), 1u);
}

}  // namespace
}  // namespace univk::runtime
