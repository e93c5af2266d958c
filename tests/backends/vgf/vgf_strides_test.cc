// Every stride pattern of a VGF model input or output resource, in per_delegate and fused mode
// through a Program/Method, against the TOSA reference: packed, permuted and padded layouts run
// correctly in both modes (fused mode copies between the method's packed tensor and the
// resource's own layout); broadcast (zero) and overlapping strides are refused at load in both
// modes with an error naming the resource.
#include "backends/vgf/resource_layout.h"
#include "vgf_test_util.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

const TosaTensorType kType{DType::kFloat32, {2, 3, 4}};

// y = x * x + 0.25 over [2,3,4]: resource 0 is the input, resource 1 the output.
::univk::vgf::VgfFile square_plus_quarter() {
  TosaGraph g;
  ValueId x = g.add_input(kType, 0, 0);
  Attributes mul;
  mul.set("shift", int64_t{0});
  ValueId sq = g.add_operation(TosaOp::kMul, {x, x}, mul, kType);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1}}, floats_bytes({0.25f}));
  g.add_output(g.add_operation(TosaOp::kAdd, {sq, c}, {}, kType), 0, 1);
  return single_graph_model(g);
}

HostTensor reference_of(const HostTensor& x) {
  Attributes mul;
  mul.set("shift", int64_t{0});
  const HostTensor quarter = HostTensor::from_floats(Shape({1, 1, 1}), std::vector<float>{0.25f});
  return ref("ADD", {}, {ref("MUL", mul, {x, x}), quarter});
}

struct Pattern {
  const char* name;
  std::vector<int64_t> byte_strides;  // over [2,3,4] fp32; empty = packed without strides
  bool valid;
};

const Pattern kPatterns[] = {
    {"packed (no strides)", {}, true},      {"packed (explicit)", {48, 16, 4}, true},
    {"permuted", {12, 4, 24}, true},  // memory order dim 2, dim 0, dim 1; same 24 elements
    {"padded", {96, 32, 4}, true},    // rows of 8, planes of 3 rows
    {"broadcast dim 0", {0, 16, 4}, false}, {"all zeros", {0, 0, 0}, false},
    {"overlapping", {48, 8, 4}, false},  // rows 2 elements apart, 4 long
};

constexpr runtime::ExecutionMode kModes[] = {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused};

// One method running `model` as its only delegate call.
Result<std::shared_ptr<runtime::Program>> program_of(const ::univk::vgf::VgfFile& model) {
  runtime::ProgramBuilder b;
  const std::vector<uint8_t> payload = encode(model);
  const uint32_t d = b.add_delegate("VgfBackend", payload);
  auto& m = b.add_method("forward");
  auto x = m.add_value(kType.dtype, Shape(kType.shape));
  auto y = m.add_value(kType.dtype, Shape(kType.shape));
  m.add_delegate_call(d, {x}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  UNIVK_ASSIGN_OR_RETURN(auto bytes, b.finish());
  return runtime::Program::load_bytes(bytes);
}

Result<std::unique_ptr<runtime::Method>> load_method(runtime::Program& program, runtime::ExecutionMode mode,
                                                     const runtime::BackendRegistry& backends) {
  runtime::LoadOptions options;
  options.backends = &backends;
  options.mode = mode;
  return program.load_method("forward", options);
}

void expect_correct(runtime::Method& method, const std::string& what) {
  for (uint32_t seed : {11u, 12u}) {  // the recorded work is resubmitted with new inputs
    HostTensor in = random_tensor(kType.dtype, Shape(kType.shape), seed);
    auto out = method.execute(std::span<const HostTensor>(&in, 1));
    UNIVK_ASSERT_OK(out) << what;
    EXPECT_TRUE(tensors_close((*out)[0], reference_of(in), {1e-6f, 1e-6f})) << what;
  }
}

TEST(VgfStrides, EveryPatternOnInputsAndOutputsInBothModes) {
  runtime::BackendRegistry backends;
  UNIVK_ASSERT_OK(backends.add(make_vgf_backend()));
  for (uint32_t resource : {0u, 1u}) {
    for (const Pattern& p : kPatterns) {
      ::univk::vgf::VgfFile model = square_plus_quarter();
      model.resources[resource].strides = p.byte_strides;
      auto program = program_of(model);
      UNIVK_ASSERT_OK(program);
      for (auto mode : kModes) {
        const std::string what = std::string(resource == 0 ? "input " : "output ") + p.name + ", " +
                                 std::string(runtime::execution_mode_name(mode));
        auto method = load_method(**program, mode, backends);
        if (p.valid) {
          UNIVK_ASSERT_OK(method) << what;
          EXPECT_EQ((*method)->mode(), mode) << what;
          expect_correct(**method, what);
          continue;
        }
        ASSERT_FALSE(method.ok()) << what;
        EXPECT_EQ(method.status().code(), StatusCode::kInvalidArgument) << what << ": " << method.status().to_string();
        const std::string name = resource == 0 ? "resource 0 (INPUT)" : "resource 1 (OUTPUT)";
        EXPECT_NE(method.status().message().find(name), std::string::npos)
            << what << ": " << method.status().to_string();
        EXPECT_NE(method.status().message().find("the same memory"), std::string::npos)
            << what << ": " << method.status().to_string();
      }
    }
  }
}

TEST(VgfStrides, PermutedInputAndPaddedOutputTogether) {
  runtime::BackendRegistry backends;
  UNIVK_ASSERT_OK(backends.add(make_vgf_backend()));
  ::univk::vgf::VgfFile model = square_plus_quarter();
  model.resources[0].strides = {12, 4, 24};
  model.resources[1].strides = {128, 32, 4};
  auto program = program_of(model);
  UNIVK_ASSERT_OK(program);
  for (auto mode : kModes) {
    auto method = load_method(**program, mode, backends);
    UNIVK_ASSERT_OK(method);
    expect_correct(**method, std::string(runtime::execution_mode_name(mode)));
  }
}

// The input and the output share one alias group (in place): fused mode cannot bind the group to
// both of the method's tensors, so it copies through the group's own buffer.
TEST(VgfStrides, InPlaceAliasGroupRunsInBothModes) {
  runtime::BackendRegistry backends;
  UNIVK_ASSERT_OK(backends.add(make_vgf_backend()));
  ::univk::vgf::VgfFile model = square_plus_quarter();
  model.resources[0].alias_group_id = 3;
  model.resources[1].alias_group_id = 3;
  auto program = program_of(model);
  UNIVK_ASSERT_OK(program);
  for (auto mode : kModes) {
    auto method = load_method(**program, mode, backends);
    UNIVK_ASSERT_OK(method);
    expect_correct(**method, std::string("in place, ") + std::string(runtime::execution_mode_name(mode)));
  }
}

// A CONSTANT resource is read packed: strides that say otherwise are refused, not ignored.
TEST(VgfStrides, ConstantResourceWithUnpackedStridesIsRefused) {
  ::univk::vgf::VgfFile model = square_plus_quarter();
  ::univk::vgf::Resource c;
  c.category = ::univk::vgf::ResourceCategory::kConstant;
  c.vk_format = ::univk::vgf::vk::kFormatR32Sfloat;
  c.shape = {2, 2};
  c.strides = {4, 8};
  model.resources.push_back(c);
  auto loaded = load(model);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kUnsupported) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find("resource 2 (CONSTANT)"), std::string::npos) << loaded.status().to_string();
}

// The rules themselves, on element strides (pure data).
TEST(VgfStrides, PackedAndDisjointRules) {
  using backends::vgf::strides_are_disjoint;
  using backends::vgf::strides_are_packed;
  const std::vector<int64_t> shape = {2, 3, 4};
  EXPECT_TRUE(strides_are_packed(shape, {12, 4, 1}));
  EXPECT_TRUE(strides_are_packed({2, 1, 4}, {4, 99, 1}));  // a dim of extent 1 may have any stride
  EXPECT_FALSE(strides_are_packed(shape, {3, 1, 6}));      // permuted
  EXPECT_FALSE(strides_are_packed(shape, {24, 8, 1}));     // padded
  EXPECT_TRUE(strides_are_disjoint(shape, {3, 1, 6}));
  EXPECT_TRUE(strides_are_disjoint(shape, {24, 8, 1}));
  EXPECT_TRUE(strides_are_disjoint({0, 3}, {0, 0}));  // no elements
  EXPECT_FALSE(strides_are_disjoint(shape, {0, 4, 1}));
  EXPECT_FALSE(strides_are_disjoint(shape, {12, 2, 1}));
  EXPECT_FALSE(strides_are_disjoint({3, 2}, {2, 3}));          // interleaved: refused (conservative rule)
  EXPECT_FALSE(strides_are_disjoint({2, 3}, {INT64_MAX, 1}));  // the reach overflows int64
}

}  // namespace
}  // namespace univk::backends::vgf_test
