// DeviceRequirements, feature names and shared-device option parsing: pure data, no GPU.
#include <gtest/gtest.h>

#include "univk/vulkan/device_requirements.h"
#include "univk/vulkan/registry.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

DeviceCapabilities lavapipe_like() {
  DeviceCapabilities caps;
  caps.device_name = "test device";
  caps.api_version = VK_API_VERSION_1_2;
  caps.extensions = {"VK_KHR_a", "VK_KHR_b"};
  caps.features = {Feature::kShaderInt8, Feature::kTimelineSemaphore};
  caps.queue_family_flags = {VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT};
  return caps;
}

TEST(Features, NamesRoundTrip) {
  for (int i = 0; i < kFeatureCount; ++i) {
    auto feature = static_cast<Feature>(i);
    std::string_view name = feature_name(feature);
    EXPECT_NE(name, "unknown feature");
    EXPECT_EQ(feature_from_name(name), feature) << name;
  }
  EXPECT_EQ(feature_name(Feature::kShaderInt8), "shaderInt8");
  EXPECT_EQ(feature_name(Feature::kTimelineSemaphore), "timelineSemaphore");
  EXPECT_EQ(feature_from_name("noSuchFeature"), std::nullopt);
}

TEST(Strings, VersionsAndQueueFlags) {
  EXPECT_EQ(api_version_string(VK_API_VERSION_1_3), "1.3");
  EXPECT_EQ(api_version_string(VK_MAKE_API_VERSION(0, 1, 2, 197)), "1.2");
  EXPECT_EQ(queue_flags_string(VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT), "COMPUTE|TRANSFER");
  EXPECT_EQ(queue_flags_string(0), "NONE");
  EXPECT_EQ(queue_flags_string(VK_QUEUE_GRAPHICS_BIT | 0x400), "GRAPHICS|DATA_GRAPH_ARM");  // VK_ARM_data_graph
  EXPECT_EQ(queue_flags_string(VK_QUEUE_GRAPHICS_BIT | 0x1000), "GRAPHICS|0x1000");
}

TEST(Strings, CooperativeMatrixShapes) {
  const CooperativeMatrixShape f16{16, 8, 16};  // fp16 * fp16 + fp32 -> fp32, subgroup scope
  EXPECT_EQ(cooperative_matrix_shape_string(f16), "16x8x16 fp16*fp16+fp32->fp32 subgroup");
  const CooperativeMatrixShape i8{16,
                                  16,
                                  32,
                                  VK_COMPONENT_TYPE_SINT8_NV,
                                  VK_COMPONENT_TYPE_UINT8_NV,
                                  VK_COMPONENT_TYPE_SINT32_NV,
                                  VK_COMPONENT_TYPE_UINT32_NV,
                                  VK_SCOPE_DEVICE_NV};
  EXPECT_EQ(cooperative_matrix_shape_string(i8), "16x16x32 sint8*uint8+sint32->uint32 device");
}

TEST(Capabilities, ListedCooperativeMatrixShapes) {
  DeviceCapabilities caps;
  EXPECT_FALSE(caps.lists_cooperative_matrix_f16());
  caps.cooperative_matrix_shapes = {{16, 16, 16},
                                    {16, 8, 32, VK_COMPONENT_TYPE_SINT8_NV, VK_COMPONENT_TYPE_SINT8_NV,
                                     VK_COMPONENT_TYPE_SINT32_NV, VK_COMPONENT_TYPE_SINT32_NV}};
  EXPECT_TRUE(caps.lists_cooperative_matrix_f16());
  EXPECT_TRUE(caps.lists_cooperative_matrix_i8(16, 8, 32));
  EXPECT_FALSE(caps.lists_cooperative_matrix_i8(16, 16, 32));
  // Only subgroup scope counts, and every component type must match.
  caps.cooperative_matrix_shapes[0].scope = VK_SCOPE_WORKGROUP_NV;
  EXPECT_FALSE(caps.lists_cooperative_matrix_f16());
  caps.cooperative_matrix_shapes[0] = {16,
                                       16,
                                       16,
                                       VK_COMPONENT_TYPE_FLOAT16_NV,
                                       VK_COMPONENT_TYPE_FLOAT16_NV,
                                       VK_COMPONENT_TYPE_FLOAT16_NV,
                                       VK_COMPONENT_TYPE_FLOAT16_NV};
  EXPECT_FALSE(caps.lists_cooperative_matrix_f16());
}

TEST(Requirements, MergeIsAUnionWhereRequiredWins) {
  DeviceRequirements a;
  a.min_api_version = VK_API_VERSION_1_2;
  a.required_extensions = {"VK_KHR_a"};
  a.optional_extensions = {"VK_KHR_b", "VK_KHR_c"};
  a.required_features = {Feature::kShaderInt8};
  a.optional_features = {Feature::kShaderFloat16};
  a.queue_flags = VK_QUEUE_COMPUTE_BIT;

  DeviceRequirements b;
  b.min_api_version = VK_API_VERSION_1_1;
  b.required_extensions = {"VK_KHR_b"};
  b.optional_extensions = {"VK_KHR_a", "VK_KHR_d"};
  b.required_features = {Feature::kShaderFloat16};
  b.optional_features = {Feature::kShaderInt8, Feature::kMaintenance4};
  b.queue_flags = VK_QUEUE_TRANSFER_BIT;

  DeviceRequirements ab = a;
  ab.merge(b);
  DeviceRequirements ba = b;
  ba.merge(a);
  for (const DeviceRequirements* m : {&ab, &ba}) {
    EXPECT_EQ(m->min_api_version, VK_API_VERSION_1_2);
    EXPECT_EQ(m->required_extensions, (std::set<std::string>{"VK_KHR_a", "VK_KHR_b"}));
    EXPECT_EQ(m->optional_extensions, (std::set<std::string>{"VK_KHR_c", "VK_KHR_d"}));
    EXPECT_EQ(m->required_features, (std::set<Feature>{Feature::kShaderInt8, Feature::kShaderFloat16}));
    EXPECT_EQ(m->optional_features, (std::set<Feature>{Feature::kMaintenance4}));
    EXPECT_EQ(m->queue_flags, VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT);
  }
}

TEST(Requirements, CheckPassesWhenEverythingIsThere) {
  DeviceRequirements r;
  r.min_api_version = VK_API_VERSION_1_2;
  r.required_extensions = {"VK_KHR_a"};
  r.optional_extensions = {"VK_KHR_missing_but_optional"};
  r.required_features = {Feature::kShaderInt8};
  r.optional_features = {Feature::kShaderFloat64};
  r.queue_flags = VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
  EXPECT_TRUE(r.check(lavapipe_like()).empty());
}

TEST(Requirements, CheckNamesEveryMissingItem) {
  DeviceRequirements r;
  r.min_api_version = VK_API_VERSION_1_3;
  r.required_extensions = {"VK_KHR_a", "VK_ARM_tensors", "VK_ARM_data_graph"};
  r.required_features = {Feature::kShaderInt8, Feature::kShaderFloat16, Feature::kSynchronization2};
  // Each flag exists in some family, but no family has both.
  r.queue_flags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  std::vector<std::string> missing = r.check(lavapipe_like());
  std::vector<std::string> expected = {
      "API version 1.3 (device has 1.2)", "extension VK_ARM_data_graph",
      "extension VK_ARM_tensors",         "feature shaderFloat16",
      "feature synchronization2",         "queue flags GRAPHICS|COMPUTE",
  };
  EXPECT_EQ(missing, expected);
}

TEST(Requirements, CheckAgainstNoQueueFamilies) {
  DeviceRequirements r;
  DeviceCapabilities caps = lavapipe_like();
  caps.queue_family_flags.clear();
  EXPECT_EQ(r.check(caps), (std::vector<std::string>{"queue flags COMPUTE"}));
}

TEST(Requirements, DescribeListsItems) {
  DeviceRequirements r;
  r.min_api_version = VK_API_VERSION_1_3;
  r.required_extensions = {"VK_KHR_a"};
  r.required_features = {Feature::kShaderInt8};
  r.optional_features = {Feature::kMaintenance4};
  EXPECT_EQ(r.describe(),
            "API >= 1.3, queue COMPUTE, extensions {VK_KHR_a}, features {shaderInt8}, optional features "
            "{maintenance4}");
}

TEST(SharedOptions, DefaultsAndParsing) {
  auto defaults = SharedDeviceOptions::from_options({{"unrelated_option", "x"}});
  UNIVK_ASSERT_OK(defaults);
  EXPECT_EQ(defaults->key.context_name, "default");
  EXPECT_EQ(defaults->key.group_id, 0u);
  EXPECT_EQ(defaults->mode, SharedMode::kLookupOrCreate);
  EXPECT_EQ(defaults->key.to_string(), "default/0");

  auto parsed = SharedDeviceOptions::from_options({{"vulkan_shared_context_name", "app"},
                                                   {"vulkan_shared_context_mode", "lookup_only"},
                                                   {"vulkan_shared_group_id", "4294967295"}});
  UNIVK_ASSERT_OK(parsed);
  EXPECT_EQ(parsed->key.to_string(), "app/4294967295");
  EXPECT_EQ(parsed->mode, SharedMode::kLookupOnly);
}

TEST(SharedOptions, ModeNamesRoundTrip) {
  for (SharedMode mode :
       {SharedMode::kDisabled, SharedMode::kLookupOnly, SharedMode::kLookupOrCreate, SharedMode::kCreateOnly}) {
    auto back = shared_mode_from_name(shared_mode_name(mode));
    UNIVK_ASSERT_OK(back);
    EXPECT_EQ(*back, mode);
  }
}

TEST(SharedOptions, BadValuesAreInvalidArgumentNamingTheValue) {
  auto bad_mode = SharedDeviceOptions::from_options({{"vulkan_shared_context_mode", "sometimes"}});
  EXPECT_EQ(bad_mode.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_mode.status().message().find("sometimes"), std::string::npos);
  for (const char* id : {"", "-1", "abc", "12x", "4294967296"}) {
    auto bad_id = SharedDeviceOptions::from_options({{"vulkan_shared_group_id", id}});
    EXPECT_EQ(bad_id.status().code(), StatusCode::kInvalidArgument) << "'" << id << "'";
  }
  EXPECT_EQ(SharedDeviceOptions::from_options({{"vulkan_shared_context_name", ""}}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DeviceKeys, OrderAndEquality) {
  DeviceKey a{"a", 1}, b{"a", 2}, c{"b", 0};
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(a, (DeviceKey{"a", 1}));
}

}  // namespace
}  // namespace univk::vulkan
