// Files from outside the repository: other tools' outputs in ../shared/testdata (found through
// UNIVK_TEST_DATA, which CTest sets) and prebuilt tools in ../shared/third_party.
//
// A clone with nothing beside it must pass its tests, so a test that needs such a file skips,
// naming what is missing. CI sets UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1 (.ci/run), which turns that
// skip into a failure, so the tests still run there.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace univk::testing {

inline bool external_test_data_required() {
  const char* value = std::getenv("UNIVK_REQUIRE_EXTERNAL_TEST_DATA");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace univk::testing

// Skips the current test (or fails it under UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1) when `file_or_dir`,
// a file or folder from outside the repository, does not exist. Use in a TEST body or a void
// helper: like GTEST_SKIP, it returns from the enclosing function.
#define UNIVK_REQUIRE_EXTERNAL_FILE(file_or_dir)                                                   \
  do {                                                                                             \
    const std::filesystem::path univk_external_path_ = (file_or_dir);                              \
    if (!univk_external_path_.empty() && std::filesystem::exists(univk_external_path_)) break;     \
    if (::univk::testing::external_test_data_required()) {                                         \
      GTEST_FAIL() << "missing " << univk_external_path_                                           \
                   << " (a file from outside the repository; UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1)"; \
    }                                                                                              \
    GTEST_SKIP() << "skipped: " << univk_external_path_                                            \
                 << " is missing (a file from outside the repository, e.g. ../shared/testdata)";   \
  } while (0)
