// API misuse: wrong input counts, dtypes and shapes; unknown methods, backends and options;
// corrupt payloads; null handles and timeline values never submitted; and lifetimes: a Method
// keeps its Program (and its device) alive, so using a method after the caller dropped its
// program, or after the registry it came from was destroyed, works by construction. Every
// misuse must give an error naming the problem, never a crash.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "reliability_programs.h"
#include "univk/runtime/program_writer.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"
#include "univk_test.h"

namespace univk::reliability {
namespace {

::testing::AssertionResult fails_with(const Status& status, StatusCode code, const std::string& needle) {
  if (status.ok()) return ::testing::AssertionFailure() << "succeeded; expected an error containing '" << needle << "'";
  if (status.code() != code || status.message().find(needle) == std::string::npos) {
    return ::testing::AssertionFailure() << "got " << status.to_string() << "; expected " << status_code_name(code)
                                         << " containing '" << needle << "'";
  }
  return ::testing::AssertionSuccess();
}

// A program whose forward is one call of `backend` with `payload`: float32[4] -> float32[4].
Result<std::shared_ptr<runtime::Program>> one_delegate_program(const std::string& backend,
                                                               const std::vector<uint8_t>& payload) {
  runtime::ProgramBuilder builder;
  uint32_t d = builder.add_delegate(backend, payload);
  runtime::MethodBuilder& m = builder.add_method("forward");
  runtime::ValueId x = m.add_value(DType::kFloat32, Shape{4});
  runtime::ValueId y = m.add_value(DType::kFloat32, Shape{4});
  m.add_delegate_call(d, {x}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  UNIVK_ASSIGN_OR_RETURN(auto bytes, builder.finish());
  return runtime::Program::load_bytes(std::move(bytes));
}

class ApiMisuse : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.registry = &registry_;
    options_.config.enable_validation = true;
  }
  // The first program this build can run, or skips the test.
  bool program(TestProgram* out) {
    auto programs = available();
    UNIVK_EXPECT_OK(programs);
    if (!programs.ok() || programs->empty()) return false;
    *out = (*programs)[0];
    return true;
  }
  vulkan::DeviceRegistry registry_;
  runtime::LoadOptions options_;
};

TEST_F(ApiMisuse, WrongInputCountDtypeAndShape) {
  TestProgram p;
  if (!program(&p)) GTEST_SKIP() << "no backend in this build";
  auto method = p.program->load_method("forward", options_);
  UNIVK_ASSERT_OK(method);
  EXPECT_TRUE(fails_with((*method)->execute({}).status(), StatusCode::kInvalidArgument, "takes 1 inputs, got 0"));
  std::vector<HostTensor> two;
  two.push_back(random_input(p.input_shape, 1));
  two.push_back(random_input(p.input_shape, 2));
  EXPECT_TRUE(fails_with((*method)->execute(two).status(), StatusCode::kInvalidArgument, "got 2"));
  HostTensor wrong_dtype(DType::kInt32, p.input_shape);
  EXPECT_TRUE(fails_with((*method)->execute({&wrong_dtype, 1}).status(), StatusCode::kInvalidArgument, "input 0"));
  std::vector<int64_t> dims(p.input_shape.dims().begin(), p.input_shape.dims().end());
  dims.back() += 1;
  HostTensor wrong_shape(DType::kFloat32, Shape(dims));
  EXPECT_TRUE(fails_with((*method)->execute({&wrong_shape, 1}).status(), StatusCode::kInvalidArgument, "input 0"));
  HostTensor scalar(DType::kFloat32, Shape{});
  EXPECT_TRUE(fails_with((*method)->execute({&scalar, 1}).status(), StatusCode::kInvalidArgument, "input 0"));
  // After every rejected call the method still runs correctly.
  UNIVK_EXPECT_OK(run_and_check(**method, p, 3));
}

TEST_F(ApiMisuse, MethodOutlivesItsProgramAndRegistry) {
  TestProgram p;
  if (!program(&p)) GTEST_SKIP() << "no backend in this build";
  auto registry = std::make_unique<vulkan::DeviceRegistry>();
  options_.registry = registry.get();
  auto method = p.program->load_method("forward", options_);
  UNIVK_ASSERT_OK(method);
  std::weak_ptr<runtime::Program> weak = p.program;
  p.program.reset();  // the caller's last reference
  registry.reset();   // leases outlive the registry
  EXPECT_FALSE(weak.expired()) << "the method must keep its program alive";
  UNIVK_EXPECT_OK(run_and_check(**method, p, 4));
  method->reset();
  EXPECT_TRUE(weak.expired()) << "the program must go with its last method";
}

TEST_F(ApiMisuse, UnknownMethodBackendAndOptions) {
  TestProgram p;
  if (!program(&p)) GTEST_SKIP() << "no backend in this build";
  EXPECT_TRUE(fails_with(p.program->load_method("backward", options_).status(), StatusCode::kNotFound, "backward"));

  runtime::LoadOptions bad_mode = options_;
  bad_mode.all_backends["vulkan_shared_context_mode"] = "sometimes";
  EXPECT_TRUE(
      fails_with(p.program->load_method("forward", bad_mode).status(), StatusCode::kInvalidArgument, "sometimes"));
  runtime::LoadOptions bad_group = options_;
  bad_group.all_backends["vulkan_shared_group_id"] = "two";
  EXPECT_TRUE(fails_with(p.program->load_method("forward", bad_group).status(), StatusCode::kInvalidArgument, "two"));
  runtime::LoadOptions lookup = options_;
  lookup.all_backends["vulkan_shared_context_name"] = "nobody";
  lookup.all_backends["vulkan_shared_context_mode"] = "lookup_only";
  EXPECT_EQ(p.program->load_method("forward", lookup).status().code(), StatusCode::kNotFound);

  runtime::LoadOptions create = options_;
  create.all_backends["vulkan_shared_context_mode"] = "create_only";
  auto first = p.program->load_method("forward", create);
  UNIVK_ASSERT_OK(first);
  EXPECT_EQ(p.program->load_method("forward", create).status().code(), StatusCode::kAlreadyExists);

  auto unknown = one_delegate_program("NoSuchBackend", std::vector<uint8_t>(16, 0));
  UNIVK_ASSERT_OK(unknown);
  EXPECT_TRUE(
      fails_with((*unknown)->load_method("forward", options_).status(), StatusCode::kNotFound, "NoSuchBackend"));
}

TEST_F(ApiMisuse, CorruptPayloadIsALoadError) {
  int tested = 0;
  for (const std::string backend : {"VulkanBackend", "VgfBackend"}) {
    if (options_.backends->find(backend) == nullptr) continue;
    ++tested;
    std::vector<uint8_t> garbage(64);
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 37 + 11);
    auto program = one_delegate_program(backend, garbage);
    UNIVK_ASSERT_OK(program);
    auto method = (*program)->load_method("forward", options_);
    EXPECT_FALSE(method.ok()) << backend << " accepted a garbage payload";
    if (!method.ok()) {
      EXPECT_NE(method.status().message().find(backend), std::string::npos) << method.status().to_string();
    }
  }
  if (tested == 0) GTEST_SKIP() << "no backend in this build";
}

TEST_F(ApiMisuse, BadProgramFiles) {
  EXPECT_EQ(runtime::Program::load("/nonexistent/model.uvk").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(runtime::Program::load_bytes({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(runtime::Program::load_bytes(std::vector<uint8_t>(7, 0xff)).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ApiMisuse, NullHandlesAndUnsubmittedTimelineValues) {
  vulkan::ImportedDevice null_device;
  EXPECT_EQ(vulkan::Device::import(null_device).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(registry_.import_device({"imported", 0}, null_device).ok());
  EXPECT_EQ(vulkan::Instance::import(VK_NULL_HANDLE, VK_API_VERSION_1_3).status().code(), StatusCode::kInvalidArgument);

  auto device = registry_.acquire({}, {}, options_.config);
  UNIVK_ASSERT_OK(device);
  vulkan::Queue& queue = (*device)->queue();
  const uint64_t last = queue.last_submitted_value();
  EXPECT_EQ(queue.wait(last + 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.submit({}, last + 5).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.last_submitted_value(), last) << "a rejected submit must not consume a timeline value";
  EXPECT_TRUE(registry_.unpin({"never", 0}).code() == StatusCode::kNotFound);
}

}  // namespace
}  // namespace univk::reliability
