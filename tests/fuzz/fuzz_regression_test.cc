// Replays tests/fuzz/inputs/<fuzzer>/* through the fuzz targets (fuzz/fuzz_targets.h): each
// input, and every truncation of it, must parse or fail with a message; no crash, no sanitizer
// report (CI runs this under ASan+UBSan). Inputs named crash-* reproduce bugs the fuzzers found
// (docs/RELIABILITY.md lists them); the others are small corpus entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "univk/config.h"
#include "univk/base/file_map.h"
#include "univk_test.h"

namespace univk::fuzz {
namespace {

namespace fs = std::filesystem;

using Target = std::function<Status(std::span<const uint8_t>)>;

std::vector<fs::path> inputs_of(const std::string& fuzzer) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(UNIVK_FUZZ_INPUTS) / fuzzer;
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void replay(const std::string& fuzzer, const Target& target) {
  const std::vector<fs::path> files = inputs_of(fuzzer);
  ASSERT_FALSE(files.empty()) << "no committed inputs for " << fuzzer;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    auto text = read_file(path.string());
    UNIVK_ASSERT_OK(text);
    const std::vector<uint8_t> bytes(text->begin(), text->end());
    Status status = target(bytes);
    if (!status.ok()) {
      EXPECT_FALSE(status.message().empty());
    }
    // Every truncation (at most ~512 of them per input) is rejected with a message or parses.
    const size_t step = std::max<size_t>(1, bytes.size() / 512);
    for (size_t size = 0; size < bytes.size(); size += step) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
      Status truncated = target(prefix);
      if (!truncated.ok()) {
        EXPECT_FALSE(truncated.message().empty()) << "truncated to " << size;
      }
    }
  }
}

TEST(FuzzRegression, ProgramLoader) { replay("program_loader_fuzzer", program_loader); }

#if UNIVK_BUILD_VGF
TEST(FuzzRegression, VgfDecoder) { replay("vgf_decoder_fuzzer", vgf_decoder); }
TEST(FuzzRegression, SpirvGraph) { replay("spirv_graph_fuzzer", spirv_graph); }
#endif

#if UNIVK_BUILD_VULKAN_BACKEND
TEST(FuzzRegression, ComputeGraph) { replay("compute_graph_fuzzer", compute_graph); }
#endif

TEST(FuzzRegression, NpyReader) { replay("npy_reader_fuzzer", npy_reader); }

}  // namespace
}  // namespace univk::fuzz
