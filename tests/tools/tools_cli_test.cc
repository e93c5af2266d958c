// Every tool follows one command-line convention (tools/common/cli.h): --help and --version exit
// 0 on stdout, --opt=value equals --opt value, an unknown option or bad value exits 2 with
// "<tool>: <problem>" on stderr, `--json -` puts exactly one JSON document on stdout, and an
// unknown --device exits 2 naming the devices there are. Each tool runs as a child with a time
// limit (child_process.h).
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "univk/base/file_map.h"
#include "univk/compiler/compiler.h"
#include "univk/config.h"
#include "univk_test.h"

namespace univk {
namespace {

namespace fs = std::filesystem;
using testing::ChildResult;

constexpr std::chrono::seconds kLimit{120};

struct Tool {
  const char* name;
  const char* path;
  bool opens_device;
};

// The tools this build has.
std::vector<Tool> tools() {
  std::vector<Tool> out = {{"univk-run", UNIVK_RUN_PATH, true}};
#ifdef UNIVK_DUMP_PATH
  out.push_back({"univk-dump", UNIVK_DUMP_PATH, false});
#endif
#ifdef UNIVK_BENCH_PATH
  out.push_back({"univk-bench", UNIVK_BENCH_PATH, true});
#endif
#ifdef UNIVK_KERNEL_BENCH_PATH
  out.push_back({"univk-kernel-bench", UNIVK_KERNEL_BENCH_PATH, true});
#endif
#ifdef UNIVK_DEVICES_PATH
  out.push_back({"univk-devices", UNIVK_DEVICES_PATH, true});
#endif
  return out;
}

struct ToolRun {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

class ToolsCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("univk_tools_cli_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    compiler::Graph g;
    const compiler::ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 4, 4}).value();
    UNIVK_ASSERT_OK(g.add_output(g.add_node_inferred("relu", "relu", {}, {x}).value()));
    auto compiled = compiler::compile_program(g, {});
    UNIVK_ASSERT_OK(compiled);
    UNIVK_ASSERT_OK(write_file(path("model.uvk"), compiled->bytes));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }

  // Runs `tool` with `args`, stdout and stderr apart.
  static ToolRun run(const Tool& tool, std::vector<std::string> args) {
    args.insert(args.begin(), tool.path);
    const std::string out_path = path("stdout.txt");
    ChildResult r = testing::run_child(args, kLimit, out_path);
    EXPECT_FALSE(r.timed_out) << tool.name << " did not finish within " << kLimit.count() << " s";
    ToolRun result{r.exit_code, "", r.output};
    auto out = read_file(out_path);
    if (out.ok()) result.out = *out;
    return result;
  }

  // The arguments that make `tool` do its (quickest) work.
  static std::vector<std::string> work_args(const Tool& tool) {
    const std::string name = tool.name;
    if (name == "univk-run") return {path("model.uvk"), "--random-inputs=1"};
    if (name == "univk-dump") return {path("model.uvk")};
    if (name == "univk-bench") {
      return {path("model.uvk"), "--iterations=1",      "--warmup=0",        "--round-trips=1",
              "--copy-mib=1",    "--copy-iterations=1", "--gpu-warmup-ms=0", "--no-gpu-time"};
    }
    return {};
  }

  static fs::path* dir_;
};
fs::path* ToolsCli::dir_ = nullptr;

TEST_F(ToolsCli, HelpListsEveryOptionOnStdout) {
  for (const Tool& tool : tools()) {
    SCOPED_TRACE(tool.name);
    ToolRun r = run(tool, {"--help"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("Usage: ") + tool.name), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--version"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exit status"), std::string::npos) << r.out;
    if (tool.opens_device) {
      EXPECT_NE(r.out.find("--device INDEX|NAME"), std::string::npos) << r.out;
    }
    EXPECT_NE(r.out.find("--json FILE"), std::string::npos) << r.out;
    EXPECT_EQ(run(tool, {"-h"}).out, r.out);
  }
}

TEST_F(ToolsCli, VersionIsUnivksVersion) {
  for (const Tool& tool : tools()) {
    SCOPED_TRACE(tool.name);
    ToolRun r = run(tool, {"--version"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string(tool.name) + " " + UNIVK_VERSION_STRING + "\n");
  }
}

TEST_F(ToolsCli, UsageErrorsExitTwoWithTheProblem) {
  for (const Tool& tool : tools()) {
    SCOPED_TRACE(tool.name);
    std::vector<std::string> args = work_args(tool);
    args.push_back("--no-such-option");
    ToolRun r = run(tool, args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(std::string(tool.name) + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    // A value left out.
    EXPECT_EQ(run(tool, {"--json"}).exit_code, 2);
  }
}

TEST_F(ToolsCli, JsonDashIsOneDocumentOnStdout) {
  for (const Tool& tool : tools()) {
    if (std::string(tool.name) == "univk-kernel-bench") continue;  // measures for seconds
    SCOPED_TRACE(tool.name);
    std::vector<std::string> args = work_args(tool);
    args.insert(args.end(), {"--json", "-"});
    ToolRun r = run(tool, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json json = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << "stdout is not one JSON document: " << r.out;
    EXPECT_TRUE(json.is_object()) << r.out;
    // --json=FILE: the same document into the file; stdout holds the text report (if any).
    args = work_args(tool);
    args.push_back("--json=" + path("report.json"));
    r = run(tool, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto text = read_file(path("report.json"));
    UNIVK_ASSERT_OK(text);
    EXPECT_TRUE(nlohmann::json::parse(*text, nullptr, false).is_object()) << *text;
    fs::remove(path("report.json"));
  }
}

TEST_F(ToolsCli, OptEqualsValueIsOptSpaceValue) {
  Tool run_tool = tools()[0];
  ToolRun spaced = run(run_tool, {path("model.uvk"), "--random-inputs", "1", "--mode", "per_delegate", "--json", "-"});
  ToolRun equals = run(run_tool, {path("model.uvk"), "--random-inputs=1", "--mode=per_delegate", "--json=-"});
  ASSERT_EQ(spaced.exit_code, 0) << spaced.err;
  ASSERT_EQ(equals.exit_code, 0) << equals.err;
  EXPECT_EQ(nlohmann::json::parse(spaced.out)["mode"], "per_delegate");
  EXPECT_EQ(nlohmann::json::parse(equals.out)["mode"], "per_delegate");
  EXPECT_EQ(run(run_tool, {path("model.uvk"), "--random-inputs=1", "--mode=sideways"}).exit_code, 2);
}

TEST_F(ToolsCli, RunProfileAndTrace) {
  Tool run_tool = tools()[0];
  ToolRun r = run(run_tool, {path("model.uvk"), "--random-inputs=1", "--profile", "--trace=" + path("trace.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("profile of method 'forward'"), std::string::npos) << r.out;
  auto trace = read_file(path("trace.json"));
  UNIVK_ASSERT_OK(trace);
  const nlohmann::json json = nlohmann::json::parse(*trace, nullptr, false);
  ASSERT_TRUE(json.is_object()) << *trace;
  EXPECT_FALSE(json["traceEvents"].empty());
  fs::remove(path("trace.json"));
  // --json - keeps stdout one JSON document: the profile table is left out.
  r = run(run_tool, {path("model.uvk"), "--random-inputs=1", "--profile", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out, nullptr, false).is_object()) << r.out;
  EXPECT_EQ(run(run_tool, {path("model.uvk"), "--random-inputs=1", "--trace"}).exit_code, 2);
}

TEST_F(ToolsCli, UnknownDeviceExitsTwoNamingTheDevices) {
  for (const Tool& tool : tools()) {
    if (!tool.opens_device) continue;
    SCOPED_TRACE(tool.name);
    std::vector<std::string> args = work_args(tool);
    args.insert(args.end(), {"--device", "no-such-gpu"});
    ToolRun r = run(tool, args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--device no-such-gpu: no Vulkan device name contains 'no-such-gpu' (devices: 0: "),
              std::string::npos)
        << r.err;
    args = work_args(tool);
    args.push_back("--device=999");
    r = run(tool, args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("device index 999 out of range"), std::string::npos) << r.err;
  }
}

TEST_F(ToolsCli, DeviceByIndexOrNameRunsThere) {
  Tool run_tool = tools()[0];
  for (const std::string device : {"0", "llvmpipe"}) {
    ToolRun r = run(run_tool, {path("model.uvk"), "--random-inputs=1", "--device", device, "--json", "-"});
    if (r.exit_code == 2 && device == "llvmpipe") GTEST_SKIP() << "not lavapipe: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << device << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["all_match"], true);
  }
}

}  // namespace
}  // namespace univk
