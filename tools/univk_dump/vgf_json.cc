#include "vgf_json.h"

#include <variant>

#include "univk/spirv/tosa_graph.h"

namespace univk::dump {
namespace {

std::string version_string(const vgf::VgfVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

void write_slots(JsonWriter& json, const std::vector<vgf::BindingSlot>& slots) {
  json.begin_array();
  for (const auto& s : slots) {
    json.begin_object();
    json.key("binding").value(s.binding);
    json.key("resource").value(s.resource_index);
    json.end_object();
  }
  json.end_array();
}

void write_attributes(JsonWriter& json, const Attributes& attrs) {
  json.begin_object();
  for (const auto& [name, v] : attrs.values()) {
    json.key(name);
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>) {
            json.array(x);
          } else {
            json.value(x);
          }
        },
        v);
  }
  json.end_object();
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

void write_graph(JsonWriter& json, const spirv::TosaGraph& g) {
  json.begin_object();
  json.key("entry_point").value(g.entry_point);
  json.key("values").begin_array();
  for (size_t i = 0; i < g.values.size(); ++i) {
    const spirv::TosaValue& v = g.values[i];
    json.begin_object();
    json.key("id").value(uint64_t{i});
    json.key("kind").value(kind_name(v.kind));
    json.key("type").value(spirv::to_string(v.type));
    if (v.kind == spirv::ValueKind::kConstant) json.key("bytes").value(uint64_t{v.data.size()});
    if (v.kind == spirv::ValueKind::kGraphConstant) json.key("graph_constant_id").value(v.graph_constant_id);
    json.end_object();
  }
  json.end_array();
  auto bindings = [&](const std::vector<spirv::GraphBinding>& list) {
    json.begin_array();
    for (const auto& b : list) {
      json.begin_object();
      json.key("value").value(b.value);
      json.key("set").value(b.descriptor_set);
      json.key("binding").value(b.binding);
      json.end_object();
    }
    json.end_array();
  };
  json.key("inputs");
  bindings(g.inputs);
  json.key("operations").begin_array();
  for (const auto& op : g.operations) {
    json.begin_object();
    json.key("op").value(spirv::tosa_op_name(op.op));
    json.key("inputs").array(op.inputs);
    json.key("outputs").array(op.outputs);
    json.key("attributes");
    write_attributes(json, op.attrs);
    json.end_object();
  }
  json.end_array();
  json.key("outputs");
  bindings(g.outputs);
  json.end_object();
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

}  // namespace

void write_vgf_json(JsonWriter& json, const vgf::VgfFile& f, std::vector<std::string>& errors) {
  json.begin_object();
  json.key("format").value("vgf");
  json.key("header").begin_object();
  json.key("magic").value(f.legacy_magic ? "legacy (0xF0E1D2C3)" : "VGF1");
  json.key("version").value(version_string(f.version));
  json.key("vk_header_version").value(uint32_t{f.vk_header_version});
  json.end_object();

  static constexpr const char* kSections[4] = {"modules", "model_sequence", "model_resources", "constants"};
  json.key("sections").begin_array();
  for (size_t i = 0; i < 4; ++i) {
    json.begin_object();
    json.key("name").value(kSections[i]);
    json.key("offset").value(f.sections[i].offset);
    json.key("size").value(f.sections[i].size);
    json.end_object();
  }
  json.end_array();

  json.key("modules").begin_array();
  for (size_t i = 0; i < f.modules.size(); ++i) {
    const vgf::Module& m = f.modules[i];
    json.begin_object();
    json.key("index").value(uint64_t{i});
    json.key("type").value(vgf::module_type_name(m.type));
    json.key("name").value(m.name);
    json.key("entry_point").value(m.entry_point);
    json.key("code_type").value(code_type_name(m.code_type));
    if (m.code_type == vgf::ModuleCodeType::kSpirv) {
      json.key("spirv_words").value(uint64_t{m.spirv().size()});
      // Fewer words than a SPIR-V header: a placeholder that a scenario substitutes.
      if (m.spirv().size() < 5) {
        json.key("placeholder").value(true);
      } else if (m.type == vgf::ModuleType::kGraph) {
        auto graph = spirv::read_tosa_graph(m.spirv());
        if (graph.ok()) {
          json.key("graph");
          write_graph(json, *graph);
        } else {
          json.key("graph_error").value(graph.status().to_string());
          errors.push_back("module " + std::to_string(i) + ": " + graph.status().to_string());
        }
      }
    } else if (m.code_type != vgf::ModuleCodeType::kNone) {
      json.key("source_bytes").value(uint64_t{m.source.size()});
    }
    json.end_object();
  }
  json.end_array();

  json.key("segments").begin_array();
  for (size_t i = 0; i < f.segments.size(); ++i) {
    const vgf::Segment& s = f.segments[i];
    json.begin_object();
    json.key("index").value(uint64_t{i});
    json.key("type").value(vgf::module_type_name(s.type));
    json.key("name").value(s.name);
    json.key("module").value(s.module_index);
    json.key("descriptor_sets").begin_array();
    for (size_t k = 0; k < s.set_infos.size(); ++k) {
      json.begin_object();
      json.key("set").value(s.set_number(k));
      json.key("set_index_present").value(s.set_infos[k].set_index.has_value());
      json.key("bindings");
      write_slots(json, s.set_infos[k].bindings);
      json.end_object();
    }
    json.end_array();
    json.key("inputs");
    write_slots(json, s.inputs);
    json.key("outputs");
    write_slots(json, s.outputs);
    json.key("constants").array(s.constants);
    json.key("dispatch_shape").array(s.dispatch_shape);
    json.key("push_constant_ranges").begin_array();
    for (const auto& r : s.push_constant_ranges) {
      json.begin_object();
      json.key("stage_flags").value(r.stage_flags);
      json.key("offset").value(r.offset);
      json.key("size").value(r.size);
      json.end_object();
    }
    json.end_array();
    if (!s.constant_bindings.empty()) {
      json.key("constant_bindings").begin_array();
      for (const auto& b : s.constant_bindings) {
        json.begin_object();
        json.key("graph_constant_id").value(b.graph_constant_id);
        json.key("constant").value(b.constant_index);
        json.end_object();
      }
      json.end_array();
    }
    json.end_object();
  }
  json.end_array();

  json.key("inputs");
  write_slots(json, f.inputs);
  json.key("input_names").array(f.input_names);
  json.key("outputs");
  write_slots(json, f.outputs);
  json.key("output_names").array(f.output_names);

  json.key("resources").begin_array();
  for (size_t i = 0; i < f.resources.size(); ++i) {
    const vgf::Resource& r = f.resources[i];
    json.begin_object();
    json.key("index").value(uint64_t{i});
    json.key("category").value(vgf::resource_category_name(r.category));
    json.key("descriptor_type");
    if (r.vk_descriptor_type) {
      json.value(vgf::vk_descriptor_type_name(*r.vk_descriptor_type));
    } else {
      json.null();
    }
    json.key("format").value(vgf::vk_format_name(r.vk_format));
    json.key("shape").array(r.shape);
    json.key("strides").array(r.strides);
    if (r.alias_group_id) json.key("alias_group_id").value(*r.alias_group_id);
    json.end_object();
  }
  json.end_array();

  json.key("constants").begin_array();
  for (size_t i = 0; i < f.constants.size(); ++i) {
    const vgf::Constant& c = f.constants[i];
    json.begin_object();
    json.key("index").value(uint64_t{i});
    json.key("resource").value(c.resource_index);
    json.key("sparsity_dimension").value(c.sparsity_dimension);
    json.key("size").value(uint64_t{c.data().size()});
    json.end_object();
  }
  json.end_array();
  json.key("legacy_constant_section").value(f.legacy_constants);
  json.end_object();
}

}  // namespace univk::dump
