// univk-dump: JSON output for VGF files with real graph modules and for Arm's samples, clear
// failures and exit codes for bad files and bad usage, .uvk programs with their VgfBackend and
// VulkanBackend payloads decoded, CPU kernel attributes as objects, the instructions' PyTorch
// nodes, the partition as a table (--summary) and as Graphviz (--dot, checked with Graphviz's
// `dot` where it is installed).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "external_data.h"
#include "univk/base/file_map.h"
#include "univk/config.h"
#include "univk/runtime/program_writer.h"
#include "univk/spirv/tosa_graph.h"
#include "univk_test.h"
#include "vgf_test_util.h"
#if UNIVK_BUILD_VULKAN_BACKEND
#include "univk/backends/vulkan/compute_graph.h"
#endif

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
  EXPECT_NE(help.out.find("Usage: univk-dump"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--summary"), std::string::npos) << help.out;
  EXPECT_EQ(run_dump("--summary --json - x.uvk").rc, 2);  // two outputs on stdout
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

// Writes a program of four instructions: VgfBackend (AVG_POOL2D), VulkanBackend (sigmoid, in
// builds that have it; else a CPU sigmoid), a CPU softmax with an attribute, and a CPU relu
// with its PyTorch node (debug metadata).
void write_mixed_program(const std::string& path) {
  runtime::ProgramBuilder pb;
  const uint32_t pool = pb.add_delegate("VgfBackend", pool_vgf());
  runtime::MethodBuilder& m = pb.add_method("forward");
  const auto x = m.add_value(DType::kFloat32, Shape{1, 8, 8, 3});
  const auto y = m.add_value(DType::kFloat32, Shape{1, 4, 4, 3});
  const auto s = m.add_value(DType::kFloat32, Shape{1, 4, 4, 3});
  const auto p = m.add_value(DType::kFloat32, Shape{1, 4, 4, 3});
  const auto r = m.add_value(DType::kFloat32, Shape{1, 4, 4, 3});
  m.add_delegate_call(pool, {x}, {y});
#if UNIVK_BUILD_VULKAN_BACKEND
  backends::ComputeGraph g;
  g.values = {{DType::kFloat32, Shape{1, 4, 4, 3}, {}}, {DType::kFloat32, Shape{1, 4, 4, 3}, {}}};
  g.ops = {{"sigmoid", {}, {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  auto payload = backends::serialize_compute_graph(g);
  UNIVK_EXPECT_OK(payload);
  m.add_delegate_call(pb.add_delegate("VulkanBackend", payload.ok() ? *payload : std::vector<uint8_t>{}), {y}, {s});
#else
  m.add_kernel_call("sigmoid", {}, {y}, {s});
#endif
  Attributes dim;
  dim.set("dim", int64_t{3});
  m.add_kernel_call("softmax", dim, {s}, {p});
  m.add_kernel_call("relu", {}, {p}, {r}, {{"relu_1", "at model.py:9"}});
  m.set_inputs({x});
  m.set_outputs({r});
  UNIVK_EXPECT_OK(pb.write(path));
}

class UnivkDumpProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = temp_path("program.uvk");
    write_mixed_program(path_);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(UnivkDumpProgram, PayloadsAndAttributesAreDecoded) {
  DumpRun r = run_dump(path_);
  ASSERT_EQ(r.rc, 0) << r.out;
  const nlohmann::json dump = nlohmann::json::parse(r.out);
  const auto& instructions = dump["methods"][0]["instructions"];
  ASSERT_EQ(instructions.size(), 4u);
  // A CPU kernel's attributes are a JSON object, not a string.
  EXPECT_EQ(instructions[2]["op"], "softmax");
  EXPECT_EQ(instructions[2]["attributes"], nlohmann::json({{"dim", 3}}));
  EXPECT_EQ(instructions[3]["attributes"], nlohmann::json::object());
  // Debug metadata: only the relu records its PyTorch node.
  EXPECT_FALSE(instructions[2].contains("sources"));
  EXPECT_EQ(instructions[3]["sources"], nlohmann::json::parse(R"([{"name": "relu_1", "location": "at model.py:9"}])"));
  EXPECT_EQ(dump["delegates"][0]["vgf"]["modules"][0]["graph"]["operations"][0]["attributes"]["kernel"],
            nlohmann::json({2, 2}));
#if UNIVK_BUILD_VULKAN_BACKEND
  const auto& graph = dump["delegates"][1]["compute_graph"];
  ASSERT_TRUE(graph.is_object()) << dump["delegates"][1];
  EXPECT_EQ(graph["operations"][0]["op"], "sigmoid");
  EXPECT_EQ(graph["operations"][0]["inputs"], nlohmann::json({0}));
  EXPECT_EQ(graph["values"][1]["shape"], nlohmann::json({1, 4, 4, 3}));
  EXPECT_EQ(graph["values"][1]["dtype"], "float32");
#endif
}

TEST_F(UnivkDumpProgram, JsonGoesToTheFileGiven) {
  const std::string json_path = temp_path("dump.json");
  DumpRun r = run_dump(path_ + " --json=" + json_path);
  ASSERT_EQ(r.rc, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto text = read_file(json_path);
  UNIVK_ASSERT_OK(text);
  EXPECT_EQ(nlohmann::json::parse(*text)["format"], "uvk");
  std::filesystem::remove(json_path);
  EXPECT_EQ(nlohmann::json::parse(run_dump(path_ + " --json -").out)["format"], "uvk");
}

TEST_F(UnivkDumpProgram, SummaryHasOneLinePerInstruction) {
  DumpRun r = run_dump(path_ + " --summary");
  ASSERT_EQ(r.rc, 0) << r.out;
#if UNIVK_BUILD_VULKAN_BACKEND
  EXPECT_EQ(r.out,
            "0: VgfBackend: AVG_POOL2D\n1: VulkanBackend: sigmoid\n2: cpu: softmax\n3: cpu: relu (from relu_1)\n");
#else
  EXPECT_EQ(r.out, "0: VgfBackend: AVG_POOL2D\n1: cpu: sigmoid\n2: cpu: softmax\n3: cpu: relu (from relu_1)\n");
#endif
  // A VGF file has no partition.
  const std::string vgf_path = temp_path("pool_summary.vgf");
  UNIVK_ASSERT_OK(write_file(vgf_path, pool_vgf()));
  EXPECT_EQ(run_dump(vgf_path + " --summary").rc, 2);
  std::filesystem::remove(vgf_path);
}

TEST_F(UnivkDumpProgram, DotShowsTheDelegateBoundaries) {
  DumpRun r = run_dump(path_ + " --dot -");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.rfind("digraph univk_partition {", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("label=\"0: VgfBackend\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[label=\"AVG_POOL2D\"]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"2: cpu\""), std::string::npos) << r.out;
  // The value between instruction 0 and 1 crosses a boundary: out of cluster 0, into cluster 1.
  EXPECT_NE(r.out.find("m0_i0_op0 -> m0_v1 [ltail=cluster_m0_i0]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m0_v1 -> m0_i1_op0 [lhead=cluster_m0_i1]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"input 0\\nv0 float32[1,8,8,3]\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"output 0\\nv4 float32[1,4,4,3]\""), std::string::npos) << r.out;
  // Graphviz accepts it.
  if (std::string(UNIVK_DOT_EXE).empty()) GTEST_SKIP() << "Graphviz's dot is not installed (Debian: graphviz)";
  const std::string dot_path = temp_path("partition.dot");
  ASSERT_EQ(run_dump(path_ + " --dot " + dot_path).rc, 0);
  const std::string command = std::string(UNIVK_DOT_EXE) + " -Tsvg " + dot_path + " -o /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::filesystem::remove(dot_path);
}

#if UNIVK_BUILD_VULKAN_BACKEND
// A VulkanBackend payload that is not a compute graph: the JSON says why, the summary and the
// graph mark the call as not decoded, and the exit status is 1.
TEST(UnivkDump, UndecodablePayloadIsReported) {
  runtime::ProgramBuilder pb;
  const std::vector<uint8_t> garbage(64, 0x5a);
  const uint32_t d = pb.add_delegate("VulkanBackend", garbage);
  runtime::MethodBuilder& m = pb.add_method("forward");
  const auto x = m.add_value(DType::kFloat32, Shape{4});
  const auto y = m.add_value(DType::kFloat32, Shape{4});
  m.add_delegate_call(d, {x}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  const std::string path = temp_path("garbage.uvk");
  UNIVK_ASSERT_OK(pb.write(path));
  DumpRun r = run_dump(path);
  EXPECT_EQ(r.rc, 1);
  const nlohmann::json dump = nlohmann::json::parse(r.out);
  EXPECT_TRUE(dump["delegates"][0]["compute_graph_error"].is_string()) << r.out;
  r = run_dump(path + " --summary");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "0: VulkanBackend: (payload not decoded)\n");
  r = run_dump(path + " --dot -");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("[label=\"(payload not decoded)\"]"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}
#endif

}  // namespace
}  // namespace univk::vgf
