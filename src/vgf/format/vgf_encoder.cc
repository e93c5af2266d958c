// encode_vgf: writes format 0.4.3 (or 0.5.0 with constant_bindings). Layout: header, module
// table, model sequence table, model resource table, CONST00 constants; every section starts
// at a multiple of 8 and padding is zero.
#include <cstring>
#include <string>

#include "univk/vgf/vgf_file.h"
#include "flatbuffer_builder.h"
#include "vgf_schema.h"

namespace univk::vgf {
namespace {

namespace s = schema;
using fb::NodePtr;

NodePtr slots_node(const std::vector<BindingSlot>& slots) {
  std::vector<NodePtr> nodes;
  for (const BindingSlot& b : slots) {
    NodePtr t = fb::make_table();
    if (b.binding != 0) t->add_u32(s::binding_slot::kBinding, b.binding);
    if (b.resource_index != 0) t->add_u32(s::binding_slot::kMrtIndex, b.resource_index);
    nodes.push_back(t);
  }
  return fb::make_offset_vector(std::move(nodes));
}

NodePtr strings_node(const std::vector<std::string>& strings) {
  std::vector<NodePtr> nodes;
  for (const std::string& str : strings) nodes.push_back(fb::make_string(str));
  return fb::make_offset_vector(std::move(nodes));
}

std::vector<uint8_t> encode_modules(const VgfModel& m) {
  std::vector<NodePtr> modules;
  for (const Module& mod : m.modules) {
    NodePtr t = fb::make_table();
    if (mod.type != ModuleType::kCompute) t->add_u8(s::module::kType, static_cast<uint8_t>(mod.type));
    t->add_offset(s::module::kName, fb::make_string(mod.name));
    t->add_offset(s::module::kEntryPoint, fb::make_string(mod.entry_point));
    if (mod.code_type != ModuleCodeType::kNone) {
      t->add_u8(s::module::kCodeType, static_cast<uint8_t>(mod.code_type));
      NodePtr code = fb::make_table();
      if (mod.code_type == ModuleCodeType::kSpirv) {
        code->add_offset(s::spirv_code::kWords, fb::make_u32_vector(mod.spirv()));
      } else {
        code->add_offset(s::source_code::kCode, fb::make_string(mod.source));
      }
      t->add_offset(s::module::kCode, code);
    }
    modules.push_back(t);
  }
  NodePtr root = fb::make_table();
  root->add_offset(s::module_table::kModules, fb::make_offset_vector(std::move(modules)));
  return fb::finish(root);
}

std::vector<uint8_t> encode_sequence(const VgfModel& m, bool with_constant_bindings) {
  std::vector<NodePtr> segments;
  for (const Segment& seg : m.segments) {
    NodePtr t = fb::make_table();
    if (seg.type != ModuleType::kCompute) t->add_u8(s::segment::kType, static_cast<uint8_t>(seg.type));
    t->add_offset(s::segment::kName, fb::make_string(seg.name));
    if (seg.module_index != 0) t->add_u32(s::segment::kModuleIndex, seg.module_index);
    std::vector<NodePtr> sets;
    for (const DescriptorSetInfo& info : seg.set_infos) {
      NodePtr st = fb::make_table();
      st->add_offset(s::set_info::kBindings, slots_node(info.bindings));
      if (info.set_index) st->add_u32(s::set_info::kSetIndex, *info.set_index);
      sets.push_back(st);
    }
    t->add_offset(s::segment::kSetInfos, fb::make_offset_vector(std::move(sets)));
    t->add_offset(s::segment::kInputs, slots_node(seg.inputs));
    t->add_offset(s::segment::kOutputs, slots_node(seg.outputs));
    t->add_offset(s::segment::kConstants, fb::make_u32_vector(seg.constants));
    if (!seg.dispatch_shape.empty()) {
      t->add_offset(s::segment::kDispatchShape, fb::make_u32_vector(seg.dispatch_shape));
    }
    if (!seg.push_constant_ranges.empty()) {
      std::vector<NodePtr> ranges;
      for (const PushConstantRange& r : seg.push_constant_ranges) {
        NodePtr rt = fb::make_table();
        if (r.stage_flags != 0) rt->add_u32(s::push_constant_range::kStageFlags, r.stage_flags);
        if (r.offset != 0) rt->add_u32(s::push_constant_range::kOffset, r.offset);
        if (r.size != 0) rt->add_u32(s::push_constant_range::kSize, r.size);
        ranges.push_back(rt);
      }
      t->add_offset(s::segment::kPushConstantRanges, fb::make_offset_vector(std::move(ranges)));
    }
    if (with_constant_bindings && !seg.constant_bindings.empty()) {
      std::vector<NodePtr> bindings;
      for (const ConstantBinding& b : seg.constant_bindings) {
        NodePtr bt = fb::make_table();
        if (b.graph_constant_id != 0) bt->add_u32(s::constant_binding::kGraphConstantId, b.graph_constant_id);
        if (b.constant_index != 0) bt->add_u32(s::constant_binding::kConstantIndex, b.constant_index);
        bindings.push_back(bt);
      }
      t->add_offset(s::segment::kConstantBindings, fb::make_offset_vector(std::move(bindings)));
    }
    segments.push_back(t);
  }
  NodePtr root = fb::make_table();
  root->add_offset(s::sequence_table::kSegments, fb::make_offset_vector(std::move(segments)));
  root->add_offset(s::sequence_table::kInputs, slots_node(m.inputs));
  root->add_offset(s::sequence_table::kOutputs, slots_node(m.outputs));
  root->add_offset(s::sequence_table::kInputNames, strings_node(m.input_names));
  root->add_offset(s::sequence_table::kOutputNames, strings_node(m.output_names));
  return fb::finish(root);
}

std::vector<uint8_t> encode_resources(const VgfModel& m) {
  std::vector<NodePtr> entries;
  for (const Resource& r : m.resources) {
    NodePtr t = fb::make_table();
    t->add_u32(s::resource::kDescriptorType, r.vk_descriptor_type.value_or(s::kNoIndex));
    t->add_u32(s::resource::kFormat, r.vk_format);
    if (r.category != ResourceCategory::kInput) t->add_u8(s::resource::kCategory, static_cast<uint8_t>(r.category));
    NodePtr desc = fb::make_table();
    desc->add_offset(s::description::kShape, fb::make_i64_vector(r.shape));
    desc->add_offset(s::description::kStrides, fb::make_i64_vector(r.strides));
    t->add_offset(s::resource::kDescription, desc);
    if (r.sampler) {
      t->add_u8(s::resource::kExtraConfigType, s::kExtraConfigSampler);
      NodePtr st = fb::make_table();
      st->add_u32(s::sampler::kMinFilter, r.sampler->min_filter);
      st->add_u32(s::sampler::kMagFilter, r.sampler->mag_filter);
      st->add_u32(s::sampler::kAddressModeU, r.sampler->address_mode_u);
      st->add_u32(s::sampler::kAddressModeV, r.sampler->address_mode_v);
      st->add_u32(s::sampler::kBorderColor, r.sampler->border_color);
      t->add_offset(s::resource::kExtraConfig, st);
    }
    if (r.alias_group_id) t->add_u32(s::resource::kAliasGroupId, *r.alias_group_id);
    entries.push_back(t);
  }
  NodePtr root = fb::make_table();
  root->add_offset(s::resource_table::kEntries, fb::make_offset_vector(std::move(entries)));
  return fb::finish(root);
}

template <typename T>
void put(std::vector<uint8_t>& out, size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof(T));
}

size_t pad8(size_t n) { return (n + 7) / 8 * 8; }

std::vector<uint8_t> encode_constants(const VgfModel& m) {
  const size_t n = m.constants.size();
  size_t payload = 0;
  for (const Constant& c : m.constants) payload += pad8(c.data().size());
  std::vector<uint8_t> out(16 + n * s::kConstRecordSize + payload, 0);
  std::memcpy(out.data(), s::kConst00Magic, 8);
  put<uint64_t>(out, 8, n);
  size_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    const Constant& c = m.constants[i];
    const size_t rec = 16 + i * s::kConstRecordSize;
    put<uint32_t>(out, rec, c.resource_index);
    put<int32_t>(out, rec + 4, static_cast<int32_t>(c.sparsity_dimension));
    put<uint64_t>(out, rec + 8, c.data().size());
    put<uint64_t>(out, rec + 16, offset);
    if (!c.data().empty()) {
      std::memcpy(out.data() + 16 + n * s::kConstRecordSize + offset, c.data().data(), c.data().size());
    }
    offset += pad8(c.data().size());
  }
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> encode_vgf(const VgfModel& model, VgfVersion version) {
  if (!(version == k0_4_3) && !(version == k0_5_0)) {
    return unsupported("vgf: encode: format version " + std::to_string(version.major) + "." +
                       std::to_string(version.minor) + "." + std::to_string(version.patch) +
                       " (univk writes 0.4.3 and 0.5.0)");
  }
  UNIVK_RETURN_IF_ERROR(validate_vgf(model));
  const bool v050 = version == k0_5_0;
  for (size_t i = 0; i < model.segments.size() && !v050; ++i) {
    for (const ConstantBinding& b : model.segments[i].constant_bindings) {
      if (b.graph_constant_id != b.constant_index) {
        return invalid_argument("vgf: encode: segment " + std::to_string(i) + " maps graph constant " +
                                std::to_string(b.graph_constant_id) + " to constant " +
                                std::to_string(b.constant_index) +
                                "; format 0.4.3 requires equal ids (write 0.5.0 instead)");
      }
    }
  }
  for (size_t i = 0; i < model.constants.size(); ++i) {
    if (model.constants[i].sparsity_dimension > INT32_MAX) {
      return invalid_argument("vgf: encode: constant " + std::to_string(i) + " sparsity dimension too large");
    }
  }
  const std::vector<uint8_t> sections[4] = {encode_modules(model), encode_sequence(model, v050),
                                            encode_resources(model), encode_constants(model)};
  std::vector<uint8_t> out(kHeaderSize, 0);
  put<uint32_t>(out, 0, s::header::kMagic);
  put<uint16_t>(out, s::header::kVkHeaderVersion, model.vk_header_version);
  out[s::header::kMajor] = version.major;
  out[s::header::kMinor] = version.minor;
  out[s::header::kPatch] = version.patch;
  for (size_t i = 0; i < 4; ++i) {
    out.resize(pad8(out.size()), 0);
    put<uint64_t>(out, s::header::kSections + 16 * i, out.size());
    put<uint64_t>(out, s::header::kSections + 16 * i + 8, sections[i].size());
    out.insert(out.end(), sections[i].begin(), sections[i].end());
  }
  return out;
}

}  // namespace univk::vgf
