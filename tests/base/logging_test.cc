#include "univk/base/logging.h"

#include <gtest/gtest.h>

namespace univk {
namespace {

int evaluations = 0;
int counted() { return ++evaluations; }

TEST(Logging, DisabledLevelDoesNotEvaluate) {
  LogLevel saved = log_level();
  set_log_level(LogLevel::kError);
  evaluations = 0;
  UNIVK_LOG(kDebug) << counted();
  EXPECT_EQ(evaluations, 0);
  EXPECT_FALSE(log_enabled(LogLevel::kInfo));
  set_log_level(LogLevel::kDebug);
  testing::internal::CaptureStderr();
  UNIVK_LOG(kDebug) << "hello " << counted();
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(evaluations, 1);
  EXPECT_NE(out.find("hello 1"), std::string::npos);
  set_log_level(saved);
}

}  // namespace
}  // namespace univk
