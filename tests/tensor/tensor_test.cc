#include "univk/tensor/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include "univk_test.h"

namespace univk {
namespace {

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtype_size(DType::kFloat32), 4u);
  EXPECT_EQ(dtype_size(DType::kFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kInt64), 8u);
  EXPECT_EQ(dtype_size(DType::kBool), 1u);
  for (int i = 0; i < kDTypeCount; ++i) {
    DType d = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
  }
  EXPECT_FALSE(dtype_from_name("complex64").has_value());
  EXPECT_FALSE(dtype_from_value(99).has_value());
}

TEST(DType, HalfConversionRoundTrips) {
  for (float v : {0.0f, 1.0f, -2.5f, 0.333251953125f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f}) {
    EXPECT_EQ(half_to_float(float_to_half(v)), v) << v;
  }
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 4096.0f), float_to_half(1.0f));  // ties to even
}

TEST(Shape, NumelStridesAndBroadcast) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.contiguous_strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(s.to_string(), "[2,3,4]");
  EXPECT_EQ(Shape().numel(), 1);
  auto b = broadcast_shapes(Shape{3, 1}, Shape{4});
  UNIVK_ASSERT_OK(b);
  EXPECT_EQ(*b, (Shape{3, 4}));
  EXPECT_FALSE(broadcast_shapes(Shape{3}, Shape{4}).ok());
  EXPECT_FALSE(Shape::checked({2, -1}).ok());
  EXPECT_FALSE(Shape::checked({1LL << 40, 1LL << 40}).ok());
}

TEST(HostTensor, OwnsAlignedZeroedStorage) {
  HostTensor t(DType::kFloat32, Shape{2, 3});
  EXPECT_EQ(t.byte_size(), 24u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.bytes().data()) % 64, 0u);
  for (float v : t.data<float>()) EXPECT_EQ(v, 0.0f);
  t.data<float>()[5] = 7.0f;
  HostTensor copy = t;
  t.data<float>()[5] = 1.0f;
  EXPECT_EQ(copy.data<float>()[5], 7.0f);
  auto r = copy.reshaped(Shape{6});
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(r->describe(), "float32[6]");
  EXPECT_FALSE(copy.reshaped(Shape{5}).ok());
}

TEST(HostTensor, ElementAsDoubleForEveryDtype) {
  HostTensor f32(DType::kFloat32, Shape{2});
  f32.data<float>()[1] = -2.5f;
  EXPECT_EQ(f32.element_as_double(1), -2.5);
  HostTensor f16(DType::kFloat16, Shape{1});
  f16.data<uint16_t>()[0] = float_to_half(0.375f);
  EXPECT_EQ(f16.element_as_double(0), 0.375);
  HostTensor i8(DType::kInt8, Shape{1});
  i8.data<int8_t>()[0] = -128;
  EXPECT_EQ(i8.element_as_double(0), -128.0);
  HostTensor u8(DType::kUint8, Shape{1});
  u8.data<uint8_t>()[0] = 255;
  EXPECT_EQ(u8.element_as_double(0), 255.0);
  HostTensor i16(DType::kInt16, Shape{1});
  i16.data<int16_t>()[0] = -32768;
  EXPECT_EQ(i16.element_as_double(0), -32768.0);
  HostTensor i32(DType::kInt32, Shape{3});
  i32.data<int32_t>()[2] = 2147483647;
  EXPECT_EQ(i32.element_as_double(2), 2147483647.0);
  HostTensor i64(DType::kInt64, Shape{1});
  i64.data<int64_t>()[0] = int64_t{1} << 53;
  EXPECT_EQ(i64.element_as_double(0), 9007199254740992.0);
  // A bool is 0 or 1, whatever nonzero byte holds true.
  HostTensor b(DType::kBool, Shape{2});
  b.data<uint8_t>()[1] = 7;
  EXPECT_EQ(b.element_as_double(0), 0.0);
  EXPECT_EQ(b.element_as_double(1), 1.0);
  // NaN stays NaN (comparisons treat it specially).
  f32.data<float>()[0] = NAN;
  EXPECT_TRUE(std::isnan(f32.element_as_double(0)));
}

}  // namespace
}  // namespace univk

#include "univk/tensor/attributes.h"

namespace univk {
namespace {

TEST(Attributes, TypedGettersAndErrors) {
  Attributes a;
  a.set("kernel_size", int64_t{2});
  a.set("padding", std::vector<int64_t>{1, 0});
  a.set("alpha", 0.5);
  a.set("approximate", std::string("tanh"));
  EXPECT_EQ(*a.ints_expanded("kernel_size", 2, {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(*a.ints_expanded("stride", 2, {1}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(*a.get_float("alpha"), 0.5);
  EXPECT_EQ(*a.get_float("kernel_size"), 2.0);
  EXPECT_EQ(*a.get_string("approximate"), "tanh");
  EXPECT_EQ(a.get_int("missing").status().code(), StatusCode::kNotFound);
  Status wrong = a.get_int("alpha").status();
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("'alpha'"), std::string::npos);
  EXPECT_FALSE(a.ints_expanded("padding", 3, {}).ok());
  EXPECT_EQ(*a.get_bool_or("ceil_mode", true), true);
  EXPECT_EQ(a.to_string(), "{alpha=0.5, approximate='tanh', kernel_size=2, padding=[1,0]}");
}

}  // namespace
}  // namespace univk
