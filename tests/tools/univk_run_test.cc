// univk-run on the mixed VGF/Vulkan example (built here with the C++ compiler, reference from
// the CPU kernels): exit codes for a match, a mismatch, bad .npy files and bad command lines;
// the JSON report; outputs written as .npy.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "univk/npy/npy.h"
#include "univk/base/file_map.h"
#include "univk/compiler/compiler.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// The tool runs with LeakSanitizer off (in sanitizer builds): the Vulkan loader unloads lavapipe
// and the validation layer at vkDestroyInstance, so their allocations show up as leaks from an
// unknown module that no suppression can name. The same load/run/destroy path is leak-checked
// in-process by the fault and program tests, whose test main keeps those libraries resident.
RunResult run_tool(const std::string& args, const char* tool = UNIVK_RUN_PATH) {
  const std::string command =
      "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " + std::string(tool) + " " + args + " 2>&1";
  RunResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class UnivkRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("univk_run_test_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    // y = sigmoid(avg_pool2d(x, 2)); out = y * y + 0.25, as VgfBackend -> VulkanBackend -> VgfBackend.
    compiler::Graph g;
    const compiler::ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}).value();
    Attributes pool;
    pool.set("kernel_size", std::vector<int64_t>{2, 2});
    const compiler::ValueId p = g.add_node_inferred("avg_pool2d", "avg_pool2d", pool, {x}).value();
    const compiler::ValueId s = g.add_node_inferred("sigmoid", "sigmoid", {}, {p}).value();
    const compiler::ValueId m = g.add_node_inferred("mul", "mul", {}, {s, s}).value();
    Attributes add;
    add.set("other", 0.25);
    const compiler::ValueId a = g.add_node_inferred("add", "add", add, {m}).value();
    UNIVK_ASSERT_OK(g.add_output(a));
    compiler::CompileOptions options;
    options.partition.pins = {{"sigmoid", "VulkanBackend"}};
    auto compiled = compiler::compile_program(g, options);
    UNIVK_ASSERT_OK(compiled);
    UNIVK_ASSERT_OK(write_file(path("model.uvk"), compiled->bytes));

    // A program with a CPU kernel call (a reflect pad, which TOSA's constant PAD cannot express,
    // with only the VgfBackend in the order).
    compiler::Graph h;
    const compiler::ValueId hx = h.add_input("x", DType::kFloat32, Shape{2, 3}).value();
    Attributes reflect;
    reflect.set("pad", std::vector<int64_t>{1, 1});
    reflect.set("mode", std::string("reflect"));
    const compiler::ValueId hs = h.add_node_inferred("pad", "pad", reflect, {hx}).value();
    UNIVK_ASSERT_OK(h.add_output(h.add_node_inferred("relu", "relu", {}, {hs}).value()));
    compiler::CompileOptions vgf_only;
    vgf_only.partition.order = {"VgfBackend"};
    auto with_cpu = compiler::compile_program(h, vgf_only);
    UNIVK_ASSERT_OK(with_cpu);
    UNIVK_ASSERT_OK(write_file(path("cpu.uvk"), with_cpu->bytes));

    HostTensor input(DType::kFloat32, Shape{1, 3, 8, 8});
    std::mt19937 rng(3);
    std::normal_distribution<float> dist;
    for (float& v : input.data<float>()) v = dist(rng);
    UNIVK_ASSERT_OK(npy::write_npy(path("input.npy"), input));
    // The reference: the same model on the CPU reference kernels.
    HostTensor v = input;
    for (const compiler::Node& n : g.nodes()) {
      const std::vector<HostTensor> in(n.inputs.size(), v);  // each node reads the previous result
      auto out = reference::run_op(n.op, n.attrs, in);
      UNIVK_ASSERT_OK(out);
      v = (*out)[0];
    }
    UNIVK_ASSERT_OK(npy::write_npy(path("expected.npy"), v));
    HostTensor wrong = v;
    wrong.data<float>()[5] += 0.01f;
    UNIVK_ASSERT_OK(npy::write_npy(path("wrong.npy"), wrong));
    UNIVK_ASSERT_OK(npy::write_npy(path("wrong_shape.npy"), HostTensor(DType::kFloat32, Shape{1, 3, 4, 5})));
    std::vector<uint8_t> bad = npy::encode_npy(input);
    bad[1] = 'X';
    UNIVK_ASSERT_OK(write_file(path("bad_magic.npy"), bad));
    std::vector<uint8_t> truncated = npy::encode_npy(input);
    truncated.resize(truncated.size() - 4);
    UNIVK_ASSERT_OK(write_file(path("truncated.npy"), truncated));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static std::string model_args() { return path("model.uvk") + " --input " + path("input.npy"); }

  static fs::path* dir_;
};
fs::path* UnivkRun::dir_ = nullptr;

TEST_F(UnivkRun, MatchingReferenceExitsZeroAndReportsDevices) {
  for (const char* mode : {"per_delegate", "auto"}) {
    SCOPED_TRACE(mode);
    const std::string json = path(std::string("report_") + mode + ".json");
    RunResult r = run_tool(model_args() + " --reference " + path("expected.npy") + " --mode " + mode +
                           " --require-no-cpu-fallback --repeat 2 --json " + json);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("VgfBackend"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("VulkanBackend"), std::string::npos);
    EXPECT_NE(r.output.find("VkDevice 0x"), std::string::npos);
    EXPECT_NE(r.output.find("match"), std::string::npos);
    EXPECT_EQ(r.output.find("VUID"), std::string::npos) << "validation messages: " << r.output;
    auto text = read_file(json);
    UNIVK_ASSERT_OK(text);
    const nlohmann::json report = nlohmann::json::parse(*text);
    EXPECT_EQ(report["single_device_and_queue"], true) << *text;
    EXPECT_EQ(report["cpu_operators"], 0);
    EXPECT_EQ(report["all_match"], true);
    std::vector<std::string> backends;
    for (const auto& call : report["delegate_calls"]) backends.push_back(call["backend"]);
    EXPECT_EQ(backends, (std::vector<std::string>{"VgfBackend", "VulkanBackend", "VgfBackend"}));
    // Each VgfBackend call says how its graphs ran (lavapipe without Arm's emulation layer:
    // lowered); the VulkanBackend's has no graph path.
    for (const auto& call : report["delegate_calls"]) {
      if (call["backend"] == "VgfBackend") {
        EXPECT_EQ(call["graph_path"], "lowered") << *text;
      } else {
        EXPECT_FALSE(call.contains("graph_path")) << *text;
      }
    }
    EXPECT_NE(r.output.find("graph path lowered"), std::string::npos) << r.output;
    // --repeat 2: the cold first run apart from the one steady-state run after it.
    EXPECT_NE(r.output.find("the 1 run(s) after it: p50 "), std::string::npos) << r.output;
    EXPECT_EQ(report["timings_ms"]["repeat"], 2);
    EXPECT_EQ(report["timings_ms"]["steady_runs"], 1);
    EXPECT_TRUE(report["timings_ms"]["steady_p50"].is_number()) << *text;
  }
}

// The mode says why it was chosen, and a private device (vulkan_shared_context_mode=disabled)
// is shown as such, not as the key default/0 that no registry entry holds.
TEST_F(UnivkRun, ReportsTheModeReasonAndPrivateDevices) {
  RunResult shared = run_tool(model_args() + " --json " + path("shared.json"));
  EXPECT_EQ(shared.exit_code, 0) << shared.output;
  EXPECT_NE(
      shared.output.find(", mode fused (auto: every delegate is on one device and no operator runs on the CPU)\n"),
      std::string::npos)
      << shared.output;
  EXPECT_NE(shared.output.find(" device default/0  VkDevice "), std::string::npos) << shared.output;
  auto shared_text = read_file(path("shared.json"));
  UNIVK_ASSERT_OK(shared_text);
  const nlohmann::json shared_report = nlohmann::json::parse(*shared_text);
  for (const auto& call : shared_report["delegate_calls"]) {
    EXPECT_EQ(call["device_key"], "default/0") << *shared_text;
    EXPECT_EQ(call["standalone_device"], false);
    EXPECT_TRUE(call["load_ms"].is_number());
    EXPECT_TRUE(call["pipelines_compiled"].is_number_unsigned());
  }

  RunResult own = run_tool(model_args() + " --shared-mode disabled --json " + path("private.json"));
  EXPECT_EQ(own.exit_code, 0) << own.output;
  // Each delegate has its own device, so auto cannot fuse, and says so.
  EXPECT_NE(own.output.find(", mode per_delegate (auto: its delegates use more than one device)\n"), std::string::npos)
      << own.output;
  EXPECT_NE(own.output.find(" device private  VkDevice "), std::string::npos) << own.output;
  EXPECT_EQ(own.output.find("default/0"), std::string::npos) << own.output;
  auto own_text = read_file(path("private.json"));
  UNIVK_ASSERT_OK(own_text);
  const nlohmann::json own_report = nlohmann::json::parse(*own_text);
  EXPECT_EQ(own_report["mode_reason"], "auto: its delegates use more than one device") << *own_text;
  for (const auto& call : own_report["delegate_calls"]) {
    EXPECT_TRUE(call["device_key"].is_null()) << *own_text;
    EXPECT_EQ(call["standalone_device"], true);
  }

  RunResult requested = run_tool(model_args() + " --mode per_delegate");
  EXPECT_NE(requested.output.find(", mode per_delegate (requested)\n"), std::string::npos) << requested.output;
}

TEST_F(UnivkRun, OneRunReportsItAsCold) {
  RunResult r = run_tool(model_args() + " --json " + path("one_run.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(one cold run; --repeat N adds steady-state runs)"), std::string::npos) << r.output;
  auto report = read_file(path("one_run.json"));
  UNIVK_ASSERT_OK(report);
  EXPECT_EQ(report->find("steady"), std::string::npos) << *report;
}

TEST_F(UnivkRun, MismatchExitsOne) {
  RunResult r = run_tool(model_args() + " --reference " + path("wrong.npy"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("MISMATCH"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 elements differ, first at 5"), std::string::npos) << r.output;
  // --quiet drops the report, not the reason for the exit status.
  r = run_tool(model_args() + " --reference " + path("wrong.npy") + " --quiet");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("output 0 reference " + path("wrong.npy") + ": MISMATCH"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("time: load"), std::string::npos) << r.output;
  r = run_tool(model_args() + " --reference " + path("wrong.npy") + " --atol 0.1");
  EXPECT_EQ(r.exit_code, 0) << r.output;  // within a looser tolerance
  r = run_tool(model_args() + " --reference " + path("wrong_shape.npy"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("reference is float32[1,3,4,5]"), std::string::npos) << r.output;
}

TEST_F(UnivkRun, BadNpyFilesFailWithTheReason) {
  RunResult r = run_tool(path("model.uvk") + " --input " + path("bad_magic.npy"));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("bad magic"), std::string::npos) << r.output;
  r = run_tool(path("model.uvk") + " --input " + path("truncated.npy"));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("data bytes"), std::string::npos) << r.output;
  r = run_tool(model_args() + " --reference " + path("truncated.npy"));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  r = run_tool(path("model.uvk") + " --input " + path("wrong_shape.npy"));
  EXPECT_EQ(r.exit_code, 3) << r.output;  // the method rejects the input shape
  EXPECT_NE(r.output.find("input 0"), std::string::npos) << r.output;
}

TEST_F(UnivkRun, RandomInputsAndOutputFiles) {
  const std::string out_dir = path("outputs");
  RunResult r = run_tool(path("model.uvk") + " --random-inputs 7 --output-dir " + out_dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto out = npy::read_npy(out_dir + "/output_0.npy");
  UNIVK_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (Shape{1, 3, 4, 4}));
  for (float v : out->data<float>()) {  // sigmoid(..)^2 + 0.25 lies in (0.25, 1.25)
    EXPECT_GT(v, 0.25f);
    EXPECT_LT(v, 1.25f);
  }
}

TEST_F(UnivkRun, CpuOperatorsAreReportedOrRefused) {
  RunResult r = run_tool(path("cpu.uvk") + " --random-inputs 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("CPU operator pad"), std::string::npos) << r.output;
  r = run_tool(path("cpu.uvk") + " --random-inputs 1 --require-no-cpu-fallback");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("pad"), std::string::npos) << r.output;
}

TEST_F(UnivkRun, BadCommandLinesExitTwo) {
  EXPECT_EQ(run_tool("").exit_code, 2);
  EXPECT_EQ(run_tool(model_args() + " --bogus").exit_code, 2);
  EXPECT_EQ(run_tool(model_args() + " --repeat 0").exit_code, 2);
  EXPECT_EQ(run_tool(model_args() + " --atol -1").exit_code, 2);
  EXPECT_EQ(run_tool(model_args() + " --random-inputs 1").exit_code, 2);  // both input sources
  EXPECT_EQ(run_tool(path("missing.uvk") + " --random-inputs 1").exit_code, 3);
  EXPECT_EQ(run_tool(path("model.uvk") + " --random-inputs 1 --mode sideways").exit_code, 2);
}

#ifdef UNIVK_BENCH_PATH
// univk-bench on the same program: every floor is in the JSON report (0, 1 and 3 dispatches, the
// transfer and the shader copy), the fused method's IO placement and its in-place (zero-copy)
// latency are reported, and a bad
// --gpu-warmup-ms is a command-line error. No timing is checked.
TEST_F(UnivkRun, BenchReportsEveryFloor) {
  RunResult r = run_tool(path("model.uvk") +
                             " --iterations 2 --warmup 0 --round-trips 2 --copy-mib 1 --copy-iterations 1"
                             " --gpu-warmup-ms 0 --json " +
                             path("bench.json"),
                         UNIVK_BENCH_PATH);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("floor      empty submit+wait"), std::string::npos) << r.output;  // the text report
  auto text = read_file(path("bench.json"));
  UNIVK_ASSERT_OK(text);
  const nlohmann::json bench = nlohmann::json::parse(*text);
  const auto& floors = bench["floors"];
  ASSERT_EQ(floors["dispatches"].size(), 3u) << *text;
  EXPECT_EQ(floors["dispatches"][0]["dispatches"], 0);
  EXPECT_EQ(floors["dispatches"][1]["dispatches"], 1);
  EXPECT_EQ(floors["dispatches"][2]["dispatches"], 3);
  EXPECT_TRUE(floors["copy"]["transfer_gb_s"].is_number()) << *text;
  EXPECT_EQ(floors["copy"]["shader_bytes"], 1048576);
  EXPECT_TRUE(floors["copy"]["shader_gb_s"].is_number()) << *text;
  EXPECT_TRUE(bench["fused"]["host_outputs"].is_boolean()) << *text;
  EXPECT_EQ(bench["mode"], "fused");
  EXPECT_EQ(bench["zero_copy_latency_us"]["count"], 2);
  EXPECT_EQ(bench["io"]["zero_copy"], true);
  EXPECT_EQ(run_tool(path("model.uvk") + " --gpu-warmup-ms soon", UNIVK_BENCH_PATH).exit_code, 2);
}
#endif

}  // namespace
}  // namespace univk
