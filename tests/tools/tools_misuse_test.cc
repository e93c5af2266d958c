// The tools refuse bad inputs before reading them and report every failure in their exit status
// (label tools;misuse): a FIFO program or input path and /dev/zero fail at once, a huge sparse
// non-.npy file is refused without being read, a .npy header that declares more data than the
// file holds is refused before any allocation, one too large for the memory limit is a clear
// OutOfMemory, stdout on /dev/full is an error, every usage error exits 2, and --json never
// says "all_match": true after a failed load.
// Every tool runs as a child with a time limit (child_process.h), so a regression fails the
// test instead of hanging it; peak memory shows that nothing large was read or allocated.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "child_process.h"
#include "univk/npy/npy.h"
#include "univk/base/file_map.h"
#include "univk/compiler/compiler.h"
#include "univk_test.h"

namespace univk {
namespace {

namespace fs = std::filesystem;
using testing::ChildResult;
using testing::run_child;

constexpr std::chrono::seconds kLimit{120};
// Far below the 4 GiB the big files below would need if read or allocated.
constexpr long kSmallRssKib = 1024 * 1024;

// Sanitizer runtimes reserve terabytes of address space, so RLIMIT_AS cannot be used there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kCanLimitAddressSpace = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kCanLimitAddressSpace = false;
#else
constexpr bool kCanLimitAddressSpace = true;
#endif
#else
constexpr bool kCanLimitAddressSpace = true;
#endif

// Writes a sparse .npy file (holes, no disk space) whose header declares `count` float32
// values and whose size matches; returns where the data starts (0 when the file cannot be made).
size_t write_sparse_npy(const std::string& path, int64_t count) {
  std::vector<uint8_t> bytes = npy::encode_npy(HostTensor(DType::kFloat32, Shape{1}));
  std::string text(bytes.begin(), bytes.end() - 4);  // the header alone
  const std::string small = "(1,)", big = "(" + std::to_string(count) + ",)";
  text.replace(text.find(small), small.size(), big);
  text.erase(text.find('\n') - (big.size() - small.size()), big.size() - small.size());  // keep the length
  if (!write_file(path, std::vector<uint8_t>(text.begin(), text.end())).ok()) return 0;
  return ::truncate(path.c_str(), static_cast<off_t>(text.size() + count * 4)) == 0 ? text.size() : 0;
}

class ToolsMisuse : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("univk_tools_misuse_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    compiler::Graph g;
    const compiler::ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 3, 4, 4}).value();
    UNIVK_ASSERT_OK(g.add_output(g.add_node_inferred("relu", "relu", {}, {x}).value()));
    auto compiled = compiler::compile_program(g, {});
    UNIVK_ASSERT_OK(compiled);
    UNIVK_ASSERT_OK(write_file(path("model.uvk"), compiled->bytes));
    UNIVK_ASSERT_OK(npy::write_npy(path("input.npy"), HostTensor(DType::kFloat32, Shape{1, 3, 4, 4})));
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }

  // Runs `tool` with `args`; fails the test when it ran into the time limit.
  static ChildResult run(const char* tool, std::vector<std::string> args, const std::string& stdout_path = "") {
    args.insert(args.begin(), tool);
    ChildResult r = run_child(args, kLimit, stdout_path);
    EXPECT_FALSE(r.timed_out) << tool << " did not finish within " << kLimit.count() << " s: " << r.output;
    return r;
  }
  static ChildResult run_tool(std::vector<std::string> args, const std::string& stdout_path = "",
                              uint64_t address_space_bytes = 0) {
    args.insert(args.begin(), UNIVK_RUN_PATH);
    ChildResult r = run_child(args, kLimit, stdout_path, address_space_bytes);
    EXPECT_FALSE(r.timed_out) << "univk-run did not finish within " << kLimit.count() << " s: " << r.output;
    return r;
  }

  static fs::path* dir_;
};
fs::path* ToolsMisuse::dir_ = nullptr;

void expect_output(const ChildResult& r, const std::string& part) {
  EXPECT_NE(r.output.find(part), std::string::npos) << "'" << part << "' missing in: " << r.output;
}

TEST_F(ToolsMisuse, FifoProgramPathFailsAtOnce) {
  ChildResult r = run_tool({path("fifo"), "--random-inputs", "1"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "not a regular file: " + path("fifo") + " (a FIFO)");
#ifdef UNIVK_DUMP_PATH
  r = run(UNIVK_DUMP_PATH, {path("fifo")});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_output(r, "(a FIFO)");
#endif
#ifdef UNIVK_BENCH_PATH
  r = run(UNIVK_BENCH_PATH, {path("fifo")});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "(a FIFO)");
#endif
}

TEST_F(ToolsMisuse, FifoAndDeviceInputsFailAtOnce) {
  ChildResult r = run_tool({path("model.uvk"), "--input", path("fifo")});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "not a regular file: " + path("fifo") + " (a FIFO)");
  r = run_tool({path("model.uvk"), "--input", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "not a regular file: /dev/zero (a character device)");
  EXPECT_LT(r.max_rss_kib, kSmallRssKib);
  r = run_tool({path("model.uvk"), "--input", path("input.npy"), "--reference", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "/dev/zero (a character device)");
}

TEST_F(ToolsMisuse, HugeSparseNonNpyIsRefusedUnread) {
  const std::string huge = path("huge.bin");
  {
    const int fd = ::open(huge.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t{5} << 30), 0);  // 5 GiB of holes: no disk space used
    ::close(fd);
  }
  ChildResult r = run_tool({path("model.uvk"), "--input", huge});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "bad magic");
  EXPECT_LT(r.max_rss_kib, kSmallRssKib) << "the file was read";
  fs::remove(huge);
}

TEST_F(ToolsMisuse, NpyDeclaringMoreDataThanTheFileHasIsRefused) {
  // A valid header for 2^30 float32 values (4 GiB), then the file cut 16 bytes into the data.
  const size_t data_offset = write_sparse_npy(path("liar.npy"), int64_t{1} << 30);
  ASSERT_NE(data_offset, 0u);
  ASSERT_EQ(::truncate(path("liar.npy").c_str(), static_cast<off_t>(data_offset + 16)), 0);
  ChildResult r = run_tool({path("model.uvk"), "--input", path("liar.npy")});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "needs 4294967296 data bytes, the file has 16");
  EXPECT_LT(r.max_rss_kib, kSmallRssKib) << "the declared data was allocated";
  auto in_process = npy::read_npy(path("liar.npy"));
  EXPECT_EQ(in_process.status().code(), StatusCode::kInvalidArgument) << in_process.status().to_string();
}

// A well-formed .npy whose data does not fit under a memory limit: a clear OutOfMemory error,
// not an abort on std::bad_alloc.
TEST_F(ToolsMisuse, NpyLargerThanTheMemoryLimitIsOutOfMemory) {
  if (!kCanLimitAddressSpace) GTEST_SKIP() << "sanitizer build: no address space limit";
  const int64_t count = int64_t{5} << 28;  // 5 GiB of float32
  ASSERT_NE(write_sparse_npy(path("big.npy"), count), 0u);
  ChildResult r = run_tool({path("model.uvk"), "--input", path("big.npy")}, "", uint64_t{3} << 30);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "OutOfMemory");
  expect_output(r, "cannot allocate " + std::to_string(count * 4) + " bytes");
  fs::remove(path("big.npy"));
}

TEST_F(ToolsMisuse, UnwritableStdoutIsAFailure) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  const std::vector<std::string> run_args = {path("model.uvk"), "--input", path("input.npy")};
  EXPECT_EQ(run_tool(run_args, path("out.txt")).exit_code, 0);
  ChildResult r = run_tool(run_args, "/dev/full");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "univk-run: cannot write standard output");
  std::vector<std::string> json_args = run_args;
  json_args.insert(json_args.end(), {"--json", "-"});
  EXPECT_EQ(run_tool(json_args, "/dev/full").exit_code, 3);
  EXPECT_EQ(run_tool({"--help"}, "/dev/full").exit_code, 3);
  // An output file on a full device.
  r = run_tool({path("model.uvk"), "--input", path("input.npy"), "--json", "/dev/full"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
#ifdef UNIVK_DUMP_PATH
  EXPECT_EQ(run(UNIVK_DUMP_PATH, {path("model.uvk")}, path("dump.json")).exit_code, 0);
  r = run(UNIVK_DUMP_PATH, {path("model.uvk")}, "/dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_output(r, "univk-dump: cannot write standard output");
  EXPECT_NE(run(UNIVK_DUMP_PATH, {"--help"}, "/dev/full").exit_code, 0);
#endif
#ifdef UNIVK_DEVICES_PATH
  r = run(UNIVK_DEVICES_PATH, {}, "/dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_output(r, "univk-devices: cannot write standard output");
  EXPECT_NE(run(UNIVK_DEVICES_PATH, {"--help"}, "/dev/full").exit_code, 0);
#endif
#ifdef UNIVK_BENCH_PATH
  r = run(UNIVK_BENCH_PATH,
          {path("model.uvk"), "--iterations", "1", "--warmup", "0", "--round-trips", "1", "--copy-mib", "1",
           "--copy-iterations", "1", "--gpu-warmup-ms", "0", "--no-gpu-time"},
          "/dev/full");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  expect_output(r, "univk-bench: cannot write standard output");
  EXPECT_NE(run(UNIVK_BENCH_PATH, {"--help"}, "/dev/full").exit_code, 0);
#endif
}

TEST_F(ToolsMisuse, UsageErrorsExitTwo) {
  const std::string model = path("model.uvk"), input = path("input.npy");
  const std::vector<std::vector<std::string>> cases = {
      {model, "--input", input, "--mode", "bogus"},
      {model, "--input", input, "--shared-mode", "sometimes"},
      {model, "--input", input, "--atol", "nan"},
      {model, "--input", input, "--atol", "inf"},
      {model, "--input", input, "--atol", "-1e-3"},
      {model, "--input", input, "--rtol", "-nan"},
      {model, "--input", input, "--rtol", "-0.5"},
      {model, "--input", input, "--rtol", "1e999"},
      {model},                                                                // the method's input is missing
      {model, "--input", input, "--input", input},                            // one input too many
      {model, "--input", input, "--reference", input, "--reference", input},  // one output only
  };
  for (const auto& args : cases) {
    ChildResult r = run_tool(args);
    std::string line;
    for (const auto& a : args) line += " " + a;
    EXPECT_EQ(r.exit_code, 2) << line << ": " << r.output;
  }
  ChildResult r = run_tool({model, "--input", input, "--option", "max_bindng_bytes=64"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  expect_output(r, "unknown runtime option 'max_bindng_bytes'");
  expect_output(r, "vulkan_shared_context_mode");
#ifdef UNIVK_DUMP_PATH
  EXPECT_EQ(run(UNIVK_DUMP_PATH, {"--bogus", model}).exit_code, 2);
  EXPECT_EQ(run(UNIVK_DUMP_PATH, {}).exit_code, 2);
#endif
#ifdef UNIVK_DEVICES_PATH
  r = run(UNIVK_DEVICES_PATH, {"--bogus"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  expect_output(r, "The following argument was not expected: --bogus");
#endif
#ifdef UNIVK_BENCH_PATH
  EXPECT_EQ(run(UNIVK_BENCH_PATH, {model, "--mode", "bogus"}).exit_code, 2);
  r = run(UNIVK_BENCH_PATH, {model, "--option", "bogus_key=1"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  expect_output(r, "unknown runtime option 'bogus_key'");
#endif
}

TEST_F(ToolsMisuse, JsonReportOfAFailedLoadDoesNotMatch) {
  const std::string json = path("failed.json");
  ChildResult r =
      run_tool({path("model.uvk"), "--input", path("input.npy"), "--option",
                "vulkan_shared_context_name=nobody_registered_this", "--shared-mode", "lookup_only", "--json", json});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  auto report = read_file(json);
  UNIVK_ASSERT_OK(report);
  EXPECT_NE(report->find("\"all_match\": false"), std::string::npos) << *report;
  EXPECT_NE(report->find("\"ok\": false"), std::string::npos) << *report;
  EXPECT_NE(report->find("lookup_only"), std::string::npos) << *report;
}

}  // namespace
}  // namespace univk
