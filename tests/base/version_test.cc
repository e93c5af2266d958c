// univk::version() is the library's version: the one in VERSION, as config.h spells it.
#include "univk/base/version.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "univk/config.h"

namespace univk {
namespace {

TEST(Version, MatchesTheVersionFile) {
  std::ifstream file(UNIVK_SOURCE_DIR "/VERSION");
  std::string expected;
  ASSERT_TRUE(std::getline(file, expected));
  EXPECT_EQ(version_string(), expected);
  EXPECT_EQ(version_string(), UNIVK_VERSION_STRING);
  const Version v = version();
  EXPECT_EQ(std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch), expected);
}

}  // namespace
}  // namespace univk
