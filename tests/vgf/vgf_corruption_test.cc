// Hostile input: every truncation and random byte corruptions of valid files are rejected with
// an error or decode to something self-consistent; nothing crashes (run under ASan in CI).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "external_data.h"
#include "univk/base/file_map.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::vgf {
namespace {

// univk's own encoding of the test model, plus Arm's sample files when ../shared is present.
std::vector<std::vector<uint8_t>> corpus() {
  std::vector<std::vector<uint8_t>> files;
  if (std::filesystem::exists(testing::sample_path(""))) {
    for (const char* name : {"single_maxpool_graph_pre_v0_4_0.vgf", "simple_conv2d_rescale_graph_outdated.vgf",
                             "simple_conv2d_rescale_graph_v0_4_3.vgf"}) {
      auto data = read_file(testing::sample_path(name));
      UNIVK_EXPECT_OK(data);
      if (data.ok()) files.emplace_back(data->begin(), data->end());
    }
  }
  VgfModel model = testing::make_model();
  model.segments[0].constant_bindings = {{0, 1}, {1, 0}};
  auto encoded = encode_vgf(model, k0_5_0);
  UNIVK_EXPECT_OK(encoded);
  if (encoded.ok()) files.push_back(*encoded);
  return files;
}

// A decoded file must only reference memory inside the input.
void expect_views_inside(const VgfFile& f, std::span<const uint8_t> bytes) {
  const uint8_t* lo = bytes.data();
  const uint8_t* hi = bytes.data() + bytes.size();
  for (const Constant& c : f.constants) {
    if (c.data().empty()) continue;
    EXPECT_TRUE(c.data().data() >= lo && c.data().data() + c.data().size() <= hi);
  }
  for (const Resource& r : f.resources) EXPECT_TRUE(r.strides.empty() || r.strides.size() == r.shape.size());
  UNIVK_EXPECT_OK(validate_vgf(f));
}

TEST(VgfCorruption, EveryTruncationIsRejected) {
  for (const auto& file : corpus()) {
    for (size_t len = 0; len < file.size(); ++len) {
      // Copy so that ASan sees the exact end of the truncated buffer.
      std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<ptrdiff_t>(len));
      auto r = decode_vgf(cut);
      ASSERT_FALSE(r.ok()) << "truncated at " << len << " of " << file.size();
      EXPECT_FALSE(r.status().message().empty());
    }
    UNIVK_EXPECT_OK(decode_vgf(file));
  }
  UNIVK_REQUIRE_EXTERNAL_FILE(testing::sample_path(""));
}

TEST(VgfCorruption, RandomCorruptionsAreSafe) {
  std::mt19937 rng(1234);
  size_t rejected = 0, accepted = 0;
  for (const auto& file : corpus()) {
    for (int round = 0; round < 3000; ++round) {
      std::vector<uint8_t> bad = file;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        const size_t at = rng() % bad.size();
        switch (rng() % 3) {
          case 0:
            bad[at] = static_cast<uint8_t>(rng());
            break;
          case 1:
            bad[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
          default:
            bad[at] = (rng() % 2) ? 0xff : 0x00;
            break;
        }
      }
      auto r = decode_vgf(bad);
      if (r.ok()) {
        ++accepted;
        expect_views_inside(*r, bad);
      } else {
        ++rejected;
        EXPECT_FALSE(r.status().message().empty());
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(accepted, 0u);  // corruptions of payload bytes are legitimately accepted
  UNIVK_REQUIRE_EXTERNAL_FILE(testing::sample_path(""));
}

TEST(VgfCorruption, HeaderErrorsNameTheProblem) {
  auto file = corpus().back();
  auto bad = file;
  bad[0] = 'X';
  auto r = decode_vgf(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("magic"), std::string::npos);

  bad = file;
  bad[9] = 6;  // minor 6
  r = decode_vgf(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);

  bad = file;
  const uint64_t huge = ~0ull - 8;
  std::memcpy(bad.data() + 16 + 16 * 2, &huge, 8);  // resource table offset overflows
  r = decode_vgf(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("model resource table"), std::string::npos) << r.status().message();

  // Legacy magic is accepted.
  bad = file;
  const uint32_t legacy = 0xF0E1D2C3u;
  std::memcpy(bad.data(), &legacy, 4);
  r = decode_vgf(bad);
  UNIVK_ASSERT_OK(r);
  EXPECT_TRUE(r->legacy_magic);
}

TEST(VgfCorruption, Const00BoundsAreChecked) {
  VgfModel model = testing::make_model();
  auto bytes = encode_vgf(model);
  UNIVK_ASSERT_OK(bytes);
  uint64_t const_off;
  std::memcpy(&const_off, bytes->data() + 64, 8);
  auto bad = *bytes;
  const uint64_t big = 1ull << 40;
  std::memcpy(bad.data() + const_off + 16 + 8, &big, 8);  // record 0 size
  auto r = decode_vgf(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("constants"), std::string::npos) << r.status().message();

  bad = *bytes;
  const uint64_t count = 1ull << 60;
  std::memcpy(bad.data() + const_off + 8, &count, 8);
  EXPECT_FALSE(decode_vgf(bad).ok());

  bad = *bytes;
  const int32_t sparsity = -5;
  std::memcpy(bad.data() + const_off + 16 + 4, &sparsity, 4);
  r = decode_vgf(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("sparsity"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace univk::vgf
