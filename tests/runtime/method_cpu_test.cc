// Methods without delegates: the CPU fallback (KernelCall on univk::reference), input checks,
// load errors.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "univk/reference/kernels.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

HostTensor random_tensor(Shape shape, uint32_t seed) {
  return ::univk::testing::random_tensor(DType::kFloat32, shape, seed);
}

std::vector<uint8_t> bytes_of(const HostTensor& t) { return {t.bytes().begin(), t.bytes().end()}; }

// out = relu(x + c) * x, and a second output sigmoid(x) (x read by three kernels).
std::shared_ptr<Program> cpu_program(const HostTensor& constant) {
  ProgramBuilder b;
  MethodBuilder& m = b.add_method("forward");
  ValueId x = m.add_value(DType::kFloat32, Shape{2, 3, 5});
  ValueId c = m.add_constant(DType::kFloat32, Shape{3, 1}, bytes_of(constant));
  ValueId s = m.add_value(DType::kFloat32, Shape{2, 3, 5});
  ValueId r = m.add_value(DType::kFloat32, Shape{2, 3, 5});
  ValueId out = m.add_value(DType::kFloat32, Shape{2, 3, 5});
  ValueId sig = m.add_value(DType::kFloat32, Shape{2, 3, 5});
  m.add_kernel_call("add", {}, {x, c}, {s});
  m.add_kernel_call("relu", {}, {s}, {r});
  m.add_kernel_call("mul", {}, {r, x}, {out});
  m.add_kernel_call("sigmoid", {}, {x}, {sig});
  m.set_inputs({x});
  m.set_outputs({out, sig});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  auto program = Program::load_bytes(std::move(bytes).value());
  UNIVK_EXPECT_OK(program);
  return std::move(program).value();
}

HostTensor run(std::string_view op, std::vector<HostTensor> inputs) {
  auto out = reference::run_op(op, {}, inputs);
  UNIVK_EXPECT_OK(out);
  return std::move(out)->at(0);
}

TEST(MethodCpu, KernelCallsMatchTheReference) {
  const HostTensor constant = random_tensor(Shape{3, 1}, 7);
  auto program = cpu_program(constant);
  auto method = program->load_method("forward");
  UNIVK_ASSERT_OK(method);
  EXPECT_EQ((*method)->mode(), ExecutionMode::kPerDelegate);
  EXPECT_EQ((*method)->mode_reason(), "auto: instruction 0 runs operator 'add' on the CPU");
  EXPECT_TRUE((*method)->delegate_calls().empty());
  for (const InstructionInfo& info : (*method)->instructions()) EXPECT_TRUE(info.on_cpu) << info.name;
  EXPECT_EQ((*method)->instructions()[1].name, "relu");

  for (uint32_t seed = 0; seed < 3; ++seed) {
    const HostTensor x = random_tensor(Shape{2, 3, 5}, seed);
    auto outputs = (*method)->execute(std::span<const HostTensor>(&x, 1));
    UNIVK_ASSERT_OK(outputs);
    ASSERT_EQ(outputs->size(), 2u);
    const HostTensor expected = run("mul", {run("relu", {run("add", {x, constant})}), x});
    const HostTensor expected_sig = run("sigmoid", {x});
    ASSERT_EQ((*outputs)[0].shape(), expected.shape());
    EXPECT_EQ(std::memcmp((*outputs)[0].bytes().data(), expected.bytes().data(), expected.byte_size()), 0);
    EXPECT_EQ(std::memcmp((*outputs)[1].bytes().data(), expected_sig.bytes().data(), expected_sig.byte_size()), 0);
  }
}

TEST(MethodCpu, InputMismatchesAreNamed) {
  auto program = cpu_program(random_tensor(Shape{3, 1}, 1));
  auto method = program->load_method("forward");
  UNIVK_ASSERT_OK(method);

  auto none = (*method)->execute({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "method 'forward' takes 1 inputs, got 0");

  const HostTensor wrong_shape(DType::kFloat32, Shape{2, 3, 6});
  auto shape = (*method)->execute(std::span<const HostTensor>(&wrong_shape, 1));
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(shape.status().message(), "input 0: expected float32[2,3,5], got float32[2,3,6]");

  const HostTensor wrong_dtype(DType::kInt32, Shape{2, 3, 5});
  auto dtype = (*method)->execute(std::span<const HostTensor>(&wrong_dtype, 1));
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.status().message(), "input 0: expected float32[2,3,5], got int32[2,3,5]");

  std::vector<HostTensor> two(2, HostTensor(DType::kFloat32, Shape{2, 3, 5}));
  auto count = (*method)->execute(two);
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "method 'forward' takes 1 inputs, got 2");
}

TEST(MethodCpu, RequireNoCpuFallbackNamesTheOperator) {
  auto program = cpu_program(random_tensor(Shape{3, 1}, 1));
  LoadOptions options;
  options.require_no_cpu_fallback = true;
  auto method = program->load_method("forward", options);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), StatusCode::kIncompatible);
  EXPECT_NE(method.status().message().find("instruction 0: operator 'add' would run on the CPU"), std::string::npos)
      << method.status().message();
}

TEST(MethodCpu, LoadErrors) {
  auto program = cpu_program(random_tensor(Shape{3, 1}, 1));
  auto missing = program->load_method("backward");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "no method 'backward' in the program (methods: forward)");

  ProgramBuilder b;
  MethodBuilder& m = b.add_method("forward");
  ValueId x = m.add_value(DType::kFloat32, Shape{4});
  ValueId y = m.add_value(DType::kFloat32, Shape{4});
  m.add_kernel_call("no_such_op", {}, {x}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  auto unknown = Program::load_bytes(*b.finish());
  UNIVK_ASSERT_OK(unknown);
  auto loaded = (*unknown)->load_method("forward");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(loaded.status().message().find("operator 'no_such_op' has no CPU kernel"), std::string::npos);

  ProgramBuilder d;
  uint32_t delegate = d.add_delegate("NoSuchBackend", std::vector<uint8_t>(8));
  MethodBuilder& dm = d.add_method("forward");
  ValueId dx = dm.add_value(DType::kFloat32, Shape{4});
  ValueId dy = dm.add_value(DType::kFloat32, Shape{4});
  dm.add_delegate_call(delegate, {dx}, {dy});
  dm.set_inputs({dx});
  dm.set_outputs({dy});
  auto with_delegate = Program::load_bytes(*d.finish());
  UNIVK_ASSERT_OK(with_delegate);
  BackendRegistry empty;
  LoadOptions options;
  options.backends = &empty;
  auto no_backend = (*with_delegate)->load_method("forward", options);
  ASSERT_FALSE(no_backend.ok());
  EXPECT_EQ(no_backend.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(no_backend.status().message(),
            "instruction 0 (NoSuchBackend): backend 'NoSuchBackend' is not registered (registered: none)");
}

TEST(MethodCpu, ProgramAndMethodDestroyInAnyOrder) {
  const HostTensor constant = random_tensor(Shape{3, 1}, 3);
  auto program = cpu_program(constant);
  auto method = program->load_method("forward");
  UNIVK_ASSERT_OK(method);
  program.reset();  // the method keeps the program's bytes alive
  const HostTensor x = random_tensor(Shape{2, 3, 5}, 9);
  auto outputs = (*method)->execute(std::span<const HostTensor>(&x, 1));
  UNIVK_ASSERT_OK(outputs);
  const HostTensor expected = run("mul", {run("relu", {run("add", {x, constant})}), x});
  EXPECT_EQ(std::memcmp((*outputs)[0].bytes().data(), expected.bytes().data(), expected.byte_size()), 0);
}

}  // namespace
}  // namespace univk::runtime
