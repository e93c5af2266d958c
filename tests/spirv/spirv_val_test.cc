// The modules write_tosa_graph produces against an independent validator: spirv-val from
// ../shared/third_party (UNIVK_SPIRV_VAL; skipped without it, a failure under CI), for every
// supported operator and a multi-operator chain; a broken module fails it (so the check is not
// vacuous). Also the UNIVK_SPIRV_DUMP_DIR hook that lets the whole test suite's modules be
// validated (tests/spirv/validate_modules.cmake).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unistd.h>

#include "external_data.h"
#include "tosa_test_graphs.h"
#include "univk_test.h"

namespace univk::spirv {
namespace {

namespace fs = std::filesystem;

// A folder under the system temp folder, removed with its contents at scope exit.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("univk_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Sets an environment variable for the scope, restoring the previous value (CTest sets
// UNIVK_SPIRV_DUMP_DIR for the whole process).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void write_file(const fs::path& path, const std::vector<uint32_t>& words) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 4));
}

struct ValResult {
  int status = -1;
  std::string output;
};

// Runs spirv-val --target-env vulkan1.3 on `words`.
ValResult spirv_val(const std::string& tool, const std::vector<uint32_t>& words, const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path file = dir / "module.spv";
  write_file(file, words);
  const std::string command = "'" + tool + "' --target-env vulkan1.3 '" + file.string() + "' 2>&1";
  ValResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 512> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.output.append(buffer.data(), n);
  r.status = ::pclose(pipe);
  return r;
}

std::string spirv_val_path() {
  const char* path = std::getenv("UNIVK_SPIRV_VAL");
  return path ? path : "";
}

class SpirvVal : public ::testing::TestWithParam<TosaOp> {};

TEST_P(SpirvVal, SingleOperatorModuleIsValid) {
  UNIVK_REQUIRE_EXTERNAL_FILE(spirv_val_path());
  auto words = write_tosa_graph(testing::graph_for(GetParam()));
  UNIVK_ASSERT_OK(words);
  TempDir dir("spirv_val_op");
  const ValResult r = spirv_val(spirv_val_path(), *words, dir.path);
  EXPECT_EQ(r.status, 0) << r.output;
}

INSTANTIATE_TEST_SUITE_P(AllSupported, SpirvVal, ::testing::ValuesIn(supported_tosa_ops()),
                         [](const ::testing::TestParamInfo<TosaOp>& info) {
                           return std::string(tosa_op_name(info.param));
                         });

TEST(SpirvValModules, ChainWithConstantsIsValidAndOneWithoutItsCapabilityIsNot) {
  UNIVK_REQUIRE_EXTERNAL_FILE(spirv_val_path());
  TosaGraph g;
  const TosaTensorType t{DType::kFloat32, {1, 3, 8, 8}};
  ValueId x = g.add_input(t, 0, 0);
  Attributes mul;
  mul.set("shift", int64_t{0});
  ValueId sq = g.add_operation(TosaOp::kMul, {x, x}, mul, t);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, testing::f32_bytes({0.25f}));
  ValueId sum = g.add_operation(TosaOp::kAdd, {sq, c}, {}, t);
  ValueId k = g.add_graph_constant({DType::kFloat32, {1, 3, 8, 8}}, 0);
  ValueId out = g.add_operation(TosaOp::kSub, {sum, k}, {}, t);
  g.add_output(out, 0, 1);
  g.add_output(sq, 0, 2);
  auto words = write_tosa_graph(g);
  UNIVK_ASSERT_OK(words);
  TempDir dir("spirv_val_chain");
  ValResult r = spirv_val(spirv_val_path(), *words, dir.path);
  EXPECT_EQ(r.status, 0) << r.output;

  // Without its GraphARM capability (the last OpCapability the writer always emits).
  std::vector<uint32_t> broken = *words;
  constexpr uint16_t kOpCapability = 17;
  constexpr uint32_t kCapGraphArm = 4191;
  for (size_t at = 5; at + 1 < broken.size() && (broken[at] >> 16) != 0; at += broken[at] >> 16) {
    if ((broken[at] & 0xffff) == kOpCapability && broken[at + 1] == kCapGraphArm) {
      broken.erase(broken.begin() + static_cast<std::ptrdiff_t>(at),
                   broken.begin() + static_cast<std::ptrdiff_t>(at + 2));
      break;
    }
  }
  ASSERT_LT(broken.size(), words->size());
  r = spirv_val(spirv_val_path(), broken, dir.path);
  EXPECT_NE(r.status, 0) << "spirv-val accepted a graph module without the GraphARM capability";
}

TEST(SpirvDumpDir, WritesEachModuleOnceUnderItsHash) {
  TempDir dir("spirv_dump");
  ScopedEnv env("UNIVK_SPIRV_DUMP_DIR", (dir.path / "nested").string());
  auto add = write_tosa_graph(testing::graph_for(TosaOp::kAdd));
  UNIVK_ASSERT_OK(add);
  UNIVK_ASSERT_OK(write_tosa_graph(testing::graph_for(TosaOp::kAdd)));
  auto exp = write_tosa_graph(testing::graph_for(TosaOp::kExp));
  UNIVK_ASSERT_OK(exp);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir.path / "nested")) files.push_back(e.path());
  ASSERT_EQ(files.size(), 2u);
  int matched = 0;
  for (const fs::path& f : files) {
    EXPECT_EQ(f.extension(), ".spv");
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto* words : {&*add, &*exp}) {
      if (bytes.size() == words->size() * 4 && std::memcmp(bytes.data(), words->data(), bytes.size()) == 0) ++matched;
    }
  }
  EXPECT_EQ(matched, 2);
}

TEST(SpirvDumpDir, AnUnwritableFolderIsAnError) {
  TempDir dir("spirv_dump_bad");
  fs::create_directories(dir.path);
  const fs::path file = dir.path / "a_file";
  std::ofstream(file) << "x";
  ScopedEnv env("UNIVK_SPIRV_DUMP_DIR", (file / "sub").string());
  auto r = write_tosa_graph(testing::graph_for(TosaOp::kAdd));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("UNIVK_SPIRV_DUMP_DIR"), std::string::npos) << r.status().message();
}

TEST(SpirvDumpDir, EmptyMeansOff) {
  ScopedEnv env("UNIVK_SPIRV_DUMP_DIR", "");
  UNIVK_EXPECT_OK(write_tosa_graph(testing::graph_for(TosaOp::kAdd)));
}

}  // namespace
}  // namespace univk::spirv
