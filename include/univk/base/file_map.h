// Read-only memory mapping of a whole file. MappedFile owns the mapping and unmaps it on
// destruction; spans handed out borrow from it and must not outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "univk/base/status.h"

namespace univk {

class MappedFile {
 public:
  // NotFound when the file does not exist, InvalidArgument when it is not a regular file
  // (refused without blocking, see InputFile) or cannot be mapped.
  static Result<MappedFile> open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  void release();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

// Reads a whole regular file into memory (for small files and tools): exactly the size it had
// when opened; FIFOs and devices are refused as by InputFile::open.
Result<std::string> read_file(const std::string& path);
// Creates or truncates `path` and writes `bytes`; an error for every failed write and for a
// failed close (a full disk, /dev/full), so no short file goes unreported. Does not wait for a
// reader when `path` is a FIFO.
Status write_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace univk
