#include "univk/runtime/program_writer.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "program_generated.h"
#include "univk/base/file_map.h"
#include "univk/runtime/program_desc.h"

namespace univk::runtime {

namespace fbs = univk::runtime::fb;

ValueId MethodBuilder::add_value(DType dtype, Shape shape) {
  values_.push_back({dtype, std::move(shape), -1, std::nullopt});
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId MethodBuilder::add_constant(DType dtype, Shape shape, std::span<const uint8_t> bytes) {
  constants_.emplace_back(bytes.begin(), bytes.end());
  values_.push_back({dtype, std::move(shape), static_cast<int64_t>(constants_.size() - 1), std::nullopt});
  return static_cast<ValueId>(values_.size() - 1);
}

Status MethodBuilder::set_quantization(ValueId value, QuantizationDesc quantization) {
  if (value >= values_.size()) return invalid_argument("set_quantization: no value " + std::to_string(value));
  if (values_[value].dtype != DType::kInt8) return invalid_argument("set_quantization: the value is not int8");
  if (!std::isfinite(quantization.scale) || quantization.scale <= 0.0 || quantization.zero_point < -128 ||
      quantization.zero_point > 127) {
    return invalid_argument("set_quantization: scale " + std::to_string(quantization.scale) + ", zero point " +
                            std::to_string(quantization.zero_point) + " (a finite scale > 0 and an int8 zero point)");
  }
  values_[value].quantization = quantization;
  return ok_status();
}

void MethodBuilder::add_delegate_call(uint32_t delegate, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                                      std::vector<SourceNode> sources) {
  Instruction instruction;
  instruction.sources = std::move(sources);
  instruction.is_delegate_call = true;
  instruction.delegate = delegate;
  instruction.inputs = std::move(inputs);
  instruction.outputs = std::move(outputs);
  instructions_.push_back(std::move(instruction));
}

void MethodBuilder::add_kernel_call(std::string op, Attributes attributes, std::vector<ValueId> inputs,
                                    std::vector<ValueId> outputs, std::vector<SourceNode> sources) {
  Instruction instruction;
  instruction.sources = std::move(sources);
  instruction.op = std::move(op);
  instruction.attributes = std::move(attributes);
  instruction.inputs = std::move(inputs);
  instruction.outputs = std::move(outputs);
  instructions_.push_back(std::move(instruction));
}

void MethodBuilder::set_inputs(std::vector<ValueId> inputs) { inputs_ = std::move(inputs); }
void MethodBuilder::set_outputs(std::vector<ValueId> outputs) { outputs_ = std::move(outputs); }

uint32_t ProgramBuilder::add_delegate(std::string backend_id, std::span<const uint8_t> payload,
                                      CompileSpecs compile_specs) {
  delegates_.push_back({std::move(backend_id), {payload.begin(), payload.end()}, std::move(compile_specs)});
  return static_cast<uint32_t>(delegates_.size() - 1);
}

MethodBuilder& ProgramBuilder::add_method(std::string name) {
  methods_.push_back(std::make_unique<MethodBuilder>(std::move(name)));
  return *methods_.back();
}

namespace {

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

flatbuffers::Offset<fbs::Attribute> write_attribute(flatbuffers::FlatBufferBuilder& fbb, const std::string& name,
                                                    const AttrValue& value) {
  auto name_offset = fbb.CreateString(name);
  return std::visit(
      [&](const auto& v) -> flatbuffers::Offset<fbs::Attribute> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          return fbs::CreateAttribute(fbb, name_offset, fbs::AttrValue::IntAttr, fbs::CreateIntAttr(fbb, v).Union());
        } else if constexpr (std::is_same_v<T, double>) {
          return fbs::CreateAttribute(fbb, name_offset, fbs::AttrValue::FloatAttr,
                                      fbs::CreateFloatAttr(fbb, v).Union());
        } else if constexpr (std::is_same_v<T, std::string>) {
          return fbs::CreateAttribute(fbb, name_offset, fbs::AttrValue::StringAttr,
                                      fbs::CreateStringAttrDirect(fbb, v.c_str()).Union());
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return fbs::CreateAttribute(fbb, name_offset, fbs::AttrValue::IntListAttr,
                                      fbs::CreateIntListAttrDirect(fbb, &v).Union());
        } else {
          return fbs::CreateAttribute(fbb, name_offset, fbs::AttrValue::FloatListAttr,
                                      fbs::CreateFloatListAttrDirect(fbb, &v).Union());
        }
      },
      value);
}

}  // namespace

// Serializes a ProgramBuilder (a friend of it and of MethodBuilder).
struct ProgramSerializer {
  const ProgramBuilder& program;
  // Payload segments in file order: every delegate's payload, then every method's constants.
  std::vector<const std::vector<uint8_t>*> segments;
  // constant_segment[m][c]: the segment of constant c of method m.
  std::vector<std::vector<int64_t>> constant_segment;

  explicit ProgramSerializer(const ProgramBuilder& p) : program(p) {
    for (const auto& delegate : program.delegates_) segments.push_back(&delegate.payload);
    constant_segment.resize(program.methods_.size());
    for (size_t m = 0; m < program.methods_.size(); ++m) {
      for (const auto& constant : program.methods_[m]->constants_) {
        constant_segment[m].push_back(static_cast<int64_t>(segments.size()));
        segments.push_back(&constant);
      }
    }
  }

  int64_t value_segment(size_t m, size_t v) const {
    int64_t constant = program.methods_[m]->values_[v].constant;
    return constant < 0 ? -1 : constant_segment[m][static_cast<size_t>(constant)];
  }

  // The size-prefixed FlatBuffer with segment offsets starting at `segment_base`.
  std::vector<uint8_t> flatbuffer(uint64_t segment_base) const {
    flatbuffers::FlatBufferBuilder fbb(1024);
    std::vector<fbs::Segment> segment_table;
    uint64_t offset = segment_base;
    for (const auto* segment : segments) {
      segment_table.emplace_back(offset, segment->size());
      offset = align_up(offset + segment->size(), kSegmentAlignment);
    }

    std::vector<flatbuffers::Offset<fbs::Delegate>> delegate_offsets;
    for (size_t d = 0; d < program.delegates_.size(); ++d) {
      const auto& delegate = program.delegates_[d];
      std::vector<flatbuffers::Offset<fbs::CompileSpec>> specs;
      for (const auto& [key, value] : delegate.compile_specs) {
        specs.push_back(fbs::CreateCompileSpecDirect(fbb, key.c_str(), &value));
      }
      delegate_offsets.push_back(
          fbs::CreateDelegateDirect(fbb, delegate.backend_id.c_str(), &specs, static_cast<uint32_t>(d)));
    }

    std::vector<flatbuffers::Offset<fbs::Method>> method_offsets;
    for (size_t m = 0; m < program.methods_.size(); ++m) {
      const MethodBuilder& method = *program.methods_[m];
      std::vector<flatbuffers::Offset<fbs::Value>> values;
      for (size_t v = 0; v < method.values_.size(); ++v) {
        const auto& value = method.values_[v];
        flatbuffers::Offset<fbs::Quantization> quantization;
        if (value.quantization) {
          quantization = fbs::CreateQuantization(fbb, value.quantization->scale, value.quantization->zero_point);
        }
        values.push_back(fbs::CreateValueDirect(fbb, static_cast<uint32_t>(value.dtype), &value.shape.dims(),
                                                value_segment(m, v), quantization));
      }
      std::vector<flatbuffers::Offset<fbs::Instruction>> instructions;
      for (const auto& instruction : method.instructions_) {
        // Absent (not an empty vector) without debug metadata: the file stays as before.
        flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::SourceNode>>> sources;
        if (!instruction.sources.empty()) {
          std::vector<flatbuffers::Offset<fbs::SourceNode>> nodes;
          for (const SourceNode& node : instruction.sources) {
            nodes.push_back(fbs::CreateSourceNodeDirect(fbb, node.name.c_str(), node.location.c_str()));
          }
          sources = fbb.CreateVector(nodes);
        }
        if (instruction.is_delegate_call) {
          auto call =
              fbs::CreateDelegateCallDirect(fbb, instruction.delegate, &instruction.inputs, &instruction.outputs);
          instructions.push_back(
              fbs::CreateInstruction(fbb, fbs::InstructionKind::DelegateCall, call.Union(), sources));
        } else {
          std::vector<flatbuffers::Offset<fbs::Attribute>> attributes;
          for (const auto& [name, value] : instruction.attributes.values()) {
            attributes.push_back(write_attribute(fbb, name, value));
          }
          auto call = fbs::CreateKernelCallDirect(fbb, instruction.op.c_str(), &attributes, &instruction.inputs,
                                                  &instruction.outputs);
          instructions.push_back(fbs::CreateInstruction(fbb, fbs::InstructionKind::KernelCall, call.Union(), sources));
        }
      }
      method_offsets.push_back(fbs::CreateMethodDirect(fbb, method.name_.c_str(), &values, &method.inputs_,
                                                       &method.outputs_, &instructions));
    }

    auto root =
        fbs::CreateProgramDirect(fbb, kProgramFormatVersion, &segment_table, &delegate_offsets, &method_offsets);
    fbs::FinishSizePrefixedProgramBuffer(fbb, root);
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
  }

  Result<std::vector<uint8_t>> file() const {
    // The FlatBuffer's size does not depend on the segment offsets (fixed-size structs), so a
    // first build measures it and a second one writes the final offsets.
    std::vector<uint8_t> header = flatbuffer(0);
    const uint64_t base = align_up(header.size(), kSegmentAlignment);
    header = flatbuffer(base);
    if (align_up(header.size(), kSegmentAlignment) != base) {
      return internal_error("program writer: FlatBuffer size changed between passes");
    }
    // No padding after the last segment: a file cut anywhere is then detectably short.
    uint64_t total = header.size();
    uint64_t end = base;
    for (const auto* segment : segments) {
      total = end + segment->size();
      end = align_up(total, kSegmentAlignment);
    }
    std::vector<uint8_t> bytes(total, 0);
    std::memcpy(bytes.data(), header.data(), header.size());
    uint64_t offset = base;
    for (const auto* segment : segments) {
      if (!segment->empty()) std::memcpy(bytes.data() + offset, segment->data(), segment->size());
      offset = align_up(offset + segment->size(), kSegmentAlignment);
    }
    return bytes;
  }
};

Result<std::vector<uint8_t>> ProgramBuilder::finish() const {
  UNIVK_ASSIGN_OR_RETURN(auto bytes, ProgramSerializer(*this).file());
  // The runtime's own checks (a vector's storage is 16-byte aligned: operator new).
  auto parsed = parse_program(bytes);
  if (!parsed.ok()) return parsed.status().with_context("program writer");
  return bytes;
}

Status ProgramBuilder::write(const std::string& path) const {
  UNIVK_ASSIGN_OR_RETURN(auto bytes, finish());
  return write_file(path, bytes);
}

}  // namespace univk::runtime
