// serialize_compute_graph / parse_compute_graph: ComputeGraph <-> FlatBuffers bytes
// (compute_graph.fbs). Parsing treats the bytes as untrusted: the FlatBuffers verifier checks
// every offset first, then each field is checked (dtype values, shapes, constant sizes) and the
// whole graph goes through validate_compute_graph.
#include <cstring>
#include <string>
#include <vector>

#include "compute_graph_generated.h"
#include "univk/backends/vulkan/compute_graph.h"

namespace univk::backends {
namespace {

constexpr uint32_t kGraphVersion = 1;

flatbuffers::Offset<fb::Attribute> write_attribute(flatbuffers::FlatBufferBuilder& b, const std::string& name,
                                                   const AttrValue& value) {
  auto name_off = b.CreateString(name);
  fb::AttrValue type = fb::AttrValue::NONE;
  flatbuffers::Offset<void> off;
  if (auto* i = std::get_if<int64_t>(&value)) {
    type = fb::AttrValue::IntAttr;
    off = fb::CreateIntAttr(b, *i).Union();
  } else if (auto* d = std::get_if<double>(&value)) {
    type = fb::AttrValue::FloatAttr;
    off = fb::CreateFloatAttr(b, *d).Union();
  } else if (auto* s = std::get_if<std::string>(&value)) {
    type = fb::AttrValue::StringAttr;
    off = fb::CreateStringAttr(b, b.CreateString(*s)).Union();
  } else if (auto* il = std::get_if<std::vector<int64_t>>(&value)) {
    type = fb::AttrValue::IntListAttr;
    off = fb::CreateIntListAttr(b, b.CreateVector(*il)).Union();
  } else if (auto* fl = std::get_if<std::vector<double>>(&value)) {
    type = fb::AttrValue::FloatListAttr;
    off = fb::CreateFloatListAttr(b, b.CreateVector(*fl)).Union();
  }
  return fb::CreateAttribute(b, name_off, type, off);
}

// Copies bytewise: the verifier checks only 4-byte alignment of a vector, so the elements of an
// int64/double vector in a hostile file may be misaligned for a direct load.
template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  if (v == nullptr) return {};
  std::vector<T> out(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

Result<AttrValue> read_attribute_value(const fb::Attribute& attr, const std::string& where) {
  // The verifier accepts a union whose type is set but whose table is absent.
  if (attr.value() == nullptr) return invalid_argument(where + " has no value");
  switch (attr.value_type()) {
    case fb::AttrValue::IntAttr:
      return AttrValue(attr.value_as_IntAttr()->value());
    case fb::AttrValue::FloatAttr:
      return AttrValue(attr.value_as_FloatAttr()->value());
    case fb::AttrValue::StringAttr: {
      const auto* s = attr.value_as_StringAttr()->value();
      return AttrValue(s ? s->str() : std::string());
    }
    case fb::AttrValue::IntListAttr:
      return AttrValue(to_vector(attr.value_as_IntListAttr()->values()));
    case fb::AttrValue::FloatListAttr:
      return AttrValue(to_vector(attr.value_as_FloatListAttr()->values()));
    default:
      return invalid_argument(where + " has no value (union type " +
                              std::to_string(static_cast<int>(attr.value_type())) + ")");
  }
}

Result<ComputeValue> read_value(const fb::Value& v, size_t index) {
  const std::string where = "values[" + std::to_string(index) + "]";
  ComputeValue out;
  std::optional<DType> dtype = dtype_from_value(v.dtype());
  if (!dtype) return invalid_argument(where + ".dtype " + std::to_string(v.dtype()) + " is not a known dtype");
  out.dtype = *dtype;
  auto shape = Shape::checked(to_vector(v.shape()));
  if (!shape.ok()) return shape.status().with_context(where + ".shape");
  out.shape = *shape;
  if (v.constant() != nullptr) out.constant.assign(v.constant()->begin(), v.constant()->end());
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> serialize_compute_graph(const ComputeGraph& graph) {
  UNIVK_RETURN_IF_ERROR(validate_compute_graph(graph));
  flatbuffers::FlatBufferBuilder b(1024 + 64 * graph.values.size());
  std::vector<flatbuffers::Offset<fb::Value>> values;
  values.reserve(graph.values.size());
  for (const ComputeValue& v : graph.values) {
    auto shape = b.CreateVector(v.shape.dims());
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> constant;
    if (v.is_constant()) {
      b.ForceVectorAlignment(v.constant.size(), 1, 16);  // lets a reader map constants in place
      constant = b.CreateVector(v.constant);
    }
    values.push_back(fb::CreateValue(b, static_cast<uint8_t>(v.dtype), shape, constant));
  }
  std::vector<flatbuffers::Offset<fb::Op>> ops;
  ops.reserve(graph.ops.size());
  for (const ComputeOp& op : graph.ops) {
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    for (const auto& [name, value] : op.attrs.values()) attrs.push_back(write_attribute(b, name, value));
    ops.push_back(fb::CreateOp(b, b.CreateString(op.name), b.CreateVector(attrs), b.CreateVector(op.inputs),
                               b.CreateVector(op.outputs)));
  }
  auto root = fb::CreateGraph(b, kGraphVersion, b.CreateVector(values), b.CreateVector(ops),
                              b.CreateVector(graph.inputs), b.CreateVector(graph.outputs));
  b.Finish(root, fb::GraphIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

Result<ComputeGraph> parse_compute_graph(std::span<const uint8_t> bytes) {
  // The verifier wants naturally aligned scalars; a misaligned span is copied first.
  std::vector<uint64_t> aligned_copy;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint64_t) != 0) {
    aligned_copy.resize((bytes.size() + 7) / 8);
    std::memcpy(aligned_copy.data(), bytes.data(), bytes.size());
    bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(aligned_copy.data()), bytes.size());
  }
  if (bytes.size() < 8)
    return invalid_argument("compute graph is " + std::to_string(bytes.size()) + " bytes, too short");
  if (!fb::GraphBufferHasIdentifier(bytes.data())) {
    return invalid_argument("compute graph lacks the file identifier \"UVKG\"");
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyGraphBuffer(verifier)) {
    return invalid_argument("compute graph failed FlatBuffers verification (truncated or corrupt)");
  }
  const fb::Graph* g = fb::GetGraph(bytes.data());
  if (g->version() != kGraphVersion) {
    return invalid_argument("compute graph version " + std::to_string(g->version()) + " is not supported (expected " +
                            std::to_string(kGraphVersion) + ")");
  }
  ComputeGraph graph;
  if (g->values() != nullptr) {
    graph.values.reserve(g->values()->size());
    for (flatbuffers::uoffset_t i = 0; i < g->values()->size(); ++i) {
      UNIVK_ASSIGN_OR_RETURN(ComputeValue v, read_value(*g->values()->Get(i), i));
      graph.values.push_back(std::move(v));
    }
  }
  if (g->ops() != nullptr) {
    graph.ops.reserve(g->ops()->size());
    for (flatbuffers::uoffset_t i = 0; i < g->ops()->size(); ++i) {
      const fb::Op* op = g->ops()->Get(i);
      const std::string where = "ops[" + std::to_string(i) + "]";
      ComputeOp out;
      if (op->name() == nullptr || op->name()->size() == 0) return invalid_argument(where + " has no name");
      out.name = op->name()->str();
      if (op->attributes() != nullptr) {
        for (flatbuffers::uoffset_t a = 0; a < op->attributes()->size(); ++a) {
          const fb::Attribute* attr = op->attributes()->Get(a);
          const std::string attr_where = where + ".attributes[" + std::to_string(a) + "]";
          if (attr->name() == nullptr || attr->name()->size() == 0)
            return invalid_argument(attr_where + " has no name");
          if (out.attrs.has(attr->name()->str())) {
            return invalid_argument(attr_where + " repeats attribute '" + attr->name()->str() + "'");
          }
          UNIVK_ASSIGN_OR_RETURN(AttrValue value, read_attribute_value(*attr, attr_where));
          out.attrs.set(attr->name()->str(), std::move(value));
        }
      }
      out.inputs = to_vector(op->inputs());
      out.outputs = to_vector(op->outputs());
      graph.ops.push_back(std::move(out));
    }
  }
  graph.inputs = to_vector(g->inputs());
  graph.outputs = to_vector(g->outputs());
  UNIVK_RETURN_IF_ERROR(validate_compute_graph(graph));
  return graph;
}

}  // namespace univk::backends
