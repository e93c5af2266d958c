// Pure-data parts of the VgfBackend, no GPU: requirements from VGF files and SPIR-V modules,
// elementwise program register allocation, lowering plans (fusion, folding, scratch reuse,
// large tensors) and dispatch grids.
#include "backends/vgf/elementwise_program.h"
#include "backends/vgf/lower_graph.h"
#include "backends/vgf/requirements.h"
#include "vgf_backend_plan_test_shaders.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

using backends::vgf::EwOp;
using backends::vgf::ProgramBuilder;
using vulkan::Feature;

TosaGraph unary_graph(TosaOp op, TosaTensorType in, TosaTensorType out) {
  TosaGraph g;
  ValueId x = g.add_input(in, 0, 0);
  g.add_output(g.add_operation(op, {x}, {}, out), 0, 1);
  return g;
}

TEST(VgfRequirements, FloatGraphNeedsPlainCompute) {
  auto r = backends::vgf::vgf_requirements(
      single_graph_model(unary_graph(TosaOp::kSigmoid, {DType::kFloat32, {4}}, {DType::kFloat32, {4}})));
  UNIVK_ASSERT_OK(r);
  EXPECT_TRUE(r->required_features.empty()) << r->describe();
  EXPECT_TRUE(r->required_extensions.empty());
  EXPECT_EQ(r->min_api_version, VK_API_VERSION_1_1);
}

TEST(VgfRequirements, Int8GraphNeedsInt8Storage) {
  auto r = backends::vgf::vgf_requirements(
      single_graph_model(unary_graph(TosaOp::kCast, {DType::kInt8, {4}}, {DType::kFloat32, {4}})));
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(r->required_features, (std::set<Feature>{Feature::kShaderInt8, Feature::kStorageBuffer8BitAccess}));
}

std::vector<uint32_t> module_with(std::vector<uint32_t> caps, std::string ext) {
  std::vector<uint32_t> w = {0x07230203, 0x00010300, 0, 10, 0};
  for (uint32_t c : caps) {
    w.push_back((2u << 16) | 17u);
    w.push_back(c);
  }
  if (!ext.empty()) {
    std::vector<uint32_t> chars((ext.size() + 4) / 4, 0);
    std::memcpy(chars.data(), ext.data(), ext.size());
    w.push_back(static_cast<uint32_t>((1 + chars.size()) << 16) | 10u);
    w.insert(w.end(), chars.begin(), chars.end());
  }
  return w;
}

TEST(VgfRequirements, ComputeModuleCapabilitiesMapToFeatures) {
  auto plain = backends::vgf::spirv_module_requirements(shaders::double_plus_one_spv());
  UNIVK_ASSERT_OK(plain);
  EXPECT_TRUE(plain->required_features.empty());
  auto int8 = backends::vgf::spirv_module_requirements(module_with({1, 39, 4448}, "SPV_KHR_8bit_storage"));
  UNIVK_ASSERT_OK(int8);
  EXPECT_EQ(int8->required_features, (std::set<Feature>{Feature::kShaderInt8, Feature::kStorageBuffer8BitAccess}));
  EXPECT_EQ(int8->min_api_version, VK_API_VERSION_1_2);
  auto tensors = backends::vgf::spirv_module_requirements(module_with({1, 4174}, "SPV_ARM_tensors"));
  UNIVK_ASSERT_OK(tensors);
  EXPECT_TRUE(tensors->required_extensions.count("VK_ARM_tensors"));
  auto unknown = backends::vgf::spirv_module_requirements(module_with({1, 5009}, ""));
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnsupported);
  EXPECT_FALSE(backends::vgf::spirv_module_requirements(std::vector<uint32_t>{0}).ok());
}

TEST(VgfProgramBuilder, SquarePlusQuarter) {
  ProgramBuilder b;
  b.bind_input(1, 0);
  b.bind_immediate(2, 0x3e800000u);  // 0.25f
  b.add(3, EwOp::kMul, {1, 1});
  b.add(4, EwOp::kAdd, {3, 2});
  auto p = b.build(4);
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(p->steps.size(), 2u);
  EXPECT_EQ(p->steps[0].a, backends::vgf::kSrcInput0);
  EXPECT_EQ(p->steps[0].b, backends::vgf::kSrcInput0);
  EXPECT_EQ(p->steps[1].a, backends::vgf::kSrcRegister0 + p->steps[0].dst);
  EXPECT_EQ(p->steps[1].imm1, 0x3e800000u);
  EXPECT_EQ(p->result_register, p->steps[1].dst);
}

TEST(VgfProgramBuilder, RejectsMoreLiveValuesThanRegisters) {
  // Five values alive at once (a balanced tree needs them all before combining).
  ProgramBuilder b;
  b.bind_input(0, 0);
  for (uint64_t v = 1; v <= 5; ++v) b.add(v, EwOp::kExp, {0});
  b.add(6, EwOp::kAdd, {1, 2});
  b.add(7, EwOp::kAdd, {6, 3});
  b.add(8, EwOp::kAdd, {7, 4});
  b.add(9, EwOp::kAdd, {8, 5});
  EXPECT_FALSE(b.build(9).has_value());
}

Result<backends::vgf::SegmentPlan> plan_of(const TosaGraph& g, ::univk::vgf::VgfFile& model,
                                           std::vector<uint8_t>& blob) {
  backends::vgf::LoweringContext context;
  context.file = &model;
  context.segment = &model.segments[0];
  context.constant_blob = &blob;
  return backends::vgf::lower_graph(g, context);
}

TEST(VgfLowering, LargeTensorElementwiseIsOneDispatchWithA2DGrid) {
  const TosaTensorType t{DType::kFloat32, {16, 64, 1024, 1024}};
  TosaGraph g;
  ValueId x = g.add_input(t, 0, 0);
  Attributes mul;
  mul.set("shift", int64_t{0});
  ValueId s = g.add_operation(TosaOp::kSigmoid, {x}, {}, t);
  g.add_output(g.add_operation(TosaOp::kMul, {s, x}, mul, t), 0, 1);
  auto model = single_graph_model(g);
  std::vector<uint8_t> blob;
  auto plan = plan_of(g, model, blob);
  UNIVK_ASSERT_OK(plan);
  ASSERT_EQ(plan->dispatches.size(), 1u);
  EXPECT_EQ(plan->dispatches[0].label, "SIGMOID+MUL");
  EXPECT_EQ(plan->dispatches[0].work_items, uint64_t{16} * 64 * 1024 * 1024 / 4);
  EXPECT_EQ(plan->scratch_bytes, 0u);
  const auto grid = backends::vgf::dispatch_grid(plan->dispatches[0].work_items, 65535, 65535);
  const uint64_t groups = plan->dispatches[0].work_items / backends::vgf::kLocalSize;
  EXPECT_LE(grid[0], 65535u);
  EXPECT_GE(uint64_t{grid[0]} * grid[1], groups);
  EXPECT_LT(uint64_t{grid[0]} * grid[1] - groups, grid[1]) << "less than one row of idle groups";
}

TEST(VgfLowering, DispatchGridLeavesFewIdleGroups) {
  using backends::vgf::dispatch_grid;
  using backends::vgf::kLocalSize;
  EXPECT_EQ(dispatch_grid(1, 65535, 65535), (std::array<uint32_t, 2>{1, 1}));
  EXPECT_EQ(dispatch_grid(65535 * kLocalSize, 65535, 65535), (std::array<uint32_t, 2>{65535, 1}));
  // 65536 groups: two rows of 32768, not 65535 + 1.
  EXPECT_EQ(dispatch_grid(65536 * kLocalSize, 65535, 65535), (std::array<uint32_t, 2>{32768, 2}));
  // A device limit below 65535 in x.
  EXPECT_EQ(dispatch_grid(1000 * kLocalSize, 300, 65535), (std::array<uint32_t, 2>{250, 4}));
}

TEST(VgfLowering, ScratchIsReusedAcrossDispatches) {
  // conv -> conv -> conv: the first intermediate is dead when the third dispatch runs.
  const TosaTensorType t{DType::kFloat32, {1, 4, 4, 2}};
  TosaGraph g;
  ValueId v = g.add_input(t, 0, 0);
  Attributes a;
  a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  a.set("stride", std::vector<int64_t>{1, 1});
  a.set("dilation", std::vector<int64_t>{1, 1});
  a.set("acc_type", spirv::kAccFp32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", 0.0);
  a.set("weight_zp", 0.0);
  ValueId w = g.add_constant({DType::kFloat32, {2, 1, 1, 2}}, floats_bytes({1, 0, 0, 1}));
  ValueId b = g.add_constant({DType::kFloat32, {2}}, floats_bytes({0, 0}));
  for (int i = 0; i < 4; ++i) v = g.add_operation(TosaOp::kConv2d, {v, w, b}, a, t);
  g.add_output(v, 0, 1);
  auto model = single_graph_model(g);
  std::vector<uint8_t> blob;
  auto plan = plan_of(g, model, blob);
  UNIVK_ASSERT_OK(plan);
  EXPECT_EQ(plan->dispatches.size(), 4u);
  EXPECT_EQ(plan->scratch_bytes, 2u * 256);  // 3 intermediates of 128 bytes, 2 alive at once
}

}  // namespace
}  // namespace univk::backends::vgf_test
