// encode_vgf -> decode_vgf keeps every field; the written layout follows the format rules.
#include <gtest/gtest.h>

#include <cstring>

#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::vgf {
namespace {

uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

void expect_same(const VgfFile& a, const VgfFile& b) {
  EXPECT_EQ(a.vk_header_version, b.vk_header_version);
  ASSERT_EQ(a.modules.size(), b.modules.size());
  for (size_t i = 0; i < a.modules.size(); ++i) {
    EXPECT_EQ(a.modules[i].type, b.modules[i].type);
    EXPECT_EQ(a.modules[i].name, b.modules[i].name);
    EXPECT_EQ(a.modules[i].entry_point, b.modules[i].entry_point);
    EXPECT_EQ(a.modules[i].code_type, b.modules[i].code_type);
    EXPECT_EQ(a.modules[i].source, b.modules[i].source);
    EXPECT_TRUE(std::ranges::equal(a.modules[i].spirv(), b.modules[i].spirv()));
  }
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (size_t i = 0; i < a.segments.size(); ++i) {
    const Segment& x = a.segments[i];
    const Segment& y = b.segments[i];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.module_index, y.module_index);
    ASSERT_EQ(x.set_infos.size(), y.set_infos.size());
    for (size_t k = 0; k < x.set_infos.size(); ++k) {
      EXPECT_EQ(x.set_infos[k].set_index, y.set_infos[k].set_index);
      EXPECT_EQ(x.set_infos[k].bindings, y.set_infos[k].bindings);
    }
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.outputs, y.outputs);
    EXPECT_EQ(x.constants, y.constants);
    EXPECT_EQ(x.dispatch_shape, y.dispatch_shape);
    ASSERT_EQ(x.push_constant_ranges.size(), y.push_constant_ranges.size());
    for (size_t k = 0; k < x.push_constant_ranges.size(); ++k) {
      EXPECT_EQ(x.push_constant_ranges[k].stage_flags, y.push_constant_ranges[k].stage_flags);
      EXPECT_EQ(x.push_constant_ranges[k].offset, y.push_constant_ranges[k].offset);
      EXPECT_EQ(x.push_constant_ranges[k].size, y.push_constant_ranges[k].size);
    }
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.input_names, b.input_names);
  EXPECT_EQ(a.output_names, b.output_names);
  ASSERT_EQ(a.resources.size(), b.resources.size());
  for (size_t i = 0; i < a.resources.size(); ++i) {
    EXPECT_EQ(a.resources[i].category, b.resources[i].category);
    EXPECT_EQ(a.resources[i].vk_descriptor_type, b.resources[i].vk_descriptor_type);
    EXPECT_EQ(a.resources[i].vk_format, b.resources[i].vk_format);
    EXPECT_EQ(a.resources[i].shape, b.resources[i].shape);
    EXPECT_EQ(a.resources[i].strides, b.resources[i].strides);
    EXPECT_EQ(a.resources[i].alias_group_id, b.resources[i].alias_group_id);
    EXPECT_EQ(a.resources[i].sampler.has_value(), b.resources[i].sampler.has_value());
  }
  ASSERT_EQ(a.constants.size(), b.constants.size());
  for (size_t i = 0; i < a.constants.size(); ++i) {
    EXPECT_EQ(a.constants[i].resource_index, b.constants[i].resource_index);
    EXPECT_EQ(a.constants[i].sparsity_dimension, b.constants[i].sparsity_dimension);
    EXPECT_TRUE(std::ranges::equal(a.constants[i].data(), b.constants[i].data()));
  }
}

TEST(VgfRoundTrip, Version043) {
  const VgfModel model = testing::make_model();
  auto bytes = encode_vgf(model);
  UNIVK_ASSERT_OK(bytes);
  auto decoded = decode_vgf(*bytes);
  UNIVK_ASSERT_OK(decoded);
  EXPECT_EQ(decoded->version, k0_4_3);
  expect_same(model, *decoded);
  // Layout: header magic and version, sections 8-aligned and in order, reserved bytes zero,
  // file ends with the constants section.
  EXPECT_EQ(std::memcmp(bytes->data(), "VGF1", 4), 0);
  EXPECT_EQ((*bytes)[8], 0);
  EXPECT_EQ((*bytes)[9], 4);
  EXPECT_EQ((*bytes)[10], 3);
  for (size_t i = 80; i < 128; ++i) EXPECT_EQ((*bytes)[i], 0) << "reserved byte " << i;
  EXPECT_EQ((*bytes)[6] | (*bytes)[7] | (*bytes)[11] | (*bytes)[12] | (*bytes)[13] | (*bytes)[14] | (*bytes)[15], 0);
  uint64_t previous_end = 128;
  for (size_t i = 0; i < 4; ++i) {
    const uint64_t off = u64_at(*bytes, 16 + 16 * i);
    EXPECT_EQ(off % 8, 0u);
    EXPECT_GE(off, previous_end);
    EXPECT_LT(off - previous_end, 8u);
    previous_end = off + u64_at(*bytes, 24 + 16 * i);
  }
  EXPECT_EQ(previous_end, bytes->size());
  // Constant payloads are 8-aligned in the file.
  for (const Constant& c : decoded->constants) EXPECT_EQ((c.data().data() - bytes->data()) % 8, 0);
}

TEST(VgfRoundTrip, Version050WritesConstantBindings) {
  VgfModel model = testing::make_model();
  model.segments[0].constant_bindings = {{10, 1}, {11, 0}};
  // 0.4.3 cannot express a non-identity mapping.
  auto old_format = encode_vgf(model, k0_4_3);
  ASSERT_FALSE(old_format.ok());
  EXPECT_NE(old_format.status().message().find("0.5.0"), std::string::npos);

  auto bytes = encode_vgf(model, k0_5_0);
  UNIVK_ASSERT_OK(bytes);
  auto decoded = decode_vgf(*bytes);
  UNIVK_ASSERT_OK(decoded);
  EXPECT_EQ(decoded->version, k0_5_0);
  expect_same(model, *decoded);
  const Segment& s = decoded->segments[0];
  ASSERT_EQ(s.constant_bindings.size(), 2u);
  EXPECT_EQ(s.constant_for_graph_constant(10, 2), 1u);
  EXPECT_EQ(s.constant_for_graph_constant(11, 2), 0u);
  EXPECT_FALSE(s.constant_for_graph_constant(0, 2).has_value());
}

TEST(VgfRoundTrip, EmptyModelAndPlaceholderModule) {
  VgfModel model;
  Module placeholder;
  placeholder.name = "p";
  model.modules.push_back(placeholder);
  auto bytes = encode_vgf(model);
  UNIVK_ASSERT_OK(bytes);
  auto decoded = decode_vgf(*bytes);
  UNIVK_ASSERT_OK(decoded);
  ASSERT_EQ(decoded->modules.size(), 1u);
  EXPECT_TRUE(decoded->modules[0].spirv().empty());
  EXPECT_TRUE(decoded->constants.empty());
}

TEST(VgfRoundTrip, EncoderRejectsBrokenReferences) {
  VgfModel model = testing::make_model();
  model.segments[0].module_index = 9;
  auto r = encode_vgf(model);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("module_index"), std::string::npos) << r.status().message();

  model = testing::make_model();
  model.inputs[0].resource_index = 1;  // an OUTPUT entry
  r = encode_vgf(model);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expected INPUT"), std::string::npos) << r.status().message();

  model = testing::make_model();
  model.constants[0].resource_index = 0;  // an INPUT entry
  r = encode_vgf(model);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expected CONSTANT"), std::string::npos) << r.status().message();

  model = testing::make_model();
  model.segments[1].dispatch_shape = {1, 2};
  r = encode_vgf(model);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("dispatch_shape"), std::string::npos) << r.status().message();

  model = testing::make_model();
  model.segments[0].constants = {5};
  EXPECT_FALSE(encode_vgf(model).ok());

  EXPECT_FALSE(encode_vgf(testing::make_model(), VgfVersion{0, 3, 0}).ok());
}

TEST(VgfRoundTrip, VkFormatMapping) {
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32,
                  DType::kInt64, DType::kBool}) {
    auto f = vk_format_from_dtype(t);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(dtype_from_vk_format(*f), t);
  }
  EXPECT_EQ(vk_format_from_dtype(DType::kFloat32), 100u);
  EXPECT_EQ(vk_format_from_dtype(DType::kBool), 1000460000u);
  EXPECT_FALSE(dtype_from_vk_format(vk::kFormatR16SfloatBfloat16Arm).has_value());
  EXPECT_EQ(vk_format_name(vk::kFormatR8Sint), "VK_FORMAT_R8_SINT");
}

}  // namespace
}  // namespace univk::vgf
