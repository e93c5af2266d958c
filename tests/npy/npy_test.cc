// univk_npy: round trips of every dtype, and clear errors for hostile or unsupported files.
#include "univk/npy/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "univk_test.h"

namespace univk::npy {
namespace {

std::vector<uint8_t> make_file(const std::string& header, size_t data_bytes, uint8_t major = 1) {
  std::vector<uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  const size_t n = header.size();
  f.push_back(static_cast<uint8_t>(n & 0xff));
  f.push_back(static_cast<uint8_t>(n >> 8));
  if (major != 1) {
    f.push_back(0);
    f.push_back(0);
  }
  f.insert(f.end(), header.begin(), header.end());
  f.resize(f.size() + data_bytes, 0);
  return f;
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32,
                      DType::kInt64, DType::kBool}) {
    HostTensor t(dtype, Shape{2, 3});
    for (size_t i = 0; i < t.byte_size(); ++i)
      t.bytes()[i] = static_cast<uint8_t>(dtype == DType::kBool ? i % 2 : i * 7);
    const std::vector<uint8_t> bytes = encode_npy(t);
    EXPECT_EQ((bytes.size() - t.byte_size()) % 64, 0u) << "data starts 64-byte aligned";
    auto back = parse_npy(bytes);
    UNIVK_ASSERT_OK(back);
    EXPECT_EQ(back->dtype(), dtype);
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_TRUE(std::equal(t.bytes().begin(), t.bytes().end(), back->bytes().begin()));
  }
  // rank 0 and rank 1 spell their tuples "()" and "(5,)"
  for (const Shape& s : {Shape{}, Shape{5}, Shape{0, 3}}) {
    auto back = parse_npy(encode_npy(HostTensor(DType::kFloat32, s)));
    UNIVK_ASSERT_OK(back);
    EXPECT_EQ(back->shape(), s);
  }
}

TEST(Npy, ReadsWhatNumPyWrites) {
  // numpy.save of np.zeros((2, 2), np.float32): format 1.0, header padded with spaces and '\n'.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  header.append(118 - header.size() - 10 - 1, ' ');
  header += '\n';
  auto t = parse_npy(make_file(header, 16));
  UNIVK_ASSERT_OK(t);
  EXPECT_EQ(t->shape(), (Shape{2, 2}));
  auto v2 = parse_npy(make_file("{'descr': '<i8', 'fortran_order': False, 'shape': (3,)}", 24, 2));
  UNIVK_ASSERT_OK(v2);
  EXPECT_EQ(v2->dtype(), DType::kInt64);
}

struct BadCase {
  std::vector<uint8_t> bytes;
  StatusCode code;
  std::string message;
};

TEST(Npy, RejectsBadFilesWithAClearError) {
  const std::string ok_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::vector<uint8_t> bad_magic = make_file(ok_header, 8);
  bad_magic[1] = 'X';
  std::vector<uint8_t> long_header = make_file(ok_header, 8);
  long_header[8] = 0xff;  // header length runs past the end
  const std::vector<BadCase> cases = {
      {{0x93, 'N', 'U'}, StatusCode::kInvalidArgument, "too short"},
      {bad_magic, StatusCode::kInvalidArgument, "bad magic"},
      {make_file(ok_header, 8, 9), StatusCode::kUnsupported, "format version 9"},
      {long_header, StatusCode::kInvalidArgument, "runs past the end"},
      {make_file(ok_header, 4), StatusCode::kInvalidArgument, "needs 8 data bytes, the file has 4"},
      {make_file(ok_header, 12), StatusCode::kInvalidArgument, "needs 8 data bytes, the file has 12"},
      {make_file("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16), StatusCode::kUnsupported,
       "dtype '<c8'"},
      {make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8), StatusCode::kInvalidArgument,
       "negative"},
      {make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8),
       StatusCode::kInvalidArgument, "overflows"},
      {make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 8),
       StatusCode::kInvalidArgument, ""},
      {make_file("{'descr': '<f4', 'shape': (2,), }", 8), StatusCode::kInvalidArgument, "needs the keys"},
      {make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 8),
       StatusCode::kInvalidArgument, "unknown key 'extra'"},
      {make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8), StatusCode::kInvalidArgument, ""},
      {make_file("{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", 8), StatusCode::kInvalidArgument, ""},
      {make_file("[1, 2]", 8), StatusCode::kInvalidArgument, "does not start with '{'"},
      {make_file("{'descr': '<f4', 'fortran_order': 1, 'shape': (2,), }", 8), StatusCode::kInvalidArgument,
       "fortran_order is not True or False"},
      {make_file("{'descr': '<f4', 'fortran_order': False, 'fortran_order': True, 'shape': (2,)}", 8),
       StatusCode::kInvalidArgument, "duplicate key 'fortran_order'"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    auto r = parse_npy(cases[i].bytes);
    ASSERT_FALSE(r.ok()) << "case " << i;
    EXPECT_EQ(r.status().code(), cases[i].code) << "case " << i << ": " << r.status().to_string();
    EXPECT_NE(r.status().message().find(cases[i].message), std::string::npos)
        << "case " << i << ": " << r.status().to_string();
  }
}

TEST(Npy, EveryTruncationIsAnError) {
  const std::vector<uint8_t> bytes = encode_npy(HostTensor(DType::kFloat32, Shape{3, 2}));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(parse_npy(std::span<const uint8_t>(bytes.data(), n)).ok()) << n;
  }
}

TEST(Npy, FilesRoundTripEveryDtype) {
  const std::string path = ::testing::TempDir() + "univk_npy_test_" + std::to_string(::getpid()) + ".npy";
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32,
                      DType::kInt64, DType::kBool}) {
    HostTensor t(dtype, Shape{3, 1, 2});
    for (size_t i = 0; i < t.byte_size(); ++i)
      t.bytes()[i] = static_cast<uint8_t>(dtype == DType::kBool ? (i / dtype_size(dtype)) % 2 : 31 * i + 5);
    UNIVK_ASSERT_OK(write_npy(path, t));
    auto back = read_npy(path);
    UNIVK_ASSERT_OK(back);
    EXPECT_EQ(back->dtype(), dtype);
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_TRUE(std::equal(t.bytes().begin(), t.bytes().end(), back->bytes().begin())) << dtype_name(dtype);
  }
  std::remove(path.c_str());
}

TEST(Npy, UnwritablePathIsAnError) {
  const Status s = write_npy("/nonexistent/univk/out.npy", HostTensor(DType::kFloat32, Shape{1}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/univk/out.npy"), std::string::npos) << s.to_string();
}

TEST(Npy, MissingFileNamesThePath) {
  auto r = read_npy("/nonexistent/univk/file.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/univk/file.npy"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace univk::npy
