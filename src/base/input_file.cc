#include "univk/base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace univk {
namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

Result<InputFile> InputFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return not_found("no such file: " + path);
    return invalid_argument("cannot open " + path + ": " + std::strerror(err));
  }
  InputFile file;
  file.fd_ = fd;
  file.path_ = path;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    return invalid_argument("cannot stat " + path + ": " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) return invalid_argument("not a regular file: " + path + " (" + file_kind(st.st_mode) + ")");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int err = errno;
    return invalid_argument("cannot configure " + path + ": " + std::strerror(err));
  }
  file.size_ = static_cast<uint64_t>(st.st_size);
  return file;
}

InputFile::InputFile(InputFile&& other) noexcept { *this = std::move(other); }

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    size_ = std::exchange(other.size_, 0);
    path_ = std::move(other.path_);
  }
  return *this;
}

InputFile::~InputFile() { close(); }

void InputFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  size_ = 0;
}

Status InputFile::read_at(uint64_t offset, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      return invalid_argument("cannot read " + path_ + ": " + std::strerror(err));
    }
    if (n == 0) {
      return invalid_argument("cannot read " + path_ + ": the file ends at byte " + std::to_string(offset + done) +
                              ", " + std::to_string(out.size() - done) + " bytes short");
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

}  // namespace univk
