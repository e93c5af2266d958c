#include "program_json.h"

#include <algorithm>
#include <cstring>

#include "univk/runtime/program_desc.h"
#include "univk/vgf/vgf_file.h"
#include "vgf_json.h"

namespace univk::dump {
namespace {

void write_compile_spec(JsonWriter& json, const std::vector<uint8_t>& bytes) {
  // Specs are opaque bytes; show them as text when they are printable.
  const bool printable = std::all_of(bytes.begin(), bytes.end(), [](uint8_t c) { return c >= 0x20 && c < 0x7f; });
  if (printable) {
    json.value(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } else {
    json.value("<" + std::to_string(bytes.size()) + " bytes>");
  }
}

}  // namespace

Status write_program_json(JsonWriter& json, std::span<const uint8_t> file, std::vector<std::string>& errors) {
  // The loader needs a 16-byte aligned start; a mapping is page aligned, a copy guarantees it.
  std::vector<uint8_t> aligned_copy;
  std::span<const uint8_t> bytes = file;
  if (reinterpret_cast<uintptr_t>(file.data()) % 16 != 0) {
    aligned_copy.assign(file.begin(), file.end());
    bytes = aligned_copy;
  }
  UNIVK_ASSIGN_OR_RETURN(runtime::ProgramDesc program, runtime::parse_program(bytes));
  json.begin_object();
  json.key("format").value("uvk");
  json.key("version").value(program.version);
  json.key("segments").begin_array();
  for (const auto& s : program.segments) {
    json.begin_object();
    json.key("offset").value(s.offset);
    json.key("size").value(s.size);
    json.end_object();
  }
  json.end_array();

  json.key("delegates").begin_array();
  for (size_t i = 0; i < program.delegates.size(); ++i) {
    const runtime::DelegateDesc& d = program.delegates[i];
    json.begin_object();
    json.key("index").value(uint64_t{i});
    json.key("backend").value(d.backend_id);
    json.key("segment").value(d.segment);
    json.key("payload_size").value(uint64_t{d.payload.size()});
    json.key("compile_specs").begin_object();
    for (const auto& [k, v] : d.compile_specs) {
      json.key(k);
      write_compile_spec(json, v);
    }
    json.end_object();
    const bool vgf_magic = d.payload.size() >= 4 && std::memcmp(d.payload.data(), "VGF1", 4) == 0;
    if (d.backend_id == "VgfBackend" || vgf_magic) {
      auto vgf = vgf::decode_vgf(d.payload);
      if (vgf.ok()) {
        json.key("vgf");
        write_vgf_json(json, *vgf, errors);
      } else {
        json.key("vgf_error").value(vgf.status().to_string());
        errors.push_back("delegate " + std::to_string(i) + ": " + vgf.status().to_string());
      }
    }
    json.end_object();
  }
  json.end_array();

  json.key("methods").begin_array();
  for (const runtime::MethodDesc& m : program.methods) {
    json.begin_object();
    json.key("name").value(m.name);
    json.key("inputs").array(m.inputs);
    json.key("outputs").array(m.outputs);
    json.key("values").begin_array();
    for (size_t i = 0; i < m.values.size(); ++i) {
      const runtime::ValueDesc& v = m.values[i];
      json.begin_object();
      json.key("id").value(uint64_t{i});
      json.key("dtype").value(dtype_name(v.info.dtype));
      json.key("shape").array(v.info.shape.dims());
      if (v.is_constant()) {
        json.key("constant_segment").value(*v.constant_segment);
        json.key("constant_bytes").value(uint64_t{v.constant_bytes.size()});
      }
      json.end_object();
    }
    json.end_array();
    json.key("instructions").begin_array();
    for (size_t k = 0; k < m.instructions.size(); ++k) {
      const runtime::InstructionDesc& ins = m.instructions[k];
      json.begin_object();
      if (const auto* call = std::get_if<runtime::DelegateCallDesc>(&ins)) {
        json.key("kind").value("delegate_call");
        json.key("delegate").value(call->delegate);
      } else {
        const auto& kernel = std::get<runtime::KernelCallDesc>(ins);
        json.key("kind").value("kernel_call");
        json.key("op").value(kernel.op);
        json.key("attributes").value(kernel.attributes.to_string());
      }
      json.key("inputs").array(runtime::instruction_inputs(ins));
      json.key("outputs").array(runtime::instruction_outputs(ins));
      // Debug metadata: the PyTorch nodes the instruction runs (absent in older programs).
      if (!m.sources[k].empty()) {
        json.key("sources").begin_array();
        for (const runtime::SourceNode& node : m.sources[k]) {
          json.begin_object();
          json.key("name").value(node.name);
          if (!node.location.empty()) json.key("location").value(node.location);
          json.end_object();
        }
        json.end_array();
      }
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return ok_status();
}

}  // namespace univk::dump
