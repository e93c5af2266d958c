// A small FlatBuffers writer (wire format only). Objects are described as a tree of nodes and
// serialized front to back: each table is followed by the objects it refers to, so every
// uoffset points forward as the format requires. Scalars are aligned to their size relative
// to the buffer start, int64 vectors to 8; the caller 8-aligns the buffer's file position.
//
// Ownership: nodes are shared_ptrs owned by their parents; `finish` returns a new buffer.
// Fields equal to their schema default should simply not be added (FlatBuffers convention).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace univk::vgf::fb {

struct Node;
using NodePtr = std::shared_ptr<Node>;

struct Node {
  enum class Kind { kTable, kScalarVector, kOffsetVector, kString };
  struct Field {
    int id = 0;
    size_t size = 0;    // 1, 4 or 8 for scalars; 4 for offsets
    uint64_t bits = 0;  // scalar value (little endian, low `size` bytes)
    NodePtr child;      // set for offset fields
  };
  Kind kind = Kind::kTable;
  std::vector<Field> fields;      // kTable
  std::vector<uint8_t> bytes;     // kScalarVector element bytes / kString characters
  size_t elem_size = 1;           // kScalarVector
  size_t elem_align = 1;          // kScalarVector: alignment of the first element
  std::vector<NodePtr> children;  // kOffsetVector

  // Table field setters (return *this for chaining).
  Node& add_u8(int id, uint8_t v);
  Node& add_u32(int id, uint32_t v);
  Node& add_i64(int id, int64_t v);
  Node& add_offset(int id, NodePtr child);  // no-op for a null child
};

NodePtr make_table();
NodePtr make_string(std::string_view s);
NodePtr make_u32_vector(std::span<const uint32_t> values);
NodePtr make_i64_vector(std::span<const int64_t> values);
NodePtr make_u8_vector(std::span<const uint8_t> values, size_t align = 1);
NodePtr make_offset_vector(std::vector<NodePtr> children);

// Serializes `root` as a finished buffer: [uoffset to root table][objects...].
std::vector<uint8_t> finish(const NodePtr& root);

}  // namespace univk::vgf::fb
