// Helpers shared by the VGF format tests: locating Arm's sample files and building models.
#pragma once

#include <cstdlib>
#include <string>

#include "univk/vgf/vgf_file.h"

namespace univk::vgf::testing {

// ../shared/testdata/arm-vgf-samples/<name>, found through UNIVK_TEST_DATA (set by CTest) or
// relative to the source tree.
inline std::string sample_path(const std::string& name) {
  const char* env = std::getenv("UNIVK_TEST_DATA");
  const std::string root = env ? env : std::string(UNIVK_SOURCE_DIR) + "/../shared/testdata";
  return root + "/arm-vgf-samples/" + name;
}

// A graph model with one input, one output, one intermediate and two constants.
inline VgfModel make_model() {
  VgfModel m;
  m.vk_header_version = 275;
  Module mod;
  mod.type = ModuleType::kGraph;
  mod.name = "graph0";
  mod.entry_point = "main";
  mod.set_spirv({0x07230203u, 0x00010600u, 0, 10, 0});
  m.modules.push_back(mod);
  Module compute;
  compute.type = ModuleType::kCompute;
  compute.name = "shader";
  compute.entry_point = "main";
  compute.code_type = ModuleCodeType::kGlsl;
  compute.source = "#version 450\nvoid main() {}\n";
  m.modules.push_back(compute);

  auto tensor = [](ResourceCategory cat, uint32_t format, std::vector<int64_t> shape) {
    Resource r;
    r.category = cat;
    r.vk_descriptor_type =
        cat == ResourceCategory::kConstant ? std::nullopt : std::optional<uint32_t>(vk::kDescriptorTypeTensorArm);
    r.vk_format = format;
    r.shape = std::move(shape);
    return r;
  };
  m.resources.push_back(tensor(ResourceCategory::kInput, vk::kFormatR32Sfloat, {1, 8, 8, 3}));
  m.resources.push_back(tensor(ResourceCategory::kOutput, vk::kFormatR32Sfloat, {1, 4, 4, 3}));
  m.resources.push_back(tensor(ResourceCategory::kConstant, vk::kFormatR8Sint, {3, 1, 1, 3}));
  m.resources.push_back(tensor(ResourceCategory::kConstant, vk::kFormatR32Sint, {3}));
  Resource inter = tensor(ResourceCategory::kIntermediate, vk::kFormatR16Sfloat, {1, 4, 4, 3});
  inter.strides = {96, 24, 6, 2};
  inter.alias_group_id = 7;
  m.resources.push_back(inter);

  Segment seg;
  seg.type = ModuleType::kGraph;
  seg.name = "segment0";
  seg.module_index = 0;
  seg.set_infos.push_back({std::nullopt, {{0, 0}, {1, 1}}});
  seg.set_infos.push_back({3u, {{5, 4}}});
  seg.inputs = {{0, 0}};
  seg.outputs = {{1, 1}};
  seg.constants = {0, 1};
  seg.dispatch_shape = {0, 0, 0};
  m.segments.push_back(seg);
  Segment cseg;
  cseg.type = ModuleType::kCompute;
  cseg.name = "segment1";
  cseg.module_index = 1;
  cseg.dispatch_shape = {4, 2, 1};
  cseg.push_constant_ranges = {{32, 0, 16}};
  m.segments.push_back(cseg);

  m.inputs = {{0, 0}};
  m.outputs = {{1, 1}};
  m.input_names = {"x"};
  m.output_names = {"y"};
  Constant c0;
  c0.resource_index = 2;
  c0.set_data(std::vector<uint8_t>(9, 0x5a));
  Constant c1;
  c1.resource_index = 3;
  c1.sparsity_dimension = 0;
  c1.set_data({1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0});
  m.constants = {c0, c1};
  return m;
}

}  // namespace univk::vgf::testing
