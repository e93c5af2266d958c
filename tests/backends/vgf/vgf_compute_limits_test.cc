// COMPUTE segments (shaders from the program file) are bounded at load: a dispatch shape beyond
// the device's maxComputeWorkGroupCount is refused (it would be a validation error, or work that
// never finishes), and the shaders run with robustBufferAccess unless the option turns it off.
#include <limits>

#include "vgf_test_util.h"
#include "vgf_backend_compute_limits_test_shaders.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

const Shape kShape({2, 3, 4});

vgf::VgfFile compute_model(std::array<uint32_t, 3> dispatch) {
  return compute_segment_model(kShape, dispatch, shaders::double_plus_one_spv());
}

constexpr std::array<uint32_t, 3> kGoodDispatch = {6, 1, 1};  // 24 elements, 4 per group

void expect_runs(backend::Delegate& delegate, const std::string& what) {
  const Status prepared = delegate.prepare_execute();
  UNIVK_ASSERT_OK(prepared) << what;
  HostTensor in = random_tensor(DType::kFloat32, kShape, 81);
  auto out = delegate.execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out) << what;
  HostTensor want = in;
  for (float& v : want.data<float>()) v = v * 2.f + 1.f;
  EXPECT_TRUE(tensors_close((*out)[0], want, {})) << what;
}

TEST(VgfComputeLimits, DispatchBeyondMaxWorkGroupCountIsRefusedAtLoad) {
  auto good = load(compute_model(kGoodDispatch));
  UNIVK_ASSERT_OK(good);
  const auto& limits = good->delegate->device()->properties().limits;
  std::vector<std::array<uint32_t, 3>> bad = {{UINT32_MAX, UINT32_MAX, UINT32_MAX}};
  for (int d = 0; d < 3; ++d)
    if (limits.maxComputeWorkGroupCount[d] < UINT32_MAX) {
      std::array<uint32_t, 3> shape = {1, 1, 1};
      shape[d] = limits.maxComputeWorkGroupCount[d] + 1;  // [65536, 1, 1] on lavapipe
      bad.push_back(shape);
    }
  for (const auto& shape : bad) {
    const std::string what = std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" + std::to_string(shape[2]);
    auto loaded = load(compute_model(shape));
    ASSERT_FALSE(loaded.ok()) << what;
    EXPECT_EQ(loaded.status().code(), StatusCode::kUnsupported) << loaded.status().to_string();
    EXPECT_NE(loaded.status().message().find("COMPUTE segment 'compute'"), std::string::npos)
        << loaded.status().to_string();
    EXPECT_NE(loaded.status().message().find("maxComputeWorkGroupCount"), std::string::npos)
        << loaded.status().to_string();
  }
}

TEST(VgfComputeLimits, ComputeSegmentsRunWithRobustBufferAccess) {
  const vgf::VgfFile model = compute_model(kGoodDispatch);
  const std::vector<uint8_t> payload = encode(model);
  const auto spec = spec_for(model, payload);
  auto prepared = make_vgf_backend()->prepare(spec);
  UNIVK_ASSERT_OK(prepared);
  const vulkan::DeviceRequirements& req = (*prepared)->requirements();
  EXPECT_TRUE(req.optional_features.contains(vulkan::Feature::kRobustBufferAccess)) << req.describe();

  auto robust = device_for(req);
  UNIVK_ASSERT_OK(robust);
  ASSERT_TRUE((*robust)->has(vulkan::Feature::kRobustBufferAccess)) << "the driver lacks robustBufferAccess";
  auto delegate = (*prepared)->init(*robust, {});
  UNIVK_ASSERT_OK(delegate);
  expect_runs(**delegate, "robust");

  // A device created without the feature: refused by default, runs when the option says off.
  auto plain_req = req;
  plain_req.optional_features.erase(vulkan::Feature::kRobustBufferAccess);
  auto plain = device_for(plain_req);
  UNIVK_ASSERT_OK(plain);
  ASSERT_FALSE((*plain)->has(vulkan::Feature::kRobustBufferAccess));
  for (const backend::BackendOptions& options :
       {backend::BackendOptions{}, backend::BackendOptions{{"vgf_robust_buffer_access", "on"}}}) {
    auto refused = (*prepared)->init(*plain, options);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported) << refused.status().to_string();
    EXPECT_NE(refused.status().message().find("vgf_robust_buffer_access=off"), std::string::npos)
        << refused.status().to_string();
  }
  auto unchecked = (*prepared)->init(*plain, {{"vgf_robust_buffer_access", "off"}});
  UNIVK_ASSERT_OK(unchecked);
  expect_runs(**unchecked, "robust access off");

  auto bad = (*prepared)->init(*robust, {{"vgf_robust_buffer_access", "maybe"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().to_string();
}

TEST(VgfComputeLimits, GraphOnlyPayloadsDoNotAskForRobustBufferAccess) {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, kShape.dims()}, 0, 0);
  g.add_output(g.add_operation(TosaOp::kAdd, {x, x}, {}, {DType::kFloat32, kShape.dims()}), 0, 1);
  const vgf::VgfFile model = single_graph_model(g);
  const std::vector<uint8_t> payload = encode(model);
  auto prepared = make_vgf_backend()->prepare(spec_for(model, payload));
  UNIVK_ASSERT_OK(prepared);
  const vulkan::DeviceRequirements& req = (*prepared)->requirements();
  EXPECT_FALSE(req.optional_features.contains(vulkan::Feature::kRobustBufferAccess)) << req.describe();
  EXPECT_FALSE(req.required_features.contains(vulkan::Feature::kRobustBufferAccess)) << req.describe();
}

}  // namespace
}  // namespace univk::backends::vgf_test
