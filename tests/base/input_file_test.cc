// InputFile, MappedFile::open, read_file and write_file refuse what is not a regular file
// without blocking or reading it: a FIFO with no writer, /dev/zero, a directory; write errors
// (/dev/full) are reported. A regression would hang in open(): every open of a FIFO runs on a
// helper thread, and the test unblocks it by opening the FIFO itself before failing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <string>

#include "univk/base/file_map.h"
#include "univk/base/input_file.h"
#include "univk_test.h"

namespace univk {
namespace {

namespace fs = std::filesystem;

class Fifo {
 public:
  Fifo() : path_((fs::temp_directory_path() / ("univk_input_file_fifo_" + std::to_string(getpid()))).string()) {
    ::unlink(path_.c_str());
    made_ = ::mkfifo(path_.c_str(), 0600) == 0;
  }
  ~Fifo() { ::unlink(path_.c_str()); }
  bool made() const { return made_; }
  const std::string& path() const { return path_; }

  // Runs `open` (which must return without blocking) and returns its status. If it is still
  // blocked after 10 s, the FIFO is opened for reading and writing (which never blocks on Linux
  // and releases both a waiting reader and a waiting writer), and the test fails.
  Status open_without_blocking(const std::function<Status()>& open) const {
    auto result = std::async(std::launch::async, open);
    if (result.wait_for(std::chrono::seconds(10)) == std::future_status::ready) return result.get();
    ADD_FAILURE() << "opening the FIFO " << path_ << " blocked";
    const int both_ends = ::open(path_.c_str(), O_RDWR | O_NONBLOCK);
    result.wait();
    if (both_ends >= 0) ::close(both_ends);
    return internal_error("blocked");
  }

 private:
  std::string path_;
  bool made_ = false;
};

void expect_not_regular(const Status& s, const std::string& path, const std::string& kind) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("not a regular file: " + path + " (" + kind + ")"), std::string::npos) << s.to_string();
}

TEST(InputFile, FifoIsRefusedWithoutBlocking) {
  Fifo fifo;
  ASSERT_TRUE(fifo.made()) << "mkfifo failed";
  expect_not_regular(fifo.open_without_blocking([&] { return InputFile::open(fifo.path()).status(); }), fifo.path(),
                     "a FIFO");
  expect_not_regular(fifo.open_without_blocking([&] { return MappedFile::open(fifo.path()).status(); }), fifo.path(),
                     "a FIFO");
  expect_not_regular(fifo.open_without_blocking([&] { return read_file(fifo.path()).status(); }), fifo.path(),
                     "a FIFO");
}

TEST(InputFile, DevicesAndDirectoriesAreRefused) {
  expect_not_regular(InputFile::open("/dev/zero").status(), "/dev/zero", "a character device");
  expect_not_regular(read_file("/dev/zero").status(), "/dev/zero", "a character device");
  expect_not_regular(MappedFile::open("/dev/zero").status(), "/dev/zero", "a character device");
  const std::string dir = fs::temp_directory_path().string();
  expect_not_regular(InputFile::open(dir).status(), dir, "a directory");
  EXPECT_EQ(InputFile::open("/nonexistent/univk.bin").status().code(), StatusCode::kNotFound);
}

TEST(InputFile, ReadsExactRangesAndReportsShortFiles) {
  const std::string path = (fs::temp_directory_path() / ("univk_input_file_" + std::to_string(getpid()))).string();
  const std::vector<uint8_t> bytes = {10, 11, 12, 13, 14, 15};
  UNIVK_ASSERT_OK(write_file(path, bytes));
  auto file = InputFile::open(path);
  UNIVK_ASSERT_OK(file);
  EXPECT_EQ(file->size(), 6u);
  uint8_t two[2] = {};
  UNIVK_ASSERT_OK(file->read_at(3, two));
  EXPECT_EQ(two[0], 13);
  EXPECT_EQ(two[1], 14);
  uint8_t four[4] = {};
  Status past_end = file->read_at(4, four);
  EXPECT_EQ(past_end.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(past_end.message().find("2 bytes short"), std::string::npos) << past_end.to_string();
  InputFile moved = std::move(file).value();
  UNIVK_EXPECT_OK(moved.read_at(0, two));
  fs::remove(path);
}

TEST(WriteFile, FullDeviceAndFifoWithoutReaderAreErrors) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  const std::vector<uint8_t> bytes(1 << 16, 7);
  Status full = write_file("/dev/full", bytes);
  EXPECT_FALSE(full.ok());
  EXPECT_NE(full.message().find("/dev/full"), std::string::npos) << full.to_string();
  Fifo fifo;
  ASSERT_TRUE(fifo.made());
  const std::vector<uint8_t> small(16, 7);  // fits the pipe buffer if a regression opened the FIFO
  Status no_reader = fifo.open_without_blocking([&] { return write_file(fifo.path(), small); });
  EXPECT_FALSE(no_reader.ok());
  EXPECT_NE(no_reader.message().find(fifo.path()), std::string::npos) << no_reader.to_string();
}

}  // namespace
}  // namespace univk
