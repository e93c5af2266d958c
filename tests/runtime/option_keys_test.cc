// Unknown runtime option keys are load errors naming the key and the known ones, checked before
// any backend is asked for requirements or any device is created (LoadOptions::check_keys).
#include <gtest/gtest.h>

#include "fake_backend.h"
#include "fake_backend_fixture.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

using testing::FakeBackend;

std::shared_ptr<Program> one_fake_delegate() {
  ProgramBuilder b;
  const uint32_t delegate = b.add_delegate("FakeA", testing::affine_payload(2.0f, 1.0f), {});
  MethodBuilder& m = b.add_method("forward");
  const ValueId x = m.add_value(DType::kFloat32, Shape{4});
  const ValueId y = m.add_value(DType::kFloat32, Shape{4});
  m.set_inputs({x});
  m.add_delegate_call(delegate, {x}, {y});
  m.set_outputs({y});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  auto program = Program::load_bytes(std::move(bytes).value());
  UNIVK_EXPECT_OK(program);
  return std::move(program).value();
}

class OptionKeys : public testing::FakeBackendsTest {
 protected:
  // Loads with options_ and expects `code` with every one of `parts` in the message, and that
  // nothing was asked of a backend or a device.
  void expect_refused(StatusCode code, const std::vector<std::string>& parts) {
    auto method = one_fake_delegate()->load_method("forward", options_);
    ASSERT_FALSE(method.ok());
    EXPECT_EQ(method.status().code(), code) << method.status().to_string();
    for (const std::string& part : parts) {
      EXPECT_NE(method.status().message().find(part), std::string::npos)
          << "'" << part << "' missing in " << method.status().to_string();
    }
    EXPECT_TRUE(FakeBackend::event_log().empty()) << "a backend was asked before the options were checked";
    EXPECT_EQ(registry_->created_count(), 0u);
  }
};

TEST_F(OptionKeys, UnknownKeyForEveryBackendIsRefused) {
  options_.all_backends["vulkan_shared_contxt_mode"] = "disabled";
  expect_refused(StatusCode::kInvalidArgument,
                 {"unknown runtime option 'vulkan_shared_contxt_mode'", "fake_no_record", "vulkan_shared_context_mode",
                  "vulkan_shared_context_name", "vulkan_shared_group_id"});
}

TEST_F(OptionKeys, UnknownKeyForOneBackendIsRefused) {
  options_.backend_options["FakeB"]["no_record"] = "1";
  expect_refused(StatusCode::kInvalidArgument, {"unknown runtime option 'no_record' for backend 'FakeB'",
                                                "fake_no_record", "vulkan_shared_group_id"});
}

TEST_F(OptionKeys, OptionsForAnUnregisteredBackendAreRefused) {
  options_.backend_options["FakeC"]["vulkan_shared_context_mode"] = "disabled";
  expect_refused(StatusCode::kNotFound, {"backend 'FakeC'", "not registered", "FakeA, FakeB"});
}

TEST_F(OptionKeys, EveryKnownKeyIsAccepted) {
  options_.all_backends = {{"vulkan_shared_context_name", "keys"},
                           {"vulkan_shared_context_mode", "lookup_or_create"},
                           {"vulkan_shared_group_id", "3"}};
  options_.backend_options["FakeA"]["fake_no_record"] = "1";
  auto method = one_fake_delegate()->load_method("forward", options_);
  UNIVK_ASSERT_OK(method);
  EXPECT_EQ((*method)->delegate_calls().at(0).device_key.to_string(), "keys/3");
  EXPECT_EQ((*method)->mode(), ExecutionMode::kPerDelegate);  // fake_no_record reached the delegate
}

// The built-in backends declare the keys they read: VgfBackend's are accepted for every backend,
// a misspelling of one is refused with the real key in the list.
TEST(BuiltinOptionKeys, VgfBackendKeysAreKnown) {
  if (builtin_backends().find("VgfBackend") == nullptr) GTEST_SKIP() << "this build has no VgfBackend";
  LoadOptions options;
  options.all_backends = {
      {"max_binding_bytes", "4096"}, {"vgf_output_staging", "always"}, {"vgf_graph_path", "lowered"}};
  UNIVK_EXPECT_OK(options.check_keys());
  options.all_backends = {{"max_binding_byte", "4096"}};
  const Status s = options.check_keys();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("'max_binding_byte'"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("max_binding_bytes"), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace univk::runtime
