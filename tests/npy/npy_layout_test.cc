// univk_npy reads .npy files by value whatever their byte order and memory order: big-endian
// data is byte-swapped and Fortran-order data transposed to C order (the Python API reads numpy
// arrays the same way; tests/e2e/inputs_test.py checks both against numpy.save's files).
#include "univk/npy/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include "univk_test.h"

namespace univk::npy {
namespace {

std::vector<uint8_t> make_file(const std::string& header, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.push_back(static_cast<uint8_t>(header.size() & 0xff));
  f.push_back(static_cast<uint8_t>(header.size() >> 8));
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

// `values` as `elem`-byte integers in little- or big-endian byte order.
std::vector<uint8_t> encode_ints(const std::vector<int64_t>& values, size_t elem, bool big_endian) {
  std::vector<uint8_t> out;
  for (int64_t v : values) {
    for (size_t b = 0; b < elem; ++b) {
      const size_t shift = 8 * (big_endian ? elem - 1 - b : b);
      out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> shift));
    }
  }
  return out;
}

template <typename T>
std::vector<int64_t> values_of(const HostTensor& t) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < t.byte_size() / sizeof(T); ++i) {
    T v;
    std::memcpy(&v, t.bytes().data() + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

std::string header(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

TEST(NpyLayout, BigEndianIntegersOfEverySizeAreByteSwapped) {
  const std::vector<int64_t> values = {1, -2, 100, -128};
  struct Case {
    std::string descr;
    DType dtype;
    size_t elem;
  };
  for (const Case& c : {Case{">i1", DType::kInt8, 1}, Case{">i2", DType::kInt16, 2}, Case{">i4", DType::kInt32, 4},
                        Case{">i8", DType::kInt64, 8}}) {
    auto t = parse_npy(make_file(header(c.descr, false, "(4,)"), encode_ints(values, c.elem, true)));
    UNIVK_ASSERT_OK(t) << c.descr;
    EXPECT_EQ(t->dtype(), c.dtype);
    std::vector<int64_t> got;
    if (c.elem == 1) got = values_of<int8_t>(*t);
    if (c.elem == 2) got = values_of<int16_t>(*t);
    if (c.elem == 4) got = values_of<int32_t>(*t);
    if (c.elem == 8) got = values_of<int64_t>(*t);
    EXPECT_EQ(got, values) << c.descr;
  }
}

TEST(NpyLayout, BigEndianFloatsAreByteSwapped) {
  // 1.5f = 0x3FC00000, -2.0f = 0xC0000000; float16 1.5 = 0x3E00, -2.0 = 0xC000.
  auto f32 = parse_npy(make_file(header(">f4", false, "(2,)"), {0x3F, 0xC0, 0, 0, 0xC0, 0, 0, 0}));
  UNIVK_ASSERT_OK(f32);
  EXPECT_EQ(f32->data<float>()[0], 1.5f);
  EXPECT_EQ(f32->data<float>()[1], -2.0f);
  auto f16 = parse_npy(make_file(header(">f2", false, "(2,)"), {0x3E, 0x00, 0xC0, 0x00}));
  UNIVK_ASSERT_OK(f16);
  EXPECT_EQ(values_of<uint16_t>(*f16), (std::vector<int64_t>{0x3E00, 0xC000}));
  // The same values little endian ('<' and native '=') read unchanged.
  auto native = parse_npy(make_file(header("=f4", false, "(2,)"), {0, 0, 0xC0, 0x3F, 0, 0, 0, 0xC0}));
  UNIVK_ASSERT_OK(native);
  EXPECT_EQ(native->data<float>()[0], 1.5f);
  EXPECT_EQ(native->data<float>()[1], -2.0f);
}

TEST(NpyLayout, FortranOrderIsTransposedToCOrder) {
  // a = [[0, 1, 2], [3, 4, 5]] stored column by column: 0 3 1 4 2 5.
  auto t = parse_npy(make_file(header("<i4", true, "(2, 3)"), encode_ints({0, 3, 1, 4, 2, 5}, 4, false)));
  UNIVK_ASSERT_OK(t);
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<int32_t>(*t), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));

  // rank 3, big endian as well: element (i, j, k) = 100 i + 10 j + k, column-major offsets.
  const int64_t d0 = 2, d1 = 3, d2 = 4;
  std::vector<int64_t> column_major(static_cast<size_t>(d0 * d1 * d2));
  std::vector<int64_t> row_major;
  for (int64_t i = 0; i < d0; ++i) {
    for (int64_t j = 0; j < d1; ++j) {
      for (int64_t k = 0; k < d2; ++k) {
        column_major[static_cast<size_t>(i + d0 * (j + d1 * k))] = 100 * i + 10 * j + k;
        row_major.push_back(100 * i + 10 * j + k);
      }
    }
  }
  auto t3 = parse_npy(make_file(header(">i2", true, "(2, 3, 4)"), encode_ints(column_major, 2, true)));
  UNIVK_ASSERT_OK(t3);
  EXPECT_EQ(t3->shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(values_of<int16_t>(*t3), row_major);
}

TEST(NpyLayout, FortranOrderOfRankZeroOneAndEmptyArrays) {
  auto scalar = parse_npy(make_file(header("<i8", true, "()"), encode_ints({7}, 8, false)));
  UNIVK_ASSERT_OK(scalar);
  EXPECT_EQ(values_of<int64_t>(*scalar), (std::vector<int64_t>{7}));
  auto vector = parse_npy(make_file(header("|u1", true, "(3,)"), {1, 2, 3}));
  UNIVK_ASSERT_OK(vector);
  EXPECT_EQ(values_of<uint8_t>(*vector), (std::vector<int64_t>{1, 2, 3}));
  auto empty = parse_npy(make_file(header("<f4", true, "(0, 3)"), {}));
  UNIVK_ASSERT_OK(empty);
  EXPECT_EQ(empty->shape(), (Shape{0, 3}));
}

TEST(NpyLayout, UnknownTypeCodesAndByteOrdersAreStillRefused) {
  for (const std::string descr : {">c8", "<f8", "!f4", "f4", "<f4x"}) {
    auto r = parse_npy(make_file(header(descr, false, "(1,)"), std::vector<uint8_t>(8, 0)));
    ASSERT_FALSE(r.ok()) << descr;
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << r.status().to_string();
    EXPECT_NE(r.status().message().find("dtype '" + descr + "'"), std::string::npos) << r.status().to_string();
  }
}

}  // namespace
}  // namespace univk::npy
