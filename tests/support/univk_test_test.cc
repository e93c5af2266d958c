// The shared test helpers (univk_test.h): status assertions, the generator and the comparator.
#include "univk_test.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>

namespace univk::testing {
namespace {

TEST(UnivkTestHelpers, StatusAssertionsPrintTheStatus) {
  UNIVK_EXPECT_OK(ok_status());
  UNIVK_EXPECT_OK(Result<int>(3));
  EXPECT_NONFATAL_FAILURE(UNIVK_EXPECT_OK(invalid_argument("bad axis")), "InvalidArgument: bad axis");
  EXPECT_NONFATAL_FAILURE(UNIVK_EXPECT_OK(Result<int>(not_found("no such file"))), "NotFound: no such file");
  EXPECT_FATAL_FAILURE(UNIVK_ASSERT_OK(unsupported("int64")) << "context", "context");
}

void assign_or_fail(Result<int> r, int* out) { UNIVK_ASSIGN_OR_FAIL(*out, std::move(r)); }

TEST(UnivkTestHelpers, AssignOrFail) {
  int v = 0;
  assign_or_fail(Result<int>(7), &v);
  EXPECT_EQ(v, 7);
  EXPECT_FATAL_FAILURE(
      {
        int w = 0;
        assign_or_fail(Result<int>(internal_error("broken")), &w);
      },
      "Internal: broken");
}

TEST(UnivkTestHelpers, GeneratorIsSeededAndInRange) {
  const HostTensor a = random_tensor(DType::kFloat32, Shape{3, 7}, 1, -0.5, 0.5);
  EXPECT_TRUE(tensors_close(a, random_tensor(DType::kFloat32, Shape{3, 7}, 1, -0.5, 0.5)));
  EXPECT_FALSE(tensors_close(a, random_tensor(DType::kFloat32, Shape{3, 7}, 2, -0.5, 0.5)));
  for (float v : a.data<float>()) EXPECT_TRUE(v >= -0.5f && v < 0.5f) << v;
  const HostTensor i8 = random_tensor(DType::kInt8, Shape{300}, 3, -3, 3);
  for (int8_t v : i8.data<int8_t>()) EXPECT_TRUE(v >= -3 && v <= 3) << int{v};
  const HostTensor i32 = random_tensor(DType::kInt32, Shape{300}, 4);
  for (int32_t v : i32.data<int32_t>()) EXPECT_TRUE(v >= -1000 && v <= 1000) << v;
  const HostTensor f16 = random_tensor(DType::kFloat16, Shape{300}, 5);
  for (uint16_t h : f16.data<uint16_t>()) EXPECT_LE(std::fabs(half_to_float(h)), 2.0f);
}

TEST(UnivkTestHelpers, ComparatorReportsTheWorstElementAndNaNs) {
  HostTensor want = HostTensor::from_floats(Shape{2, 3}, std::vector<float>{0, 1, 2, 3, NAN, 5});
  HostTensor got = want;
  EXPECT_TRUE(tensors_close(got, want));  // NaN matches NaN
  got.data<float>()[1] = 1.0001f;
  got.data<float>()[5] = 5.5f;
  EXPECT_TRUE(tensors_close(got, want, {0.6, 0}));
  ::testing::AssertionResult r = tensors_close(got, want, {1e-3, 0});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("1 of 6 elements"), std::string::npos) << r.message();
  EXPECT_NE(std::string(r.message()).find("worst at 5 [1,2]: got 5.5, want 5"), std::string::npos) << r.message();
  got.data<float>()[4] = 1.0f;
  r = tensors_close(got, want, {1, 0});
  EXPECT_NE(std::string(r.message()).find("(1 NaN mismatches)"), std::string::npos) << r.message();
  EXPECT_FALSE(tensors_close(got, HostTensor(DType::kFloat32, Shape{6})));  // shapes differ
}

TEST(UnivkTestHelpers, IntegersCompareExactly) {
  HostTensor want = random_tensor(DType::kInt32, Shape{5}, 6);
  HostTensor got = want;
  got.data<int32_t>()[2] += 1;
  ::testing::AssertionResult r = tensors_close(got, want, {10, 10});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("(exact)"), std::string::npos) << r.message();
}

}  // namespace
}  // namespace univk::testing
