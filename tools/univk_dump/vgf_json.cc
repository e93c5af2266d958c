#include "vgf_json.h"

#include "attributes_json.h"

namespace univk::dump {
namespace {

using tools::Json;

std::string version_string(const vgf::VgfVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

Json slots_json(const std::vector<vgf::BindingSlot>& slots) {
  Json out = Json::array();
  for (const auto& s : slots) out.push_back({{"binding", s.binding}, {"resource", s.resource_index}});
  return out;
}

std::string_view kind_name(spirv::ValueKind k) {
  switch (k) {
    case spirv::ValueKind::kGraphInput:
      return "input";
    case spirv::ValueKind::kConstant:
      return "constant";
    case spirv::ValueKind::kGraphConstant:
      return "graph_constant";
    case spirv::ValueKind::kOperation:
      return "operation";
  }
  return "?";
}

Json bindings_json(const std::vector<spirv::GraphBinding>& list) {
  Json out = Json::array();
  for (const auto& b : list) out.push_back({{"value", b.value}, {"set", b.descriptor_set}, {"binding", b.binding}});
  return out;
}

Json graph_json(const spirv::TosaGraph& g) {
  Json out;
  out["entry_point"] = g.entry_point;
  Json values = Json::array();
  for (size_t i = 0; i < g.values.size(); ++i) {
    const spirv::TosaValue& v = g.values[i];
    Json value = {{"id", i}, {"kind", kind_name(v.kind)}, {"type", spirv::to_string(v.type)}};
    if (v.kind == spirv::ValueKind::kConstant) value["bytes"] = v.data.size();
    if (v.kind == spirv::ValueKind::kGraphConstant) value["graph_constant_id"] = v.graph_constant_id;
    values.push_back(std::move(value));
  }
  out["values"] = std::move(values);
  out["inputs"] = bindings_json(g.inputs);
  Json operations = Json::array();
  for (const auto& op : g.operations) {
    operations.push_back({{"op", spirv::tosa_op_name(op.op)},
                          {"inputs", op.inputs},
                          {"outputs", op.outputs},
                          {"attributes", attributes_json(op.attrs)}});
  }
  out["operations"] = std::move(operations);
  out["outputs"] = bindings_json(g.outputs);
  return out;
}

std::string_view code_type_name(vgf::ModuleCodeType t) {
  switch (t) {
    case vgf::ModuleCodeType::kNone:
      return "NONE";
    case vgf::ModuleCodeType::kSpirv:
      return "SPIRV";
    case vgf::ModuleCodeType::kGlsl:
      return "GLSL";
    case vgf::ModuleCodeType::kHlsl:
      return "HLSL";
  }
  return "?";
}

// A GRAPH module with a real SPIR-V body (fewer words than a SPIR-V header is a placeholder
// that a scenario substitutes).
bool has_graph(const vgf::Module& m) {
  return m.code_type == vgf::ModuleCodeType::kSpirv && m.type == vgf::ModuleType::kGraph && m.spirv().size() >= 5;
}

}  // namespace

std::vector<spirv::TosaGraph> vgf_graphs(const vgf::VgfFile& f) {
  std::vector<spirv::TosaGraph> graphs;
  for (const vgf::Module& m : f.modules) {
    if (!has_graph(m)) continue;
    auto graph = spirv::read_tosa_graph(m.spirv());
    if (graph.ok()) graphs.push_back(std::move(graph).value());
  }
  return graphs;
}

Json vgf_json(const vgf::VgfFile& f, std::vector<std::string>& errors) {
  Json out;
  out["format"] = "vgf";
  out["header"] = {{"magic", f.legacy_magic ? "legacy (0xF0E1D2C3)" : "VGF1"},
                   {"version", version_string(f.version)},
                   {"vk_header_version", f.vk_header_version}};

  static constexpr const char* kSections[4] = {"modules", "model_sequence", "model_resources", "constants"};
  Json sections = Json::array();
  for (size_t i = 0; i < 4; ++i) {
    sections.push_back({{"name", kSections[i]}, {"offset", f.sections[i].offset}, {"size", f.sections[i].size}});
  }
  out["sections"] = std::move(sections);

  Json modules = Json::array();
  for (size_t i = 0; i < f.modules.size(); ++i) {
    const vgf::Module& m = f.modules[i];
    Json module = {{"index", i},
                   {"type", vgf::module_type_name(m.type)},
                   {"name", m.name},
                   {"entry_point", m.entry_point},
                   {"code_type", code_type_name(m.code_type)}};
    if (m.code_type == vgf::ModuleCodeType::kSpirv) {
      module["spirv_words"] = m.spirv().size();
      if (m.spirv().size() < 5) {
        module["placeholder"] = true;
      } else if (has_graph(m)) {
        auto graph = spirv::read_tosa_graph(m.spirv());
        if (graph.ok()) {
          module["graph"] = graph_json(*graph);
        } else {
          module["graph_error"] = graph.status().to_string();
          errors.push_back("module " + std::to_string(i) + ": " + graph.status().to_string());
        }
      }
    } else if (m.code_type != vgf::ModuleCodeType::kNone) {
      module["source_bytes"] = m.source.size();
    }
    modules.push_back(std::move(module));
  }
  out["modules"] = std::move(modules);

  Json segments = Json::array();
  for (size_t i = 0; i < f.segments.size(); ++i) {
    const vgf::Segment& s = f.segments[i];
    Json segment = {
        {"index", i}, {"type", vgf::module_type_name(s.type)}, {"name", s.name}, {"module", s.module_index}};
    Json sets = Json::array();
    for (size_t k = 0; k < s.set_infos.size(); ++k) {
      sets.push_back({{"set", s.set_number(k)},
                      {"set_index_present", s.set_infos[k].set_index.has_value()},
                      {"bindings", slots_json(s.set_infos[k].bindings)}});
    }
    segment["descriptor_sets"] = std::move(sets);
    segment["inputs"] = slots_json(s.inputs);
    segment["outputs"] = slots_json(s.outputs);
    segment["constants"] = s.constants;
    segment["dispatch_shape"] = s.dispatch_shape;
    Json ranges = Json::array();
    for (const auto& r : s.push_constant_ranges) {
      ranges.push_back({{"stage_flags", r.stage_flags}, {"offset", r.offset}, {"size", r.size}});
    }
    segment["push_constant_ranges"] = std::move(ranges);
    if (!s.constant_bindings.empty()) {
      Json bindings = Json::array();
      for (const auto& b : s.constant_bindings) {
        bindings.push_back({{"graph_constant_id", b.graph_constant_id}, {"constant", b.constant_index}});
      }
      segment["constant_bindings"] = std::move(bindings);
    }
    segments.push_back(std::move(segment));
  }
  out["segments"] = std::move(segments);

  out["inputs"] = slots_json(f.inputs);
  out["input_names"] = f.input_names;
  out["outputs"] = slots_json(f.outputs);
  out["output_names"] = f.output_names;

  Json resources = Json::array();
  for (size_t i = 0; i < f.resources.size(); ++i) {
    const vgf::Resource& r = f.resources[i];
    Json resource = {{"index", i}, {"category", vgf::resource_category_name(r.category)}};
    resource["descriptor_type"] =
        r.vk_descriptor_type ? Json(vgf::vk_descriptor_type_name(*r.vk_descriptor_type)) : Json(nullptr);
    resource["format"] = vgf::vk_format_name(r.vk_format);
    resource["shape"] = r.shape;
    resource["strides"] = r.strides;
    if (r.alias_group_id) resource["alias_group_id"] = *r.alias_group_id;
    resources.push_back(std::move(resource));
  }
  out["resources"] = std::move(resources);

  Json constants = Json::array();
  for (size_t i = 0; i < f.constants.size(); ++i) {
    const vgf::Constant& c = f.constants[i];
    constants.push_back({{"index", i},
                         {"resource", c.resource_index},
                         {"sparsity_dimension", c.sparsity_dimension},
                         {"size", c.data().size()}});
  }
  out["constants"] = std::move(constants);
  out["legacy_constant_section"] = f.legacy_constants;
  return out;
}

}  // namespace univk::dump
