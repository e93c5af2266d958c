#include "flatbuffer_reader.h"

#include <cstring>
#include <string>

namespace univk::vgf::fb {
namespace {

template <typename T>
T load(std::span<const uint8_t> buf, size_t pos) {
  T value;
  std::memcpy(&value, buf.data() + pos, sizeof(T));
  return value;
}

bool fits(std::span<const uint8_t> buf, size_t pos, size_t size) {
  return pos <= buf.size() && size <= buf.size() - pos;
}

std::string field_name(int field) { return "field " + std::to_string(field); }

}  // namespace

Result<size_t> follow_offset(std::span<const uint8_t> buf, size_t pos) {
  if (!fits(buf, pos, 4)) return invalid_argument("offset at " + std::to_string(pos) + " out of bounds");
  const uint64_t target = uint64_t{pos} + load<uint32_t>(buf, pos);
  if (target >= buf.size()) {
    return invalid_argument("offset at " + std::to_string(pos) + " points outside the buffer");
  }
  return static_cast<size_t>(target);
}

Result<std::string_view> string_at(std::span<const uint8_t> buf, size_t pos) {
  if (!fits(buf, pos, 4)) return invalid_argument("string length out of bounds");
  const uint32_t length = load<uint32_t>(buf, pos);
  // The terminating zero is part of the format.
  if (!fits(buf, pos + 4, uint64_t{length} + 1)) return invalid_argument("string runs past the buffer");
  if (buf[pos + 4 + length] != 0) return invalid_argument("string is not zero-terminated");
  return std::string_view(reinterpret_cast<const char*>(buf.data() + pos + 4), length);
}

uint8_t Vector::u8(uint32_t i) const { return buf_[first_ + i]; }
uint32_t Vector::u32(uint32_t i) const { return load<uint32_t>(buf_, first_ + size_t{i} * 4); }
int64_t Vector::i64(uint32_t i) const { return load<int64_t>(buf_, first_ + size_t{i} * 8); }

Result<Table> Vector::table(uint32_t i) const {
  UNIVK_ASSIGN_OR_RETURN(size_t pos, follow_offset(buf_, first_ + size_t{i} * 4));
  return Table::at(buf_, pos);
}

Result<std::string_view> Vector::string(uint32_t i) const {
  UNIVK_ASSIGN_OR_RETURN(size_t pos, follow_offset(buf_, first_ + size_t{i} * 4));
  return string_at(buf_, pos);
}

Result<Table> Table::root(std::span<const uint8_t> buf) {
  if (buf.size() < 8)
    return invalid_argument("FlatBuffers buffer too small (" + std::to_string(buf.size()) + " bytes)");
  UNIVK_ASSIGN_OR_RETURN(size_t pos, follow_offset(buf, 0));
  return at(buf, pos);
}

Result<Table> Table::at(std::span<const uint8_t> buf, size_t pos) {
  if (!fits(buf, pos, 4)) return invalid_argument("table at " + std::to_string(pos) + " out of bounds");
  const int64_t vtable = static_cast<int64_t>(pos) - load<int32_t>(buf, pos);
  if (vtable < 0 || !fits(buf, static_cast<size_t>(vtable), 4)) {
    return invalid_argument("vtable of table at " + std::to_string(pos) + " out of bounds");
  }
  Table t;
  t.buf_ = buf;
  t.pos_ = pos;
  t.vtable_ = static_cast<size_t>(vtable);
  t.vtable_size_ = load<uint16_t>(buf, t.vtable_);
  t.inline_size_ = load<uint16_t>(buf, t.vtable_ + 2);
  if (t.vtable_size_ < 4 || t.vtable_size_ % 2 != 0 || !fits(buf, t.vtable_, t.vtable_size_)) {
    return invalid_argument("bad vtable size " + std::to_string(t.vtable_size_) + " for table at " +
                            std::to_string(pos));
  }
  if (t.inline_size_ < 4 || !fits(buf, pos, t.inline_size_)) {
    return invalid_argument("table at " + std::to_string(pos) + " runs past the buffer");
  }
  return t;
}

uint16_t Table::field_offset(int field) const {
  const size_t entry = 4 + 2 * static_cast<size_t>(field);
  if (field < 0 || entry + 2 > vtable_size_) return 0;
  return load<uint16_t>(buf_, vtable_ + entry);
}

Result<size_t> Table::scalar_pos(int field, size_t size) const {
  const uint16_t off = field_offset(field);
  if (off == 0) return size_t{0};
  if (off < 4 || size_t{off} + size > inline_size_) {
    return invalid_argument(field_name(field) + " lies outside its table");
  }
  return pos_ + off;
}

Result<size_t> Table::deref(int field) const {
  UNIVK_ASSIGN_OR_RETURN(size_t at, scalar_pos(field, 4));
  if (at == 0) return size_t{0};
  auto target = follow_offset(buf_, at);
  if (!target.ok()) return target.status().with_context(field_name(field));
  return *target;
}

Result<uint8_t> Table::u8(int field, uint8_t fallback) const {
  UNIVK_ASSIGN_OR_RETURN(size_t at, scalar_pos(field, 1));
  return at == 0 ? fallback : buf_[at];
}

Result<uint32_t> Table::u32(int field, uint32_t fallback) const {
  UNIVK_ASSIGN_OR_RETURN(size_t at, scalar_pos(field, 4));
  return at == 0 ? fallback : load<uint32_t>(buf_, at);
}

Result<int64_t> Table::i64(int field, int64_t fallback) const {
  UNIVK_ASSIGN_OR_RETURN(size_t at, scalar_pos(field, 8));
  return at == 0 ? fallback : load<int64_t>(buf_, at);
}

Result<std::optional<Table>> Table::table(int field) const {
  UNIVK_ASSIGN_OR_RETURN(size_t target, deref(field));
  if (target == 0) return std::optional<Table>();
  auto t = at(buf_, target);
  if (!t.ok()) return t.status().with_context(field_name(field));
  return std::optional<Table>(*t);
}

Result<std::optional<std::string_view>> Table::string(int field) const {
  UNIVK_ASSIGN_OR_RETURN(size_t target, deref(field));
  if (target == 0) return std::optional<std::string_view>();
  auto s = string_at(buf_, target);
  if (!s.ok()) return s.status().with_context(field_name(field));
  return std::optional<std::string_view>(*s);
}

Result<std::optional<Vector>> Table::vector(int field, size_t elem_size) const {
  UNIVK_ASSIGN_OR_RETURN(size_t target, deref(field));
  if (target == 0) return std::optional<Vector>();
  if (!fits(buf_, target, 4)) return invalid_argument(field_name(field) + ": vector length out of bounds");
  const uint32_t count = load<uint32_t>(buf_, target);
  if (!fits(buf_, target + 4, uint64_t{count} * elem_size)) {
    return invalid_argument(field_name(field) + ": vector of " + std::to_string(count) +
                            " elements runs past the buffer");
  }
  return std::optional<Vector>(Vector(buf_, target + 4, count, elem_size));
}

Result<std::vector<uint32_t>> Table::u32_list(int field) const {
  UNIVK_ASSIGN_OR_RETURN(auto v, vector(field, 4));
  std::vector<uint32_t> out;
  if (!v) return out;
  out.reserve(v->size());
  for (uint32_t i = 0; i < v->size(); ++i) out.push_back(v->u32(i));
  return out;
}

Result<std::vector<int64_t>> Table::i64_list(int field) const {
  UNIVK_ASSIGN_OR_RETURN(auto v, vector(field, 8));
  std::vector<int64_t> out;
  if (!v) return out;
  out.reserve(v->size());
  for (uint32_t i = 0; i < v->size(); ++i) out.push_back(v->i64(i));
  return out;
}

Result<std::vector<Table>> Table::table_list(int field) const {
  UNIVK_ASSIGN_OR_RETURN(auto v, vector(field, 4));
  std::vector<Table> out;
  if (!v) return out;
  out.reserve(v->size());
  for (uint32_t i = 0; i < v->size(); ++i) {
    auto t = v->table(i);
    if (!t.ok()) return t.status().with_context(field_name(field) + "[" + std::to_string(i) + "]");
    out.push_back(*t);
  }
  return out;
}

Result<std::vector<std::string>> Table::string_list(int field) const {
  UNIVK_ASSIGN_OR_RETURN(auto v, vector(field, 4));
  std::vector<std::string> out;
  if (!v) return out;
  out.reserve(v->size());
  for (uint32_t i = 0; i < v->size(); ++i) {
    auto s = v->string(i);
    if (!s.ok()) return s.status().with_context(field_name(field) + "[" + std::to_string(i) + "]");
    out.emplace_back(*s);
  }
  return out;
}

}  // namespace univk::vgf::fb
