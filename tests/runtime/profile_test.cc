// Profiling (LoadOptions::profile, Method::profile, Profile::chrome_trace) on the example chain
// compiled with both backends, fused and per_delegate, and with a CPU operator: one GPU dispatch
// event per dispatch the delegates recorded, each inside its delegate call, positive times,
// host phases in order; outputs unchanged (checked against univk::reference); a method loaded
// without profiling has no profile.
#include <gtest/gtest.h>

#include <map>

#include "univk/compiler/compiler.h"
#include "univk/reference/kernels.h"
#include "univk/runtime/program.h"
#include "example_chain.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

const Shape kIn{1, 3, 8, 8};

compiler::Graph example_graph() { return testing::example_chain_graph(kIn); }
HostTensor reference_output(const HostTensor& x) { return testing::example_chain_reference(x); }

// VGF (pool) -> Vulkan (sigmoid) -> VGF (mul, add); with `cpu_sigmoid` the sigmoid runs on the CPU.
std::shared_ptr<Program> compile(bool cpu_sigmoid) {
  compiler::CompileOptions options;
  options.partition.order = {"VgfBackend", "VulkanBackend"};
  options.partition.pins = {{"sigmoid", cpu_sigmoid ? "cpu" : "VulkanBackend"}};
  auto compiled = compiler::compile_program(example_graph(), options);
  EXPECT_TRUE(compiled.ok()) << compiled.status().to_string();
  if (!compiled.ok()) return nullptr;
  auto program = Program::load_bytes(std::move(compiled->bytes));
  EXPECT_TRUE(program.ok()) << program.status().to_string();
  return program.ok() ? *program : nullptr;
}

HostTensor random_input() { return testing::random_tensor(DType::kFloat32, kIn, 7, -2.0, 2.0); }

bool contains(const ProfileEvent& outer, const ProfileEvent& inner) {
  return inner.start_ns >= outer.start_ns && inner.start_ns + inner.duration_ns <= outer.start_ns + outer.duration_ns;
}

// The checks every profile passes; returns the GPU dispatch events per instruction.
std::map<int64_t, int> check_profile(const Profile& profile, const Method& method) {
  std::map<int64_t, int> dispatches;
  EXPECT_FALSE(profile.events.empty());
  if (profile.events.empty()) return dispatches;
  const ProfileEvent& call = profile.events.front();
  EXPECT_EQ(call.kind, ProfileKind::kExecute);
  for (size_t i = 0; i < profile.events.size(); ++i) {
    const ProfileEvent& e = profile.events[i];
    SCOPED_TRACE("event " + std::to_string(i) + " " + e.name);
    EXPECT_GE(e.start_ns, 0);
    if (e.kind == ProfileKind::kDispatch || e.kind == ProfileKind::kDelegate) {
      EXPECT_GT(e.duration_ns, 0);
    }
    if (e.parent >= 0) {
      EXPECT_LT(static_cast<size_t>(e.parent), i);
      if (static_cast<size_t>(e.parent) >= i) continue;
      const ProfileEvent& parent = profile.events[static_cast<size_t>(e.parent)];
      EXPECT_EQ(parent.track, e.track);
      EXPECT_TRUE(contains(parent, e)) << parent.name << " [" << parent.start_ns << ", +" << parent.duration_ns
                                       << "] does not hold [" << e.start_ns << ", +" << e.duration_ns << "]";
    }
    if (e.track == ProfileTrack::kHost && i > 0) {
      EXPECT_TRUE(contains(call, e));
    }
    if (e.kind == ProfileKind::kDispatch) {
      EXPECT_GE(e.parent, 0);
      if (e.parent < 0) continue;
      const ProfileEvent& parent = profile.events[static_cast<size_t>(e.parent)];
      EXPECT_EQ(parent.kind, ProfileKind::kDelegate);
      EXPECT_EQ(parent.instruction, e.instruction);
      EXPECT_EQ(parent.backend, e.backend);
      EXPECT_FALSE(e.name.empty());
      ++dispatches[e.instruction];
    }
  }
  // One dispatch event per dispatch each delegate recorded.
  for (const DelegateCallInfo& info : method.delegate_calls()) {
    EXPECT_EQ(dispatches[static_cast<int64_t>(info.instruction)], static_cast<int>(info.stats.dispatches))
        << "instruction " << info.instruction << " (" << info.backend_id << ")";
  }
  return dispatches;
}

std::vector<std::string> names(const Profile& profile, ProfileKind kind) {
  std::vector<std::string> out;
  for (const ProfileEvent* e : profile.of_kind(kind)) out.push_back(e->name);
  return out;
}

class ProfileTest : public ::testing::TestWithParam<ExecutionMode> {};

TEST_P(ProfileTest, EventsMatchTheRecordedWork) {
  auto program = compile(/*cpu_sigmoid=*/false);
  ASSERT_NE(program, nullptr);
  LoadOptions options;
  options.mode = GetParam();
  options.profile = true;
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward", options));
  ASSERT_EQ(method->mode(), GetParam());
  EXPECT_EQ(method->profile().status().code(), StatusCode::kNotFound);

  const HostTensor x = random_input();
  for (int repeat = 0; repeat < 2; ++repeat) {
    UNIVK_ASSIGN_OR_FAIL(auto outputs, method->execute(std::span<const HostTensor>(&x, 1)));
    EXPECT_TRUE(testing::tensors_close(outputs[0], reference_output(x), {1e-5, 1e-5}));
    UNIVK_ASSIGN_OR_FAIL(Profile profile, method->profile());
    EXPECT_EQ(profile.method, "forward");
    EXPECT_EQ(profile.mode, execution_mode_name(GetParam()));
    EXPECT_NE(profile.alignment, GpuAlignment::kNone);
    const auto dispatches = check_profile(profile, *method);
    EXPECT_EQ(dispatches.size(), 3u) << profile.table();
    EXPECT_EQ(profile.of_kind(ProfileKind::kDelegate).size(), GetParam() == ExecutionMode::kFused ? 3u : 6u);
    if (GetParam() == ExecutionMode::kFused) {
      EXPECT_EQ(names(profile, ProfileKind::kPhase),
                (std::vector<std::string>{"input copy", "submit", "wait", "output copy"}));
      // The GPU work lies between the submission's start and the wait's end.
      const auto phases = profile.of_kind(ProfileKind::kPhase);
      for (const ProfileEvent* e : profile.of_kind(ProfileKind::kDelegate)) {
        EXPECT_GE(e->start_ns, phases[1]->start_ns) << profile.table();
        if (profile.alignment == GpuAlignment::kCalibrated) {
          EXPECT_LE(e->start_ns + e->duration_ns, phases[2]->start_ns + phases[2]->duration_ns) << profile.table();
        }
      }
    }
    // The compiler's node names (debug metadata) name what each call runs.
    for (const ProfileEvent* e : profile.of_kind(ProfileKind::kDelegate)) {
      EXPECT_EQ(e->source, e->instruction == 1 ? "sigmoid" : e->instruction == 0 ? "avg_pool2d" : "mul, add");
    }
    const std::string table = profile.table();
    EXPECT_NE(table.find("VulkanBackend: "), std::string::npos) << table;
    EXPECT_NE(table.find("VgfBackend"), std::string::npos) << table;
  }

  // run() profiles too: no copy phases.
  UNIVK_ASSERT_OK(method->run());
  UNIVK_ASSIGN_OR_FAIL(Profile profile, method->profile());
  EXPECT_EQ(profile.events.front().name, "run");
  check_profile(profile, *method);
  if (GetParam() == ExecutionMode::kFused) {
    EXPECT_EQ(names(profile, ProfileKind::kPhase), (std::vector<std::string>{"submit", "wait"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ProfileTest, ::testing::Values(ExecutionMode::kFused, ExecutionMode::kPerDelegate),
                         [](const auto& info) { return std::string(execution_mode_name(info.param)); });

// A device created without VK_EXT_calibrated_timestamps (by a method loaded without profiling,
// still holding the device key) profiles with the submit alignment: the first GPU timestamp sits
// at the submission's start.
TEST(Profile, SubmitAlignmentOnADeviceThatCannotCalibrate) {
  auto program = compile(/*cpu_sigmoid=*/false);
  ASSERT_NE(program, nullptr);
  LoadOptions plain;
  plain.all_backends["vulkan_shared_context_name"] = "profile_submit_alignment";
  UNIVK_ASSIGN_OR_FAIL(auto holder, program->load_method("forward", plain));
  const HostTensor x = random_input();
  for (ExecutionMode mode : {ExecutionMode::kFused, ExecutionMode::kPerDelegate}) {
    SCOPED_TRACE(std::string(execution_mode_name(mode)));
    LoadOptions options = plain;
    options.mode = mode;
    options.profile = true;
    UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward", options));
    UNIVK_ASSIGN_OR_FAIL(auto outputs, method->execute(std::span<const HostTensor>(&x, 1)));
    EXPECT_TRUE(testing::tensors_close(outputs[0], reference_output(x), {1e-5, 1e-5}));
    UNIVK_ASSIGN_OR_FAIL(Profile profile, method->profile());
    EXPECT_EQ(profile.alignment, GpuAlignment::kSubmit);
    check_profile(profile, *method);
    const ProfileEvent* first_gpu = profile.of_kind(ProfileKind::kDelegate).back();
    for (const ProfileEvent* e : profile.of_kind(ProfileKind::kDelegate)) {
      if (e->track == ProfileTrack::kGpu) {
        first_gpu = e;
        break;
      }
    }
    const ProfileEvent* anchor = mode == ExecutionMode::kFused ? profile.of_kind(ProfileKind::kPhase)[1]
                                                               : profile.of_kind(ProfileKind::kDelegate)[0];
    EXPECT_EQ(anchor->track, ProfileTrack::kHost);
    EXPECT_EQ(first_gpu->start_ns, anchor->start_ns) << profile.table();
  }
}

// Delegates on private devices (vulkan_shared_context_mode=disabled) run per_delegate, each
// timed by its own device's timer.
TEST(Profile, PrivateDevices) {
  auto program = compile(/*cpu_sigmoid=*/false);
  ASSERT_NE(program, nullptr);
  LoadOptions options;
  options.all_backends["vulkan_shared_context_mode"] = "disabled";
  options.profile = true;
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward", options));
  EXPECT_EQ(method->mode(), ExecutionMode::kPerDelegate);
  const HostTensor x = random_input();
  UNIVK_ASSIGN_OR_FAIL(auto outputs, method->execute(std::span<const HostTensor>(&x, 1)));
  EXPECT_TRUE(testing::tensors_close(outputs[0], reference_output(x), {1e-5, 1e-5}));
  UNIVK_ASSIGN_OR_FAIL(Profile profile, method->profile());
  EXPECT_EQ(check_profile(profile, *method).size(), 3u) << profile.table();
}

TEST(Profile, CpuOperatorIsAHostEvent) {
  auto program = compile(/*cpu_sigmoid=*/true);
  ASSERT_NE(program, nullptr);
  LoadOptions options;
  options.profile = true;
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward", options));
  EXPECT_EQ(method->mode(), ExecutionMode::kPerDelegate);
  const HostTensor x = random_input();
  UNIVK_ASSIGN_OR_FAIL(auto outputs, method->execute(std::span<const HostTensor>(&x, 1)));
  EXPECT_TRUE(testing::tensors_close(outputs[0], reference_output(x), {1e-5, 1e-5}));
  UNIVK_ASSIGN_OR_FAIL(Profile profile, method->profile());
  check_profile(profile, *method);
  EXPECT_EQ(names(profile, ProfileKind::kCpuOperator), std::vector<std::string>{"sigmoid"}) << profile.table();
}

TEST(Profile, OffByDefault) {
  auto program = compile(/*cpu_sigmoid=*/false);
  ASSERT_NE(program, nullptr);
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward"));
  const HostTensor x = random_input();
  UNIVK_ASSERT_OK(method->execute(std::span<const HostTensor>(&x, 1)).status());
  const auto profile = method->profile();
  EXPECT_EQ(profile.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(profile.status().message().find("LoadOptions::profile"), std::string::npos);
}

}  // namespace
}  // namespace univk::runtime
