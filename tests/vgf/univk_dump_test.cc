// univk-dump: JSON output for VGF files with real graph modules and for Arm's samples, clear
// failures and exit codes for bad files and bad usage, .uvk programs with inline VGF payloads.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "external_data.h"
#include "univk/base/file_map.h"
#include "univk/spirv/tosa_graph.h"
#include "vgf_test_util.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::vgf {
namespace {

struct DumpRun {
  int rc = -1;
  std::string out;
};

DumpRun run_dump(const std::string& args) {
  DumpRun r;
  const std::string cmd = std::string(UNIVK_DUMP_EXE) + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("univk_dump_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// A VGF whose graph module is a real AVG_POOL2D graph.
std::vector<uint8_t> pool_vgf() {
  spirv::TosaGraph g;
  const spirv::TosaTensorType in{DType::kFloat32, {1, 8, 8, 3}};
  spirv::ValueId x = g.add_input(in, 0, 0);
  Attributes a;
  a.set("kernel", std::vector<int64_t>{2, 2});
  a.set("stride", std::vector<int64_t>{2, 2});
  a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  a.set("acc_type", spirv::kAccFp32);
  a.set("input_zp", 0.0);
  a.set("output_zp", 0.0);
  g.add_output(g.add_operation(spirv::TosaOp::kAvgPool2d, {x}, a, {DType::kFloat32, {1, 4, 4, 3}}), 0, 1);
  auto words = spirv::write_tosa_graph(g);
  UNIVK_EXPECT_OK(words);
  VgfModel m;
  Module mod;
  mod.name = "pool";
  mod.entry_point = "main";
  mod.set_spirv(*words);
  m.modules.push_back(mod);
  m.resources.push_back(
      {ResourceCategory::kInput, vk::kDescriptorTypeTensorArm, vk::kFormatR32Sfloat, {1, 8, 8, 3}, {}, {}, {}});
  m.resources.push_back(
      {ResourceCategory::kOutput, vk::kDescriptorTypeTensorArm, vk::kFormatR32Sfloat, {1, 4, 4, 3}, {}, {}, {}});
  Segment s;
  s.name = "segment0";
  s.set_infos.push_back({0u, {{0, 0}, {1, 1}}});
  s.inputs = {{0, 0}};
  s.outputs = {{1, 1}};
  s.dispatch_shape = {0, 0, 0};
  m.segments.push_back(s);
  m.inputs = {{0, 0}};
  m.outputs = {{1, 1}};
  auto bytes = encode_vgf(m);
  UNIVK_EXPECT_OK(bytes);
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(UnivkDump, GraphModuleOperators) {
  const std::string path = temp_path("pool.vgf");
  UNIVK_ASSERT_OK(write_file(path, pool_vgf()));
  DumpRun r = run_dump(path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("\"version\": \"0.4.3\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"op\": \"AVG_POOL2D\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kernel\": ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"format\": \"VK_FORMAT_R32_SFLOAT\""), std::string::npos) << r.out;
}

TEST(UnivkDump, ArmSample) {
  UNIVK_REQUIRE_EXTERNAL_FILE(testing::sample_path(""));
  DumpRun r = run_dump(testing::sample_path("simple_conv2d_rescale_graph_v0_4_3.vgf"));
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("\"placeholder\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"size\": 1024"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"category\": \"CONSTANT\""), std::string::npos) << r.out;
}

TEST(UnivkDump, BadFilesAndUsage) {
  EXPECT_EQ(run_dump("").rc, 2);
  EXPECT_EQ(run_dump("--bogus x").rc, 2);
  DumpRun help = run_dump("--help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("usage: univk-dump"), std::string::npos);
  EXPECT_EQ(run_dump(temp_path("does_not_exist.vgf")).rc, 1);

  auto bytes = pool_vgf();
  bytes.resize(bytes.size() - 3);
  const std::string path = temp_path("truncated.vgf");
  UNIVK_ASSERT_OK(write_file(path, bytes));
  DumpRun r = run_dump(path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.out.empty());
}

TEST(UnivkDump, ProgramWithVgfDelegate) {
  runtime::ProgramBuilder pb;
  const auto vgf = pool_vgf();
  const uint32_t d = pb.add_delegate("VgfBackend", vgf);
  runtime::MethodBuilder& m = pb.add_method("forward");
  const auto x = m.add_value(DType::kFloat32, Shape{1, 8, 8, 3});
  const auto y = m.add_value(DType::kFloat32, Shape{1, 4, 4, 3});
  m.add_delegate_call(d, {x}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  const std::string path = temp_path("program.uvk");
  UNIVK_ASSERT_OK(pb.write(path));
  DumpRun r = run_dump(path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("\"format\": \"uvk\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"backend\": \"VgfBackend\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"op\": \"AVG_POOL2D\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \"delegate_call\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace univk::vgf
