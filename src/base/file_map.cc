#include "univk/base/file_map.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "univk/base/input_file.h"

namespace univk {

Result<MappedFile> MappedFile::open(const std::string& path) {
  UNIVK_ASSIGN_OR_RETURN(InputFile input, InputFile::open(path));
  MappedFile file;
  file.path_ = path;
  file.size_ = static_cast<size_t>(input.size());
  if (file.size_ > 0) {
    void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, input.fd(), 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      return invalid_argument("cannot map " + path + ": " + std::strerror(err));
    }
    file.data_ = static_cast<const uint8_t*>(p);
  }
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

Result<std::string> read_file(const std::string& path) {
  UNIVK_ASSIGN_OR_RETURN(InputFile input, InputFile::open(path));
  if (input.size() > std::string().max_size()) return out_of_memory("cannot hold " + path + " in memory");
  std::string text(static_cast<size_t>(input.size()), '\0');
  UNIVK_RETURN_IF_ERROR(input.read_at(0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(text.data()), text.size())));
  return text;
}

Status write_file(const std::string& path, std::span<const uint8_t> bytes) {
  // O_NONBLOCK only for open(): a FIFO without a reader is an error instead of a wait.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
  if (fd < 0) {
    const int err = errno;
    return invalid_argument("cannot write " + path + ": " + std::strerror(err));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int err = errno;
    ::close(fd);
    return invalid_argument("cannot write " + path + ": " + std::strerror(err));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return internal_error("write failed: " + path + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    return internal_error("write failed: " + path + ": " + std::strerror(err));
  }
  return ok_status();
}

}  // namespace univk
