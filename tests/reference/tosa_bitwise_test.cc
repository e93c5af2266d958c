// TOSA 1.0 integer bit operators, INTDIV, CLZ, LOGICAL_XOR, CEIL/FLOOR/SIN/COS and REDUCE_MIN,
// REDUCE_PRODUCT, REDUCE_ALL, REDUCE_ANY: hand-computed values per type, and the REQUIREs and
// type limits as errors.
#include <cmath>
#include <numbers>

#include "test_util.h"

namespace univk::reference::testing {
namespace {

template <typename T>
std::vector<T> binary_int(const char* op, DType t, std::vector<T> a, std::vector<T> b, Attributes at = {}) {
  const int64_t n = static_cast<int64_t>(a.size());
  return typed_values<T>(tosa1(op, at, {typed<T>(t, {n}, a), typed<T>(t, {n}, b)}));
}

TEST(TosaBitwise, AndOrXorNotPerType) {
  EXPECT_EQ(binary_int<int8_t>("BITWISE_AND", DType::kInt8, {-1, 0x5a, -128}, {0x0f, 0x3c, 127}),
            (std::vector<int8_t>{0x0f, 0x18, 0}));
  EXPECT_EQ(binary_int<int16_t>("BITWISE_OR", DType::kInt16, {-32768, 0x0f0}, {1, 0x00f}),
            (std::vector<int16_t>{-32767, 0x0ff}));
  EXPECT_EQ(binary_int<int32_t>("BITWISE_XOR", DType::kInt32, {-1, 6}, {0x7fffffff, 3}),
            (std::vector<int32_t>{INT32_MIN, 5}));
  EXPECT_EQ(typed_values<int8_t>(tosa1("BITWISE_NOT", {}, {typed<int8_t>(DType::kInt8, {3}, {0, -1, 100})})),
            (std::vector<int8_t>{-1, 0, -101}));
  // Broadcast along a size-1 dim.
  HostTensor a = typed<int32_t>(DType::kInt32, {2, 2}, {1, 2, 3, 4});
  HostTensor m = typed<int32_t>(DType::kInt32, {1, 2}, {1, 6});
  EXPECT_EQ(typed_values<int32_t>(tosa1("BITWISE_AND", {}, {a, m})), (std::vector<int32_t>{1, 2, 1, 4}));
}

TEST(TosaBitwise, ShiftsWorkOnTheTypesWidth) {
  // Left shifts drop the bits above the type's width.
  EXPECT_EQ(binary_int<int8_t>("LOGICAL_LEFT_SHIFT", DType::kInt8, {1, 3, -1}, {7, 6, 4}),
            (std::vector<int8_t>{-128, -64, -16}));
  EXPECT_EQ(binary_int<int32_t>("LOGICAL_LEFT_SHIFT", DType::kInt32, {1, 3}, {31, 31}),
            (std::vector<int32_t>{INT32_MIN, INT32_MIN}));
  // Logical right shifts fill with zeros from the type's top bit.
  EXPECT_EQ(binary_int<int8_t>("LOGICAL_RIGHT_SHIFT", DType::kInt8, {-1, -128, 64}, {1, 7, 9}),
            (std::vector<int8_t>{127, 1, 0}));
  EXPECT_EQ(binary_int<int16_t>("LOGICAL_RIGHT_SHIFT", DType::kInt16, {-2}, {1}), (std::vector<int16_t>{32767}));
  EXPECT_EQ(binary_int<int32_t>("LOGICAL_RIGHT_SHIFT", DType::kInt32, {-1, 8}, {28, 2}), (std::vector<int32_t>{15, 2}));
}

TEST(TosaBitwise, ArithmeticRightShiftRounds) {
  Attributes round = attrs({{"round", int64_t{1}}});
  // 7 >> 1 = 3 (+1: bit 0 set), -7 >> 1 = -4 (+1: bit 0 of -7 set), 6 >> 2 = 1 (+1: bit 1 set),
  // -8 >> 3 = -1 (bit 2 clear), shift 0 never rounds.
  EXPECT_EQ(binary_int<int8_t>("ARITHMETIC_RIGHT_SHIFT", DType::kInt8, {7, -7, 6, -8, 5}, {1, 1, 2, 3, 0}, round),
            (std::vector<int8_t>{4, -3, 2, -1, 5}));
  EXPECT_EQ(binary_int<int8_t>("ARITHMETIC_RIGHT_SHIFT", DType::kInt8, {7, -7, 6, -8, 5}, {1, 1, 2, 3, 0}),
            (std::vector<int8_t>{3, -4, 1, -1, 5}));
  EXPECT_EQ(binary_int<int16_t>("ARITHMETIC_RIGHT_SHIFT", DType::kInt16, {-32768, 32767}, {15, 15}, round),
            (std::vector<int16_t>{-1, 1}));
  EXPECT_EQ(binary_int<int32_t>("ARITHMETIC_RIGHT_SHIFT", DType::kInt32, {INT32_MIN, INT32_MAX}, {31, 30}, round),
            (std::vector<int32_t>{-1, 2}));
}

TEST(TosaBitwise, IntdivTruncatesAndClzCounts) {
  EXPECT_EQ(binary_int<int32_t>("INTDIV", DType::kInt32, {7, -7, 7, -7, INT32_MIN}, {2, 2, -2, -2, 1}),
            (std::vector<int32_t>{3, -3, -3, 3, INT32_MIN}));
  EXPECT_EQ(typed_values<int32_t>(tosa1("CLZ", {}, {typed<int32_t>(DType::kInt32, {5}, {0, 1, -1, 0x10000, 255})})),
            (std::vector<int32_t>{32, 31, 0, 15, 24}));
}

TEST(TosaBitwise, RequiresAndTypesAreErrors) {
  auto run = [](const char* op, DType t, std::vector<int32_t> a, std::vector<int32_t> b) {
    const int64_t n = static_cast<int64_t>(a.size());
    HostTensor x(t, Shape{n}), y(t, Shape{n});
    for (size_t i = 0; i < a.size(); ++i) {
      if (t == DType::kInt32) {
        x.data<int32_t>()[i] = a[i], y.data<int32_t>()[i] = b[i];
      } else {
        x.data<int8_t>()[i] = static_cast<int8_t>(a[i]), y.data<int8_t>()[i] = static_cast<int8_t>(b[i]);
      }
    }
    return run_tosa(op, {}, std::vector<HostTensor>{x, y});
  };
  auto r = run("INTDIV", DType::kInt32, {1, 2}, {1, 0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("division by zero at element 1"), std::string::npos) << r.status().message();
  r = run("INTDIV", DType::kInt32, {INT32_MIN}, {-1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not fit int32"), std::string::npos) << r.status().message();
  r = run("LOGICAL_LEFT_SHIFT", DType::kInt32, {1}, {32});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[0, 31]"), std::string::npos) << r.status().message();
  r = run("ARITHMETIC_RIGHT_SHIFT", DType::kInt8, {1}, {-1});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  r = run("INTDIV", DType::kInt8, {4}, {2});
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("int32 only"), std::string::npos) << r.status().message();
  EXPECT_EQ(run_tosa("BITWISE_NOT", {}, std::vector<HostTensor>{tensor({1}, {1.0f})}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(run_tosa("CLZ", {}, std::vector<HostTensor>{typed<int16_t>(DType::kInt16, {1}, {1})}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_FALSE(run_tosa("BITWISE_AND", attrs({{"round", int64_t{1}}}),
                        std::vector<HostTensor>{tensor({1}, {1}), tensor({1}, {1})})
                   .ok());
}

TEST(TosaBitwise, LogicalXor) {
  HostTensor a = typed<uint8_t>(DType::kBool, {2, 2}, {0, 1, 0, 1});
  HostTensor b = typed<uint8_t>(DType::kBool, {1, 2}, {0, 1});
  EXPECT_EQ(typed_values<uint8_t>(tosa1("LOGICAL_XOR", {}, {a, b})), (std::vector<uint8_t>{0, 0, 0, 0}));
  HostTensor c = typed<uint8_t>(DType::kBool, {2, 1}, {1, 0});
  EXPECT_EQ(typed_values<uint8_t>(tosa1("LOGICAL_XOR", {}, {a, c})), (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(TosaFloatUnary, CeilFloorSinCos) {
  HostTensor x = tensor({5}, {-1.5f, -0.0f, 0.25f, 2.0f, 3.75f});
  EXPECT_EQ(values(tosa1("CEIL", {}, {x})), (std::vector<float>{-1, -0.0f, 1, 2, 4}));
  EXPECT_EQ(values(tosa1("FLOOR", {}, {x})), (std::vector<float>{-2, -0.0f, 0, 2, 3}));
  const float pi = std::numbers::pi_v<float>;
  HostTensor angles = tensor({3}, {0.0f, pi / 2, pi});
  expect_near(tosa1("SIN", {}, {angles}), tensor({3}, {0, 1, 0}), 1e-6f);
  expect_near(tosa1("COS", {}, {angles}), tensor({3}, {1, 0, -1}), 1e-6f);
  EXPECT_TRUE(std::isnan(values(tosa1("FLOOR", {}, {tensor({1}, {NAN})}))[0]));
  EXPECT_EQ(run_tosa("SIN", {}, std::vector<HostTensor>{typed<int32_t>(DType::kInt32, {1}, {1})}).status().code(),
            StatusCode::kUnsupported);
}

TEST(TosaReductions, MinProductAllAny) {
  Attributes axis0 = attrs({{"axis", int64_t{0}}});
  Attributes axis1 = attrs({{"axis", int64_t{1}}});
  HostTensor x = tensor({2, 3}, {1, -2, 3, 4, 5, -6});
  EXPECT_EQ(values(tosa1("REDUCE_MIN", axis1, {x})), (std::vector<float>{-2, -6}));
  EXPECT_EQ(values(tosa1("REDUCE_PRODUCT", axis0, {x})), (std::vector<float>{4, -10, -18}));
  EXPECT_EQ(tosa1("REDUCE_PRODUCT", axis0, {x}).shape(), Shape({1, 3}));
  EXPECT_EQ(typed_values<int8_t>(tosa1("REDUCE_MIN", axis0, {typed<int8_t>(DType::kInt8, {2, 2}, {-5, 7, 3, -128})})),
            (std::vector<int8_t>{-5, -128}));
  EXPECT_EQ(
      typed_values<int16_t>(tosa1("REDUCE_MIN", axis1, {typed<int16_t>(DType::kInt16, {1, 3}, {32767, 300, -2})})),
      (std::vector<int16_t>{-2}));
  EXPECT_EQ(typed_values<int32_t>(
                tosa1("REDUCE_MIN", axis1, {typed<int32_t>(DType::kInt32, {1, 2}, {INT32_MAX, INT32_MIN})})),
            (std::vector<int32_t>{INT32_MIN}));
  HostTensor b = typed<uint8_t>(DType::kBool, {2, 3}, {1, 1, 0, 1, 1, 1});
  EXPECT_EQ(typed_values<uint8_t>(tosa1("REDUCE_ALL", axis1, {b})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(typed_values<uint8_t>(tosa1("REDUCE_ANY", axis0, {b})), (std::vector<uint8_t>{1, 1, 1}));
  HostTensor none = typed<uint8_t>(DType::kBool, {2, 1}, {0, 0});
  EXPECT_EQ(typed_values<uint8_t>(tosa1("REDUCE_ANY", axis0, {none})), (std::vector<uint8_t>{0}));
  // Types outside the operators' profiles.
  EXPECT_EQ(run_tosa("REDUCE_ALL", axis0, std::vector<HostTensor>{x}).status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(run_tosa("REDUCE_PRODUCT", axis0, std::vector<HostTensor>{typed<int32_t>(DType::kInt32, {2}, {1, 2})})
                .status()
                .code(),
            StatusCode::kUnsupported);
}

TEST(TosaReductions, ReduceMinNanModes) {
  HostTensor x = tensor({2, 2}, {NAN, 2, 1, NAN});
  Attributes a = attrs({{"axis", int64_t{1}}});
  std::vector<float> got = values(tosa1("REDUCE_MIN", a, {x}));
  EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]));  // PROPAGATE (the default)
  a.set("nan_mode", int64_t{2});
  EXPECT_EQ(values(tosa1("REDUCE_MIN", a, {x})), (std::vector<float>{2, 1}));  // IGNORE skips NaN
  HostTensor all_nan = tensor({1, 2}, {NAN, NAN});
  EXPECT_TRUE(std::isnan(values(tosa1("REDUCE_MIN", a, {all_nan}))[0]));  // IGNORE of only NaN
}

}  // namespace
}  // namespace univk::reference::testing
