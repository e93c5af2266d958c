// A regular file opened for reading, by file descriptor. open() never blocks and refuses
// anything that is not a regular file (FIFO, device, directory, socket) before a byte is read,
// so a FIFO or /dev/zero given as a path fails at once with a message naming what it is.
// InputFile owns its descriptor and closes it on destruction; it is move-only. One InputFile
// may be read from several threads at once (read_at uses pread and keeps no position).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "univk/base/status.h"

namespace univk {

class InputFile {
 public:
  // NotFound when the path does not exist; InvalidArgument when it cannot be opened or is not a
  // regular file ("not a regular file: /tmp/p (a FIFO)").
  static Result<InputFile> open(const std::string& path);

  InputFile() = default;
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }  // the size when it was opened
  const std::string& path() const { return path_; }

  // Reads exactly out.size() bytes starting at `offset`; InvalidArgument naming the path when
  // the range lies past the end (the file is shorter than its size at open) or a read fails.
  Status read_at(uint64_t offset, std::span<uint8_t> out) const;

 private:
  void close();
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

}  // namespace univk
