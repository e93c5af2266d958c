#include "univk/base/file_map.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include "univk_test.h"

namespace univk {
namespace {

TEST(MappedFile, MapsWholeFile) {
  std::string path = (std::filesystem::temp_directory_path() / "univk_file_map_test.bin").string();
  std::vector<uint8_t> bytes = {1, 2, 3, 4, 5};
  UNIVK_ASSERT_OK(write_file(path, bytes));
  auto file = MappedFile::open(path);
  UNIVK_ASSERT_OK(file);
  ASSERT_EQ(file->size(), 5u);
  EXPECT_EQ(file->bytes()[4], 5);
  MappedFile moved = std::move(file).value();
  EXPECT_EQ(moved.data()[0], 1);
  auto text = read_file(path);
  UNIVK_ASSERT_OK(text);
  EXPECT_EQ(text->size(), 5u);
  std::remove(path.c_str());
}

TEST(MappedFile, MissingFileIsNotFound) {
  auto file = MappedFile::open("/nonexistent/univk.bin");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
}

TEST(MappedFile, DirectoryIsInvalid) {
  auto file = MappedFile::open("/tmp");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
}

TEST(MappedFile, EmptyFile) {
  std::string path = (std::filesystem::temp_directory_path() / "univk_empty_test.bin").string();
  UNIVK_ASSERT_OK(write_file(path, {}));
  auto file = MappedFile::open(path);
  UNIVK_ASSERT_OK(file);
  EXPECT_EQ(file->size(), 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace univk
