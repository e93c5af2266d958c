// parse_program: verifies a .uvk file and turns it into a ProgramDesc. Nothing read from the file
// is used before it is checked; every error names the field and the value.
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "program_generated.h"
#include "univk/runtime/program_desc.h"
#include "univk/runtime/program_writer.h"

namespace univk::runtime {

namespace fbs = univk::runtime::fb;

const std::vector<uint32_t>& instruction_inputs(const InstructionDesc& instruction) {
  return std::visit([](const auto& call) -> const std::vector<uint32_t>& { return call.inputs; }, instruction);
}

const std::vector<uint32_t>& instruction_outputs(const InstructionDesc& instruction) {
  return std::visit([](const auto& call) -> const std::vector<uint32_t>& { return call.outputs; }, instruction);
}

namespace {

// Limits that keep every later size computation far from overflow.
constexpr size_t kMaxRank = 16;
constexpr uint64_t kMaxValueBytes = uint64_t{1} << 42;  // 4 TiB: beyond any device
// The FlatBuffers verifier works on buffers below 2 GiB.
constexpr uint64_t kMaxFlatBufferBytes = (uint64_t{1} << 31) - 16;

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

std::string printable(std::span<const uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) {
    if (b >= 0x20 && b < 0x7f) {
      out += static_cast<char>(b);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", b);
      out += buf;
    }
  }
  return out;
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

class MethodParser {
 public:
  MethodParser(const ProgramDesc& program, const fbs::Method& method, size_t index)
      : program_(program), method_(method), index_(index) {}

  Result<MethodDesc> parse() {
    if (method_.name() == nullptr || method_.name()->size() == 0) {
      return invalid_argument("method " + std::to_string(index_) + ": missing name");
    }
    desc_.name = method_.name()->str();
    where_ = "method '" + desc_.name + "'";
    UNIVK_RETURN_IF_ERROR(parse_values());
    written_.assign(desc_.values.size(), false);
    for (size_t v = 0; v < desc_.values.size(); ++v) written_[v] = desc_.values[v].is_constant();

    desc_.inputs = to_vector(method_.inputs());
    std::set<uint32_t> seen;
    for (size_t i = 0; i < desc_.inputs.size(); ++i) {
      const uint32_t v = desc_.inputs[i];
      const std::string field = where_ + " input " + std::to_string(i);
      UNIVK_RETURN_IF_ERROR(check_value_id(field, v));
      if (desc_.values[v].is_constant())
        return invalid_argument(field + ": value " + std::to_string(v) + " is a constant");
      if (!seen.insert(v).second) return invalid_argument(field + ": value " + std::to_string(v) + " listed twice");
      written_[v] = true;
    }

    if (method_.instructions() != nullptr) {
      for (uint32_t i = 0; i < method_.instructions()->size(); ++i) {
        UNIVK_ASSIGN_OR_RETURN(auto instruction, parse_instruction(i, *method_.instructions()->Get(i)));
        desc_.instructions.push_back(std::move(instruction));
        desc_.sources.push_back(parse_sources(*method_.instructions()->Get(i)));
      }
    }

    desc_.outputs = to_vector(method_.outputs());
    for (size_t i = 0; i < desc_.outputs.size(); ++i) {
      const uint32_t v = desc_.outputs[i];
      const std::string field = where_ + " output " + std::to_string(i);
      UNIVK_RETURN_IF_ERROR(check_value_id(field, v));
      if (!written_[v]) return invalid_argument(field + ": value " + std::to_string(v) + " is never written");
    }
    return std::move(desc_);
  }

 private:
  Status parse_values() {
    if (method_.values() == nullptr) return ok_status();
    for (uint32_t v = 0; v < method_.values()->size(); ++v) {
      const fbs::Value& value = *method_.values()->Get(v);
      const std::string field = where_ + " value " + std::to_string(v);
      ValueDesc desc;
      auto dtype = dtype_from_value(value.dtype());
      if (!dtype) return invalid_argument(field + ": unknown dtype " + std::to_string(value.dtype()));
      desc.info.dtype = *dtype;
      std::vector<int64_t> dims = to_vector(value.shape());
      if (dims.size() > kMaxRank) {
        return invalid_argument(field + ": rank " + std::to_string(dims.size()) + " exceeds " +
                                std::to_string(kMaxRank));
      }
      uint64_t bytes = dtype_size(*dtype);
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] < 0) {
          return invalid_argument(field + ": dimension " + std::to_string(d) + " is negative (" +
                                  std::to_string(dims[d]) + ")");
        }
        if (dims[d] != 0 && bytes > kMaxValueBytes / static_cast<uint64_t>(dims[d])) {
          return invalid_argument(field + ": shape " + Shape(dims).to_string() + " is too large (over " +
                                  std::to_string(kMaxValueBytes) + " bytes)");
        }
        bytes *= static_cast<uint64_t>(dims[d]);
      }
      desc.info.shape = Shape(std::move(dims));
      if (const fbs::Quantization* q = value.quantization()) {
        if (*dtype != DType::kInt8 || !std::isfinite(q->scale()) || q->scale() <= 0.0 || q->zero_point() < -128 ||
            q->zero_point() > 127) {
          return invalid_argument(field + ": quantization (scale " + std::to_string(q->scale()) + ", zero point " +
                                  std::to_string(q->zero_point()) + ") needs an int8 value, a finite scale > 0 and " +
                                  "an int8 zero point");
        }
        desc.quantization = QuantizationDesc{q->scale(), q->zero_point()};
      }
      const int64_t segment = value.constant_segment();
      if (segment != -1) {
        if (segment < 0 || static_cast<uint64_t>(segment) >= program_.segments.size()) {
          return invalid_argument(field + ": constant_segment " + std::to_string(segment) + " out of range (" +
                                  std::to_string(program_.segments.size()) + " segments)");
        }
        const SegmentDesc& seg = program_.segments[static_cast<size_t>(segment)];
        if (seg.size != bytes) {
          return invalid_argument(field + ": constant_segment " + std::to_string(segment) + " holds " +
                                  std::to_string(seg.size) + " bytes, " + std::string(dtype_name(*dtype)) +
                                  desc.info.shape.to_string() + " needs " + std::to_string(bytes));
        }
        desc.constant_segment = static_cast<uint32_t>(segment);
      }
      desc_.values.push_back(std::move(desc));
    }
    return ok_status();
  }

  Status check_value_id(const std::string& field, uint32_t v) const {
    if (v >= desc_.values.size()) {
      return invalid_argument(field + ": value " + std::to_string(v) + " out of range (" +
                              std::to_string(desc_.values.size()) + " values)");
    }
    return ok_status();
  }

  // Inputs must be written already; outputs must be fresh (each value is written once).
  Status check_operands(const std::string& where, const std::vector<uint32_t>& inputs,
                        const std::vector<uint32_t>& outputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string field = where + " input " + std::to_string(i);
      UNIVK_RETURN_IF_ERROR(check_value_id(field, inputs[i]));
      if (!written_[inputs[i]]) {
        return invalid_argument(field + ": value " + std::to_string(inputs[i]) + " is read before it is written");
      }
    }
    if (outputs.empty()) return invalid_argument(where + ": no outputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string field = where + " output " + std::to_string(i);
      UNIVK_RETURN_IF_ERROR(check_value_id(field, outputs[i]));
      if (written_[outputs[i]]) {
        return invalid_argument(field + ": value " + std::to_string(outputs[i]) +
                                " is written twice (by a program input, a constant or an earlier instruction)");
      }
      written_[outputs[i]] = true;
    }
    return ok_status();
  }

  Result<AttrValue> parse_attribute_value(const std::string& field, const fbs::Attribute& attribute) {
    // The verifier accepts a union whose type is set but whose table is absent.
    if (attribute.value() == nullptr) return invalid_argument(field + ": missing value");
    switch (attribute.value_type()) {
      case fbs::AttrValue::IntAttr:
        return AttrValue(attribute.value_as_IntAttr()->value());
      case fbs::AttrValue::FloatAttr:
        return AttrValue(attribute.value_as_FloatAttr()->value());
      case fbs::AttrValue::StringAttr: {
        const auto* s = attribute.value_as_StringAttr()->value();
        return AttrValue(s == nullptr ? std::string() : s->str());
      }
      case fbs::AttrValue::IntListAttr:
        return AttrValue(to_vector(attribute.value_as_IntListAttr()->values()));
      case fbs::AttrValue::FloatListAttr:
        return AttrValue(to_vector(attribute.value_as_FloatListAttr()->values()));
      default:
        return invalid_argument(field + ": unknown value type " +
                                std::to_string(static_cast<int>(attribute.value_type())));
    }
  }

  // Debug metadata only: a missing name or location reads as empty, never an error.
  static std::vector<SourceNode> parse_sources(const fbs::Instruction& instruction) {
    std::vector<SourceNode> sources;
    if (instruction.sources() == nullptr) return sources;
    for (const fbs::SourceNode* node : *instruction.sources()) {
      if (node == nullptr) continue;
      sources.push_back({node->name() ? node->name()->str() : "", node->location() ? node->location()->str() : ""});
    }
    return sources;
  }

  Result<InstructionDesc> parse_instruction(uint32_t index, const fbs::Instruction& instruction) {
    const std::string where = where_ + " instruction " + std::to_string(index);
    if (instruction.kind() == nullptr && instruction.kind_type() != fbs::InstructionKind::NONE) {
      return invalid_argument(where + ": instruction kind " +
                              std::to_string(static_cast<int>(instruction.kind_type())) + " without its table");
    }
    switch (instruction.kind_type()) {
      case fbs::InstructionKind::DelegateCall: {
        const fbs::DelegateCall& call = *instruction.kind_as_DelegateCall();
        DelegateCallDesc desc;
        desc.delegate = call.delegate();
        if (desc.delegate >= program_.delegates.size()) {
          return invalid_argument(where + " (DelegateCall): delegate " + std::to_string(desc.delegate) +
                                  " out of range (" + std::to_string(program_.delegates.size()) + " delegates)");
        }
        desc.inputs = to_vector(call.inputs());
        desc.outputs = to_vector(call.outputs());
        UNIVK_RETURN_IF_ERROR(check_operands(
            where + " (DelegateCall " + program_.delegates[desc.delegate].backend_id + ")", desc.inputs, desc.outputs));
        return InstructionDesc(std::move(desc));
      }
      case fbs::InstructionKind::KernelCall: {
        const fbs::KernelCall& call = *instruction.kind_as_KernelCall();
        if (call.op() == nullptr || call.op()->size() == 0)
          return invalid_argument(where + " (KernelCall): missing op");
        KernelCallDesc desc;
        desc.op = call.op()->str();
        const std::string kernel_where = where + " (KernelCall '" + desc.op + "')";
        if (call.attributes() != nullptr) {
          for (uint32_t a = 0; a < call.attributes()->size(); ++a) {
            const fbs::Attribute& attribute = *call.attributes()->Get(a);
            std::string field = kernel_where + " attribute " + std::to_string(a);
            if (attribute.name() == nullptr || attribute.name()->size() == 0) {
              return invalid_argument(field + ": missing name");
            }
            const std::string name = attribute.name()->str();
            field += " '" + name + "'";
            if (desc.attributes.has(name)) return invalid_argument(field + ": duplicate name");
            UNIVK_ASSIGN_OR_RETURN(auto value, parse_attribute_value(field, attribute));
            desc.attributes.set(name, std::move(value));
          }
        }
        desc.inputs = to_vector(call.inputs());
        desc.outputs = to_vector(call.outputs());
        UNIVK_RETURN_IF_ERROR(check_operands(kernel_where, desc.inputs, desc.outputs));
        return InstructionDesc(std::move(desc));
      }
      default:
        return invalid_argument(where + ": unknown instruction kind " +
                                std::to_string(static_cast<int>(instruction.kind_type())));
    }
  }

  const ProgramDesc& program_;
  const fbs::Method& method_;
  size_t index_;
  std::string where_;
  MethodDesc desc_;
  std::vector<bool> written_;
};

Status parse_segments(const fbs::Program& root, std::span<const uint8_t> file, uint64_t first_segment_offset,
                      ProgramDesc& desc) {
  if (root.segments() == nullptr) return ok_status();
  // The verifier checks only 4-byte alignment of a vector; Segment structs hold uint64 fields.
  // (An empty table has no element to load, and FlatBuffers does not align it.)
  if (root.segments()->size() != 0 &&
      reinterpret_cast<uintptr_t>(root.segments()->Data()) % alignof(fbs::Segment) != 0) {
    return invalid_argument("segment table is not " + std::to_string(alignof(fbs::Segment)) + "-byte aligned");
  }
  for (uint32_t s = 0; s < root.segments()->size(); ++s) {
    const fbs::Segment& segment = *root.segments()->Get(s);
    const std::string field = "segment " + std::to_string(s);
    const uint64_t offset = segment.offset();
    const uint64_t size = segment.size();
    if (offset % kSegmentAlignment != 0) {
      return invalid_argument(field + ": offset " + std::to_string(offset) + " is not a multiple of " +
                              std::to_string(kSegmentAlignment));
    }
    if (offset < first_segment_offset) {
      return invalid_argument(field + ": offset " + std::to_string(offset) +
                              " lies inside the FlatBuffer (which ends at " + std::to_string(first_segment_offset) +
                              ")");
    }
    if (offset > file.size() || size > file.size() - offset) {
      return invalid_argument(field + ": bytes [" + std::to_string(offset) + ", +" + std::to_string(size) +
                              ") run past the end of the file (" + std::to_string(file.size()) + " bytes)");
    }
    desc.segments.push_back({offset, size});
  }
  return ok_status();
}

Status parse_delegates(const fbs::Program& root, std::span<const uint8_t> file, ProgramDesc& desc) {
  if (root.delegates() == nullptr) return ok_status();
  for (uint32_t d = 0; d < root.delegates()->size(); ++d) {
    const fbs::Delegate& delegate = *root.delegates()->Get(d);
    const std::string field = "delegate " + std::to_string(d);
    DelegateDesc out;
    if (delegate.backend_id() == nullptr || delegate.backend_id()->size() == 0) {
      return invalid_argument(field + ": missing backend_id");
    }
    out.backend_id = delegate.backend_id()->str();
    if (delegate.segment() >= desc.segments.size()) {
      return invalid_argument(field + " (" + out.backend_id + "): segment " + std::to_string(delegate.segment()) +
                              " out of range (" + std::to_string(desc.segments.size()) + " segments)");
    }
    out.segment = delegate.segment();
    const SegmentDesc& segment = desc.segments[out.segment];
    out.payload = file.subspan(segment.offset, segment.size);
    if (delegate.compile_specs() != nullptr) {
      for (uint32_t c = 0; c < delegate.compile_specs()->size(); ++c) {
        const fbs::CompileSpec& spec = *delegate.compile_specs()->Get(c);
        const std::string spec_field = field + " (" + out.backend_id + ") compile spec " + std::to_string(c);
        if (spec.key() == nullptr || spec.key()->size() == 0) return invalid_argument(spec_field + ": missing key");
        const std::string key = spec.key()->str();
        if (out.compile_specs.count(key) != 0) return invalid_argument(spec_field + ": duplicate key '" + key + "'");
        out.compile_specs[key] = to_vector(spec.value());
      }
    }
    desc.delegates.push_back(std::move(out));
  }
  return ok_status();
}

}  // namespace

Result<ProgramDesc> parse_program(std::span<const uint8_t> file) {
  if (reinterpret_cast<uintptr_t>(file.data()) % kSegmentAlignment != 0) {
    return invalid_argument("program bytes are not 16-byte aligned in memory");
  }
  constexpr size_t kPrefix = sizeof(flatbuffers::uoffset_t);
  if (file.size() < kPrefix + 8) {
    return invalid_argument("program file too small (" + std::to_string(file.size()) + " bytes): not a univk program");
  }
  const std::span<const uint8_t> identifier = file.subspan(kPrefix + 4, 4);
  if (std::memcmp(identifier.data(), fbs::ProgramIdentifier(), 4) != 0) {
    return invalid_argument("not a univk program: file identifier is '" + printable(identifier) + "', expected '" +
                            fbs::ProgramIdentifier() + "'");
  }
  uint32_t flatbuffer_size = 0;
  std::memcpy(&flatbuffer_size, file.data(), kPrefix);  // little-endian, as FlatBuffers
  if (flatbuffer_size > kMaxFlatBufferBytes || flatbuffer_size > file.size() - kPrefix) {
    return invalid_argument("FlatBuffer size " + std::to_string(flatbuffer_size) + " exceeds the file (" +
                            std::to_string(file.size()) + " bytes)");
  }
  const size_t header_size = kPrefix + flatbuffer_size;
  flatbuffers::Verifier verifier(file.data(), header_size);
  if (!fbs::VerifySizePrefixedProgramBuffer(verifier)) {
    return invalid_argument("program FlatBuffer failed verification (corrupt or truncated file)");
  }
  const fbs::Program& root = *fbs::GetSizePrefixedProgram(file.data());

  ProgramDesc desc;
  desc.version = root.version();
  if (desc.version == 0) return invalid_argument("program version 0 (missing version field)");
  if (desc.version > kProgramFormatVersion) {
    return incompatible("program format version " + std::to_string(desc.version) + " is newer than this runtime (" +
                        std::to_string(kProgramFormatVersion) + ")");
  }
  UNIVK_RETURN_IF_ERROR(parse_segments(root, file, align_up(header_size, kSegmentAlignment), desc));
  UNIVK_RETURN_IF_ERROR(parse_delegates(root, file, desc));

  if (root.methods() != nullptr) {
    std::set<std::string> names;
    for (uint32_t m = 0; m < root.methods()->size(); ++m) {
      UNIVK_ASSIGN_OR_RETURN(auto method, MethodParser(desc, *root.methods()->Get(m), m).parse());
      if (!names.insert(method.name).second) {
        return invalid_argument("method " + std::to_string(m) + ": duplicate name '" + method.name + "'");
      }
      desc.methods.push_back(std::move(method));
    }
  }
  // Constant bytes are filled in last: desc.segments no longer moves.
  for (auto& method : desc.methods) {
    for (auto& value : method.values) {
      if (value.is_constant()) {
        const SegmentDesc& segment = desc.segments[*value.constant_segment];
        value.constant_bytes = file.subspan(segment.offset, segment.size);
      }
    }
  }
  return desc;
}

}  // namespace univk::runtime
