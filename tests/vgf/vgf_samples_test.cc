// Arm's own VGF files (../shared/testdata/arm-vgf-samples) decode to exactly the structure
// listed in that folder's README.
#include <gtest/gtest.h>

#include "external_data.h"
#include "univk/base/file_map.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::vgf {
namespace {

using testing::sample_path;

// Every test reads Arm's files from ../shared/testdata: skipped (failed in CI) without them.
class VgfSamples : public ::testing::Test {
 protected:
  void SetUp() override { UNIVK_REQUIRE_EXTERNAL_FILE(sample_path("")); }
};

struct Decoded {
  MappedFile file;
  VgfFile vgf;
};

Decoded load(const std::string& name) {
  auto file = MappedFile::open(sample_path(name));
  UNIVK_EXPECT_OK(file);
  if (!file.ok()) return {};
  auto vgf = decode_vgf(file->bytes());
  UNIVK_EXPECT_OK(vgf);
  if (!vgf.ok()) return {};
  return {std::move(*file), std::move(*vgf)};
}

void expect_sections(const VgfFile& f, std::vector<std::pair<uint64_t, uint64_t>> expected) {
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f.sections[i].offset, expected[i].first) << "section " << i;
    EXPECT_EQ(f.sections[i].size, expected[i].second) << "section " << i;
  }
}

// The common content of all four files: one GRAPH module with the placeholder words [0], one
// segment whose single set (set_index absent) binds 0->mrt0 and 1->mrt1, dispatch [0,0,0], and
// the MRT entries TENSOR_ARM R8_SINT [1,16,16,16] INPUT and [1,8,8,16] OUTPUT.
void expect_common(const VgfFile& f) {
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].type, ModuleType::kGraph);
  EXPECT_EQ(f.modules[0].code_type, ModuleCodeType::kSpirv);
  ASSERT_EQ(f.modules[0].spirv().size(), 1u);
  EXPECT_EQ(f.modules[0].spirv()[0], 0u);
  EXPECT_EQ(f.vk_header_version, 999);
  EXPECT_FALSE(f.legacy_magic);

  ASSERT_EQ(f.segments.size(), 1u);
  const Segment& s = f.segments[0];
  EXPECT_EQ(s.type, ModuleType::kGraph);
  EXPECT_EQ(s.module_index, 0u);
  ASSERT_EQ(s.set_infos.size(), 1u);
  EXPECT_FALSE(s.set_infos[0].set_index.has_value());
  EXPECT_EQ(s.set_number(0), 0u);
  EXPECT_EQ(s.set_infos[0].bindings, (std::vector<BindingSlot>{{0, 0}, {1, 1}}));
  EXPECT_EQ(s.dispatch_shape, (std::vector<uint32_t>{0, 0, 0}));
  EXPECT_EQ(f.inputs, (std::vector<BindingSlot>{{0, 0}}));
  EXPECT_EQ(f.outputs, (std::vector<BindingSlot>{{1, 1}}));

  ASSERT_GE(f.resources.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(f.resources[i].vk_descriptor_type, vk::kDescriptorTypeTensorArm);
    EXPECT_EQ(f.resources[i].vk_format, vk::kFormatR8Sint);
    EXPECT_EQ(dtype_from_vk_format(f.resources[i].vk_format), DType::kInt8);
    EXPECT_TRUE(f.resources[i].strides.empty());
    EXPECT_FALSE(f.resources[i].alias_group_id.has_value());
  }
  EXPECT_EQ(f.resources[0].category, ResourceCategory::kInput);
  EXPECT_EQ(f.resources[0].shape, (std::vector<int64_t>{1, 16, 16, 16}));
  EXPECT_EQ(f.resources[1].category, ResourceCategory::kOutput);
  EXPECT_EQ(f.resources[1].shape, (std::vector<int64_t>{1, 8, 8, 16}));
}

TEST_F(VgfSamples, MaxpoolPre040) {
  Decoded d = load("single_maxpool_graph_pre_v0_4_0.vgf");
  ASSERT_EQ(d.file.size(), 776u);
  EXPECT_EQ(d.vgf.version, k0_3_0);
  expect_sections(d.vgf, {{128, 112}, {240, 304}, {544, 208}, {752, 24}});
  expect_common(d.vgf);
  EXPECT_EQ(d.vgf.resources.size(), 2u);
  EXPECT_TRUE(d.vgf.legacy_constants);
  EXPECT_TRUE(d.vgf.constants.empty());
  EXPECT_TRUE(d.vgf.segments[0].constants.empty());
}

TEST_F(VgfSamples, Maxpool043) {
  Decoded d = load("single_maxpool_graph_v0_4_3.vgf");
  ASSERT_EQ(d.file.size(), 768u);
  EXPECT_EQ(d.vgf.version, k0_4_3);
  expect_common(d.vgf);
  EXPECT_EQ(d.vgf.resources.size(), 2u);
  EXPECT_FALSE(d.vgf.legacy_constants);
  EXPECT_EQ(d.vgf.sections[3].size, 16u);  // CONST00 with count 0
  EXPECT_TRUE(d.vgf.constants.empty());
  for (const SectionRange& r : d.vgf.sections) EXPECT_EQ(r.offset % 8, 0u);
}

void expect_conv_constant(const Decoded& d, uint64_t file_offset) {
  ASSERT_EQ(d.vgf.resources.size(), 3u);
  const Resource& c = d.vgf.resources[2];
  EXPECT_EQ(c.category, ResourceCategory::kConstant);
  EXPECT_FALSE(c.vk_descriptor_type.has_value());
  EXPECT_EQ(c.shape, (std::vector<int64_t>{16, 2, 2, 16}));
  ASSERT_EQ(d.vgf.constants.size(), 1u);
  EXPECT_EQ(d.vgf.constants[0].resource_index, 2u);
  EXPECT_EQ(d.vgf.constants[0].sparsity_dimension, -1);
  EXPECT_EQ(d.vgf.constants[0].data().size(), 1024u);
  // Zero copy: the constant bytes are a view into the mapped file.
  EXPECT_EQ(d.vgf.constants[0].data().data(), d.file.data() + file_offset);
  EXPECT_EQ(d.vgf.segments[0].constants, (std::vector<uint32_t>{0}));
  EXPECT_EQ(d.vgf.segments[0].constant_for_graph_constant(0, 1), 0u);
}

TEST_F(VgfSamples, Conv2dRescaleOutdated) {
  Decoded d = load("simple_conv2d_rescale_graph_outdated.vgf");
  ASSERT_EQ(d.file.size(), 1940u);
  EXPECT_EQ(d.vgf.version, k0_3_0);
  EXPECT_EQ(d.vgf.sections[2].offset, 556u);  // not 8-aligned
  expect_common(d.vgf);
  EXPECT_TRUE(d.vgf.legacy_constants);
  // The legacy raw blob sits at a file offset that is 4 mod 8.
  expect_conv_constant(d, 916);
}

TEST_F(VgfSamples, Conv2dRescale043) {
  Decoded d = load("simple_conv2d_rescale_graph_v0_4_3.vgf");
  ASSERT_EQ(d.file.size(), 1912u);
  EXPECT_EQ(d.vgf.version, k0_4_3);
  expect_sections(d.vgf, {{128, 112}, {240, 316}, {560, 288}, {848, 1064}});
  expect_common(d.vgf);
  EXPECT_FALSE(d.vgf.legacy_constants);
  // CONST00 record {mrt 2, sparsity -1, size 1024, offset 0}: payload after 16 + 24 bytes.
  expect_conv_constant(d, 848 + 16 + 24);
}

// Re-encoding Arm's content gives a file that decodes to the same structure.
TEST_F(VgfSamples, ReencodeAsCurrentVersion) {
  Decoded d = load("simple_conv2d_rescale_graph_outdated.vgf");
  auto bytes = encode_vgf(d.vgf);
  UNIVK_ASSERT_OK(bytes);
  auto again = decode_vgf(*bytes);
  UNIVK_ASSERT_OK(again);
  EXPECT_EQ(again->version, k0_4_3);
  expect_common(*again);
  ASSERT_EQ(again->constants.size(), 1u);
  EXPECT_TRUE(std::equal(again->constants[0].data().begin(), again->constants[0].data().end(),
                         d.vgf.constants[0].data().begin(), d.vgf.constants[0].data().end()));
  EXPECT_EQ(again->input_names, d.vgf.input_names);
}

}  // namespace
}  // namespace univk::vgf
