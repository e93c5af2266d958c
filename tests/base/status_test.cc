#include "univk/base/status.h"

#include <gtest/gtest.h>
#include "univk_test.h"

namespace univk {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return invalid_argument("value must be positive, got " + std::to_string(v));
  return v;
}

Result<int> doubled(int v) {
  UNIVK_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

Status check_both(int a, int b) {
  UNIVK_RETURN_IF_ERROR(parse_positive(a).status());
  UNIVK_RETURN_IF_ERROR(parse_positive(b).status().with_context("second"));
  return ok_status();
}

TEST(Status, CodesAndMessages) {
  UNIVK_EXPECT_OK(ok_status());
  Status s = not_found("key default/0");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.to_string(), "NotFound: key default/0");
  EXPECT_EQ(s.with_context("lookup").message(), "lookup: key default/0");
  EXPECT_STREQ(status_code_name(StatusCode::kOutOfMemory), "OutOfMemory");
}

TEST(Result, PropagatesValueAndError) {
  auto ok = doubled(4);
  UNIVK_ASSERT_OK(ok);
  EXPECT_EQ(*ok, 8);
  auto bad = doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("-1"), std::string::npos);
}

TEST(Result, ReturnIfErrorAddsContext) {
  UNIVK_EXPECT_OK(check_both(1, 2));
  Status s = check_both(1, 0);
  EXPECT_EQ(s.message(), "second: value must be positive, got 0");
}

TEST(Result, OkStatusWithoutValueIsInternalError) {
  Result<int> r{Status()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace univk

#include <cmath>

#include "univk/base/json.h"

namespace univk {
namespace {

TEST(Json, QuotesAndNumbers) {
  EXPECT_EQ(json_quote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(json_number(0.5), "0.5");
  EXPECT_EQ(json_number(1.0 / 3.0, 3), "0.333");
  EXPECT_EQ(json_number(std::nan("")), "null");
}

}  // namespace
}  // namespace univk
