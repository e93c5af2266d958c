#include "flatbuffer_builder.h"

#include <algorithm>
#include <cstring>

namespace univk::vgf::fb {
namespace {

class Writer {
 public:
  std::vector<uint8_t> buf;

  void pad_to(size_t align, size_t phase = 0) {
    while (buf.size() % align != phase % align) buf.push_back(0);
  }
  size_t put(uint64_t bits, size_t size) {
    const size_t at = buf.size();
    for (size_t i = 0; i < size; ++i) buf.push_back(static_cast<uint8_t>(bits >> (8 * i)));
    return at;
  }
  void patch_u32(size_t at, uint32_t v) { std::memcpy(buf.data() + at, &v, 4); }
  void patch_offset(size_t at, size_t target) { patch_u32(at, static_cast<uint32_t>(target - at)); }

  // Writes `node` and everything below it; returns the position offsets must point at.
  size_t write(const Node& node) {
    switch (node.kind) {
      case Node::Kind::kString: {
        pad_to(4);
        const size_t at = put(node.bytes.size(), 4);
        buf.insert(buf.end(), node.bytes.begin(), node.bytes.end());
        buf.push_back(0);
        return at;
      }
      case Node::Kind::kScalarVector: {
        // The length word sits right before the first element, which must be elem_align'd.
        pad_to(std::max<size_t>(node.elem_align, 4), std::max<size_t>(node.elem_align, 4) - 4);
        const size_t at = put(node.bytes.size() / node.elem_size, 4);
        buf.insert(buf.end(), node.bytes.begin(), node.bytes.end());
        return at;
      }
      case Node::Kind::kOffsetVector: {
        pad_to(4);
        const size_t at = put(node.children.size(), 4);
        std::vector<size_t> slots;
        for (size_t i = 0; i < node.children.size(); ++i) slots.push_back(put(0, 4));
        for (size_t i = 0; i < node.children.size(); ++i) patch_offset(slots[i], write(*node.children[i]));
        return at;
      }
      case Node::Kind::kTable:
        return write_table(node);
    }
    return 0;
  }

 private:
  size_t write_table(const Node& node) {
    // Inline layout: the soffset, then fields largest first so each is naturally aligned.
    std::vector<const Node::Field*> order;
    for (const auto& f : node.fields) order.push_back(&f);
    std::stable_sort(order.begin(), order.end(),
                     [](const Node::Field* a, const Node::Field* b) { return a->size > b->size; });
    const bool has8 = !order.empty() && order.front()->size == 8;
    int max_id = -1;
    for (const auto& f : node.fields) max_id = std::max(max_id, f.id);

    std::vector<uint16_t> field_offsets(static_cast<size_t>(max_id + 1), 0);
    size_t inline_size = 4;
    for (const Node::Field* f : order) {
      if (f->size == 8) {
        // The table start is 4 mod 8, so table offsets 4, 12, 20... are 8-aligned.
        while ((inline_size + 4) % 8 != 0) ++inline_size;
      } else {
        while (inline_size % f->size != 0) ++inline_size;
      }
      field_offsets[static_cast<size_t>(f->id)] = static_cast<uint16_t>(inline_size);
      inline_size += f->size;
    }
    // The vtable goes first, then the table (soffset = table - vtable, positive).
    pad_to(2);
    const size_t vtable = put(4 + 2 * field_offsets.size(), 2);
    put(inline_size, 2);
    for (uint16_t off : field_offsets) put(off, 2);
    if (has8) {
      pad_to(8, 4);
    } else {
      pad_to(4);
    }
    const size_t table = buf.size();
    put(static_cast<uint32_t>(table - vtable), 4);
    buf.resize(table + inline_size, 0);
    std::vector<std::pair<size_t, const Node*>> pending;
    for (const auto& f : node.fields) {
      const size_t at = table + field_offsets[static_cast<size_t>(f.id)];
      if (f.child) {
        pending.emplace_back(at, f.child.get());
      } else {
        for (size_t i = 0; i < f.size; ++i) buf[at + i] = static_cast<uint8_t>(f.bits >> (8 * i));
      }
    }
    for (const auto& [at, child] : pending) patch_offset(at, write(*child));
    return table;
  }
};

}  // namespace

Node& Node::add_u8(int id, uint8_t v) {
  fields.push_back({id, 1, v, nullptr});
  return *this;
}
Node& Node::add_u32(int id, uint32_t v) {
  fields.push_back({id, 4, v, nullptr});
  return *this;
}
Node& Node::add_i64(int id, int64_t v) {
  fields.push_back({id, 8, static_cast<uint64_t>(v), nullptr});
  return *this;
}
Node& Node::add_offset(int id, NodePtr child) {
  if (child) fields.push_back({id, 4, 0, std::move(child)});
  return *this;
}

NodePtr make_table() { return std::make_shared<Node>(); }

NodePtr make_string(std::string_view s) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kString;
  n->bytes.assign(s.begin(), s.end());
  return n;
}

namespace {
template <typename T>
NodePtr scalar_vector(std::span<const T> values, size_t align) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kScalarVector;
  n->elem_size = sizeof(T);
  n->elem_align = std::max(align, sizeof(T));
  n->bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(n->bytes.data(), values.data(), n->bytes.size());
  return n;
}
}  // namespace

NodePtr make_u32_vector(std::span<const uint32_t> values) { return scalar_vector(values, 4); }
NodePtr make_i64_vector(std::span<const int64_t> values) { return scalar_vector(values, 8); }
NodePtr make_u8_vector(std::span<const uint8_t> values, size_t align) { return scalar_vector(values, align); }

NodePtr make_offset_vector(std::vector<NodePtr> children) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kOffsetVector;
  n->children = std::move(children);
  return n;
}

std::vector<uint8_t> finish(const NodePtr& root) {
  Writer w;
  w.put(0, 4);
  w.patch_offset(0, w.write(*root));
  w.pad_to(4);
  return std::move(w.buf);
}

}  // namespace univk::vgf::fb
