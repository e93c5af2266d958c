// A small, bounds-checked reader for FlatBuffers buffers (the wire format only; no generated
// code). Every offset, vtable, vector length and string is checked against the buffer before
// use, and values are read with memcpy, so the buffer needs no particular alignment.
//
// Ownership: Table and Vector borrow the buffer given to Table::root; they are cheap views.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "univk/base/status.h"

namespace univk::vgf::fb {

class Table;

class Vector {
 public:
  Vector() = default;
  Vector(std::span<const uint8_t> buf, size_t first, uint32_t count, size_t elem_size)
      : buf_(buf), first_(first), count_(count), elem_size_(elem_size) {}

  uint32_t size() const { return count_; }
  // Scalars of element i (the caller asked for a matching elem_size).
  uint8_t u8(uint32_t i) const;
  uint32_t u32(uint32_t i) const;
  int64_t i64(uint32_t i) const;
  // Element i of a vector of tables / strings (offsets).
  Result<Table> table(uint32_t i) const;
  Result<std::string_view> string(uint32_t i) const;
  // The raw element bytes.
  std::span<const uint8_t> bytes() const { return buf_.subspan(first_, size_t{count_} * elem_size_); }

 private:
  std::span<const uint8_t> buf_;
  size_t first_ = 0;
  uint32_t count_ = 0;
  size_t elem_size_ = 0;
};

class Table {
 public:
  // The root table of a finished buffer (no file identifier, no size prefix).
  static Result<Table> root(std::span<const uint8_t> buf);
  // The table at absolute position `pos` (validates its vtable).
  static Result<Table> at(std::span<const uint8_t> buf, size_t pos);

  bool has(int field) const { return field_offset(field) != 0; }
  Result<uint8_t> u8(int field, uint8_t fallback) const;
  Result<uint32_t> u32(int field, uint32_t fallback) const;
  Result<int64_t> i64(int field, int64_t fallback) const;
  Result<std::optional<Table>> table(int field) const;
  Result<std::optional<std::string_view>> string(int field) const;
  // A vector whose elements are `elem_size` bytes (4 for offsets to tables/strings).
  Result<std::optional<Vector>> vector(int field, size_t elem_size) const;

  // Convenience: absent vectors read as empty.
  Result<std::vector<uint32_t>> u32_list(int field) const;
  Result<std::vector<int64_t>> i64_list(int field) const;
  Result<std::vector<Table>> table_list(int field) const;
  Result<std::vector<std::string>> string_list(int field) const;

  size_t position() const { return pos_; }

 private:
  uint16_t field_offset(int field) const;
  Result<size_t> scalar_pos(int field, size_t size) const;  // 0 when absent
  Result<size_t> deref(int field) const;                    // 0 when absent

  std::span<const uint8_t> buf_;
  size_t pos_ = 0;
  size_t vtable_ = 0;
  uint16_t vtable_size_ = 0;
  uint16_t inline_size_ = 0;
};

// Follows the uoffset stored at `pos`; checks the target lies inside the buffer.
Result<size_t> follow_offset(std::span<const uint8_t> buf, size_t pos);
Result<std::string_view> string_at(std::span<const uint8_t> buf, size_t pos);

}  // namespace univk::vgf::fb
