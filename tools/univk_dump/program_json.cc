#include "program_json.h"

#include <algorithm>

#include "attributes_json.h"
#include "vgf_json.h"
#if UNIVK_BUILD_VULKAN_BACKEND
#include "compute_graph_json.h"
#endif

namespace univk::dump {
namespace {

using tools::Json;

// Specs are opaque bytes; shown as text when they are printable.
Json compile_spec_json(const std::vector<uint8_t>& bytes) {
  const bool printable = std::all_of(bytes.begin(), bytes.end(), [](uint8_t c) { return c >= 0x20 && c < 0x7f; });
  if (printable) return std::string(bytes.begin(), bytes.end());
  return "<" + std::to_string(bytes.size()) + " bytes>";
}

Json delegate_json(size_t index, const runtime::DelegateDesc& d, const DecodedDelegate& decoded,
                   std::vector<std::string>& errors) {
  Json out = {{"index", index}, {"backend", d.backend_id}, {"segment", d.segment}, {"payload_size", d.payload.size()}};
  Json specs = Json::object();
  for (const auto& [k, v] : d.compile_specs) specs[k] = compile_spec_json(v);
  out["compile_specs"] = std::move(specs);
  const char* error_key = d.backend_id == "VgfBackend" ? "vgf_error" : "compute_graph_error";
  if (!decoded.error.empty()) {
    out[error_key] = decoded.error;
    errors.push_back("delegate " + std::to_string(index) + ": " + decoded.error);
  }
  if (decoded.vgf) out["vgf"] = vgf_json(*decoded.vgf, errors);
#if UNIVK_BUILD_VULKAN_BACKEND
  if (decoded.compute) out["compute_graph"] = compute_graph_json(*decoded.compute);
#endif
  return out;
}

Json method_json(const runtime::MethodDesc& m) {
  Json values = Json::array();
  for (size_t i = 0; i < m.values.size(); ++i) {
    const runtime::ValueDesc& v = m.values[i];
    Json value = {{"id", i}, {"dtype", dtype_name(v.info.dtype)}, {"shape", v.info.shape.dims()}};
    if (v.is_constant()) {
      value["constant_segment"] = *v.constant_segment;
      value["constant_bytes"] = v.constant_bytes.size();
    }
    if (v.quantization) {
      value["quantization"] = {{"scale", v.quantization->scale}, {"zero_point", v.quantization->zero_point}};
    }
    values.push_back(std::move(value));
  }
  Json instructions = Json::array();
  for (size_t k = 0; k < m.instructions.size(); ++k) {
    const runtime::InstructionDesc& ins = m.instructions[k];
    Json instruction;
    if (const auto* call = std::get_if<runtime::DelegateCallDesc>(&ins)) {
      instruction["kind"] = "delegate_call";
      instruction["delegate"] = call->delegate;
    } else {
      const auto& kernel = std::get<runtime::KernelCallDesc>(ins);
      instruction["kind"] = "kernel_call";
      instruction["op"] = kernel.op;
      instruction["attributes"] = attributes_json(kernel.attributes);
    }
    instruction["inputs"] = runtime::instruction_inputs(ins);
    instruction["outputs"] = runtime::instruction_outputs(ins);
    // Debug metadata: the PyTorch nodes the instruction runs (absent in older programs).
    if (!m.sources[k].empty()) {
      Json sources = Json::array();
      for (const runtime::SourceNode& node : m.sources[k]) {
        Json source = {{"name", node.name}};
        if (!node.location.empty()) source["location"] = node.location;
        sources.push_back(std::move(source));
      }
      instruction["sources"] = std::move(sources);
    }
    instructions.push_back(std::move(instruction));
  }
  return {{"name", m.name},
          {"inputs", m.inputs},
          {"outputs", m.outputs},
          {"values", std::move(values)},
          {"instructions", std::move(instructions)}};
}

}  // namespace

Json program_json(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates,
                  std::vector<std::string>& errors) {
  Json out = {{"format", "uvk"}, {"version", program.version}};
  Json segments = Json::array();
  for (const auto& s : program.segments) segments.push_back({{"offset", s.offset}, {"size", s.size}});
  out["segments"] = std::move(segments);
  Json delegate_list = Json::array();
  for (size_t i = 0; i < program.delegates.size(); ++i) {
    delegate_list.push_back(delegate_json(i, program.delegates[i], delegates[i], errors));
  }
  out["delegates"] = std::move(delegate_list);
  Json methods = Json::array();
  for (const runtime::MethodDesc& m : program.methods) methods.push_back(method_json(m));
  out["methods"] = std::move(methods);
  return out;
}

}  // namespace univk::dump
