// decode_vgf: header, the three FlatBuffers tables and the constants section, every bound and
// cross reference checked (see vgf_file.h).
#include <cstring>
#include <string>

#include "univk/vgf/vgf_file.h"
#include "flatbuffer_reader.h"
#include "vgf_schema.h"

namespace univk::vgf {
namespace {

namespace s = schema;
using fb::Table;

template <typename T>
T load(std::span<const uint8_t> b, size_t pos) {
  T v;
  std::memcpy(&v, b.data() + pos, sizeof(T));
  return v;
}

std::string at(std::string_view what, size_t i) { return std::string(what) + "[" + std::to_string(i) + "]"; }

// Caps the number of decoded list elements: offsets may be shared (a DAG), so a small hostile
// file could otherwise expand into a huge decoded structure.
class Budget {
 public:
  explicit Budget(size_t file_size) : left_(file_size * 4 + 4096) {}
  Status charge(size_t n, const std::string& where) {
    if (n > left_) return invalid_argument(where + ": too many elements for the file size (shared offsets?)");
    left_ -= n;
    return ok_status();
  }

 private:
  size_t left_;
};

Result<std::vector<BindingSlot>> read_slots(const Table& t, int field, Budget& budget, const std::string& where) {
  UNIVK_ASSIGN_OR_RETURN(auto tables, t.table_list(field));
  UNIVK_RETURN_IF_ERROR(budget.charge(tables.size(), where));
  std::vector<BindingSlot> slots;
  slots.reserve(tables.size());
  for (const Table& st : tables) {
    BindingSlot slot;
    UNIVK_ASSIGN_OR_RETURN(slot.binding, st.u32(s::binding_slot::kBinding, 0));
    UNIVK_ASSIGN_OR_RETURN(slot.resource_index, st.u32(s::binding_slot::kMrtIndex, 0));
    slots.push_back(slot);
  }
  return slots;
}

// Wraps a Result-producing expression with a "vgf: <where>: " context on failure.
#define VGF_TRY(lhs, expr, where)                                                                                 \
  auto UNIVK_CONCAT_(vgf_r_, __LINE__) = (expr);                                                                  \
  if (!UNIVK_CONCAT_(vgf_r_, __LINE__).ok()) return UNIVK_CONCAT_(vgf_r_, __LINE__).status().with_context(where); \
  lhs = std::move(UNIVK_CONCAT_(vgf_r_, __LINE__)).value()

Status decode_modules(std::span<const uint8_t> sec, VgfFile& out, Budget& budget) {
  const std::string where = "vgf: module table";
  VGF_TRY(Table root, Table::root(sec), where);
  VGF_TRY(auto modules, root.table_list(s::module_table::kModules), where + ": modules");
  UNIVK_RETURN_IF_ERROR(budget.charge(modules.size(), where));
  for (size_t i = 0; i < modules.size(); ++i) {
    const Table& mt = modules[i];
    const std::string w = where + ": " + at("module", i);
    Module m;
    VGF_TRY(uint8_t type, mt.u8(s::module::kType, 0), w + ": type");
    if (type > 1) return invalid_argument(w + ": unknown module type " + std::to_string(type));
    m.type = static_cast<ModuleType>(type);
    VGF_TRY(auto name, mt.string(s::module::kName), w + ": name");
    VGF_TRY(auto entry, mt.string(s::module::kEntryPoint), w + ": entry_point");
    m.name = name.value_or("");
    m.entry_point = entry.value_or("");
    VGF_TRY(uint8_t code_type, mt.u8(s::module::kCodeType, 0), w + ": code_type");
    if (code_type > 3) return invalid_argument(w + ": unknown code type " + std::to_string(code_type));
    m.code_type = static_cast<ModuleCodeType>(code_type);
    VGF_TRY(auto code, mt.table(s::module::kCode), w + ": code");
    if (m.code_type == ModuleCodeType::kSpirv) {
      if (code) {
        VGF_TRY(auto words, code->vector(s::spirv_code::kWords, 4), w + ": SPIR-V words");
        if (words && words->size() > 0) {
          const auto bytes = words->bytes();
          if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint32_t) == 0) {
            m.borrow_spirv({reinterpret_cast<const uint32_t*>(bytes.data()), words->size()});
          } else {
            std::vector<uint32_t> copy(words->size());
            std::memcpy(copy.data(), bytes.data(), bytes.size());
            m.set_spirv(std::move(copy));
          }
        }
      }
    } else if (m.code_type != ModuleCodeType::kNone) {
      if (!code) return invalid_argument(w + ": GLSL/HLSL module without code");
      VGF_TRY(auto src, code->string(s::source_code::kCode), w + ": source code");
      m.source = src.value_or("");
    }
    out.modules.push_back(std::move(m));
  }
  return ok_status();
}

Status decode_sequence(std::span<const uint8_t> sec, VgfFile& out, Budget& budget) {
  const std::string where = "vgf: model sequence table";
  VGF_TRY(Table root, Table::root(sec), where);
  VGF_TRY(auto segments, root.table_list(s::sequence_table::kSegments), where + ": segments");
  UNIVK_RETURN_IF_ERROR(budget.charge(segments.size(), where));
  for (size_t i = 0; i < segments.size(); ++i) {
    const Table& st = segments[i];
    const std::string w = where + ": " + at("segment", i);
    Segment seg;
    VGF_TRY(uint8_t type, st.u8(s::segment::kType, 0), w + ": type");
    if (type > 1) return invalid_argument(w + ": unknown segment type " + std::to_string(type));
    seg.type = static_cast<ModuleType>(type);
    VGF_TRY(auto name, st.string(s::segment::kName), w + ": name");
    seg.name = name.value_or("");
    VGF_TRY(seg.module_index, st.u32(s::segment::kModuleIndex, 0), w + ": module_index");
    VGF_TRY(auto set_infos, st.table_list(s::segment::kSetInfos), w + ": set_infos");
    UNIVK_RETURN_IF_ERROR(budget.charge(set_infos.size(), w));
    for (size_t k = 0; k < set_infos.size(); ++k) {
      DescriptorSetInfo info;
      VGF_TRY(uint32_t set_index, set_infos[k].u32(s::set_info::kSetIndex, s::kNoIndex), w + ": set_index");
      if (set_index != s::kNoIndex) info.set_index = set_index;
      VGF_TRY(info.bindings, read_slots(set_infos[k], s::set_info::kBindings, budget, w),
              w + ": " + at("set_info", k) + ": bindings");
      seg.set_infos.push_back(std::move(info));
    }
    VGF_TRY(seg.inputs, read_slots(st, s::segment::kInputs, budget, w), w + ": inputs");
    VGF_TRY(seg.outputs, read_slots(st, s::segment::kOutputs, budget, w), w + ": outputs");
    VGF_TRY(seg.constants, st.u32_list(s::segment::kConstants), w + ": constants");
    VGF_TRY(seg.dispatch_shape, st.u32_list(s::segment::kDispatchShape), w + ": dispatch_shape");
    UNIVK_RETURN_IF_ERROR(budget.charge(seg.constants.size() + seg.dispatch_shape.size(), w));
    VGF_TRY(auto pcrs, st.table_list(s::segment::kPushConstantRanges), w + ": push_constant_ranges");
    UNIVK_RETURN_IF_ERROR(budget.charge(pcrs.size(), w));
    for (const Table& pt : pcrs) {
      PushConstantRange r;
      VGF_TRY(r.stage_flags, pt.u32(s::push_constant_range::kStageFlags, 0), w + ": push constant stage_flags");
      VGF_TRY(r.offset, pt.u32(s::push_constant_range::kOffset, 0), w + ": push constant offset");
      VGF_TRY(r.size, pt.u32(s::push_constant_range::kSize, 0), w + ": push constant size");
      seg.push_constant_ranges.push_back(r);
    }
    VGF_TRY(auto cbs, st.table_list(s::segment::kConstantBindings), w + ": constant_bindings");
    UNIVK_RETURN_IF_ERROR(budget.charge(cbs.size(), w));
    for (const Table& ct : cbs) {
      ConstantBinding b;
      VGF_TRY(b.graph_constant_id, ct.u32(s::constant_binding::kGraphConstantId, 0), w + ": graph_constant_id");
      VGF_TRY(b.constant_index, ct.u32(s::constant_binding::kConstantIndex, 0), w + ": constant_table_index");
      seg.constant_bindings.push_back(b);
    }
    out.segments.push_back(std::move(seg));
  }
  VGF_TRY(out.inputs, read_slots(root, s::sequence_table::kInputs, budget, where), where + ": inputs");
  VGF_TRY(out.outputs, read_slots(root, s::sequence_table::kOutputs, budget, where), where + ": outputs");
  VGF_TRY(out.input_names, root.string_list(s::sequence_table::kInputNames), where + ": input_names");
  VGF_TRY(out.output_names, root.string_list(s::sequence_table::kOutputNames), where + ": output_names");
  return budget.charge(out.input_names.size() + out.output_names.size(), where);
}

Status decode_resources(std::span<const uint8_t> sec, VgfFile& out, Budget& budget) {
  const std::string where = "vgf: model resource table";
  VGF_TRY(Table root, Table::root(sec), where);
  VGF_TRY(auto entries, root.table_list(s::resource_table::kEntries), where + ": entries");
  UNIVK_RETURN_IF_ERROR(budget.charge(entries.size(), where));
  for (size_t i = 0; i < entries.size(); ++i) {
    const Table& et = entries[i];
    const std::string w = where + ": " + at("entry", i);
    Resource r;
    VGF_TRY(uint32_t desc, et.u32(s::resource::kDescriptorType, 0), w + ": vk_descriptor_type");
    if (desc != s::kNoIndex) r.vk_descriptor_type = desc;
    VGF_TRY(r.vk_format, et.u32(s::resource::kFormat, 0), w + ": vk_format");
    VGF_TRY(uint8_t cat, et.u8(s::resource::kCategory, 0), w + ": category");
    if (cat > 3) return invalid_argument(w + ": unknown category " + std::to_string(cat));
    r.category = static_cast<ResourceCategory>(cat);
    VGF_TRY(auto desc_table, et.table(s::resource::kDescription), w + ": description");
    if (desc_table) {
      VGF_TRY(r.shape, desc_table->i64_list(s::description::kShape), w + ": shape");
      VGF_TRY(r.strides, desc_table->i64_list(s::description::kStrides), w + ": strides");
      UNIVK_RETURN_IF_ERROR(budget.charge(r.shape.size() + r.strides.size(), w));
      if (!r.strides.empty() && r.strides.size() != r.shape.size()) {
        return invalid_argument(w + ": " + std::to_string(r.strides.size()) + " strides for rank " +
                                std::to_string(r.shape.size()));
      }
    }
    VGF_TRY(uint8_t extra_type, et.u8(s::resource::kExtraConfigType, 0), w + ": extra_config_type");
    if (extra_type == s::kExtraConfigSampler) {
      VGF_TRY(auto sampler, et.table(s::resource::kExtraConfig), w + ": sampler config");
      if (!sampler) return invalid_argument(w + ": sampler config missing");
      SamplerConfig c;
      VGF_TRY(c.min_filter, sampler->u32(s::sampler::kMinFilter, 0), w + ": min_filter");
      VGF_TRY(c.mag_filter, sampler->u32(s::sampler::kMagFilter, 0), w + ": mag_filter");
      VGF_TRY(c.address_mode_u, sampler->u32(s::sampler::kAddressModeU, 0), w + ": address_mode_u");
      VGF_TRY(c.address_mode_v, sampler->u32(s::sampler::kAddressModeV, 0), w + ": address_mode_v");
      VGF_TRY(c.border_color, sampler->u32(s::sampler::kBorderColor, 0), w + ": border_color");
      r.sampler = c;
    } else if (extra_type != 0) {
      return invalid_argument(w + ": unknown extra_config type " + std::to_string(extra_type));
    }
    VGF_TRY(uint32_t alias, et.u32(s::resource::kAliasGroupId, s::kNoIndex), w + ": alias_group_id");
    if (alias != s::kNoIndex) r.alias_group_id = alias;
    out.resources.push_back(std::move(r));
  }
  return ok_status();
}

Status decode_const00(std::span<const uint8_t> sec, VgfFile& out) {
  const std::string where = "vgf: constants";
  const uint64_t count = load<uint64_t>(sec, 8);
  if (count > (sec.size() - 16) / s::kConstRecordSize) {
    return invalid_argument(where + ": count " + std::to_string(count) + " does not fit a section of " +
                            std::to_string(sec.size()) + " bytes");
  }
  const size_t payload_at = 16 + static_cast<size_t>(count) * s::kConstRecordSize;
  const auto payload = sec.subspan(payload_at);
  for (size_t i = 0; i < count; ++i) {
    const size_t rec = 16 + i * s::kConstRecordSize;
    Constant c;
    c.resource_index = load<uint32_t>(sec, rec);
    c.sparsity_dimension = load<int32_t>(sec, rec + 4);
    const uint64_t size = load<uint64_t>(sec, rec + 8);
    const uint64_t offset = load<uint64_t>(sec, rec + 16);
    if (offset > payload.size() || size > payload.size() - offset) {
      return invalid_argument(where + ": " + at("constant", i) + ": data (offset " + std::to_string(offset) +
                              ", size " + std::to_string(size) + ") exceeds the payload of " +
                              std::to_string(payload.size()) + " bytes");
    }
    c.borrow_data(payload.subspan(static_cast<size_t>(offset), static_cast<size_t>(size)));
    out.constants.push_back(std::move(c));
  }
  return ok_status();
}

Status decode_legacy_constants(std::span<const uint8_t> sec, VgfFile& out, Budget& budget) {
  const std::string where = "vgf: constants (legacy FlatBuffers section)";
  VGF_TRY(Table root, Table::root(sec), where);
  VGF_TRY(auto data, root.table_list(s::legacy_constants::kData), where + ": data");
  UNIVK_RETURN_IF_ERROR(budget.charge(data.size(), where));
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string w = where + ": " + at("constant", i);
    Constant c;
    VGF_TRY(c.resource_index, data[i].u32(s::legacy_constant::kMrtIndex, 0), w + ": mrt_index");
    VGF_TRY(c.sparsity_dimension, data[i].i64(s::legacy_constant::kSparsity, -1), w + ": sparsity_dimension");
    VGF_TRY(auto raw, data[i].vector(s::legacy_constant::kRaw, 1), w + ": raw");
    if (raw) c.borrow_data(raw->bytes());
    out.constants.push_back(std::move(c));
  }
  out.legacy_constants = true;
  return ok_status();
}

}  // namespace

Result<VgfFile> decode_vgf(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) {
    return invalid_argument("vgf: file of " + std::to_string(bytes.size()) + " bytes is smaller than the " +
                            std::to_string(kHeaderSize) + "-byte header");
  }
  VgfFile out;
  const uint32_t magic = load<uint32_t>(bytes, 0);
  if (magic == s::header::kLegacyMagic) {
    out.legacy_magic = true;
  } else if (magic != s::header::kMagic) {
    return invalid_argument("vgf: bad magic (not a VGF file)");
  }
  out.vk_header_version = load<uint16_t>(bytes, s::header::kVkHeaderVersion);
  out.version = {bytes[s::header::kMajor], bytes[s::header::kMinor], bytes[s::header::kPatch]};
  if (out.version.major != 0 || out.version.minor > kMaxSupportedMinor) {
    return unsupported("vgf: format version " + std::to_string(out.version.major) + "." +
                       std::to_string(out.version.minor) + "." + std::to_string(out.version.patch) +
                       " is newer than univk reads (0." + std::to_string(kMaxSupportedMinor) + ".x)");
  }
  static constexpr const char* kNames[4] = {"module table", "model sequence table", "model resource table",
                                            "constants"};
  for (size_t i = 0; i < 4; ++i) {
    SectionRange& r = out.sections[i];
    r.offset = load<uint64_t>(bytes, s::header::kSections + 16 * i);
    r.size = load<uint64_t>(bytes, s::header::kSections + 16 * i + 8);
    if (r.offset > bytes.size() || r.size > bytes.size() - r.offset) {
      return invalid_argument(std::string("vgf: header: ") + kNames[i] + " section (offset " +
                              std::to_string(r.offset) + ", size " + std::to_string(r.size) +
                              ") lies outside the file of " + std::to_string(bytes.size()) + " bytes");
    }
  }
  auto section = [&](size_t i) {
    return bytes.subspan(static_cast<size_t>(out.sections[i].offset), static_cast<size_t>(out.sections[i].size));
  };
  Budget budget(bytes.size());
  UNIVK_RETURN_IF_ERROR(decode_modules(section(0), out, budget));
  UNIVK_RETURN_IF_ERROR(decode_sequence(section(1), out, budget));
  UNIVK_RETURN_IF_ERROR(decode_resources(section(2), out, budget));
  const auto consts = section(3);
  if (consts.size() >= 16 && std::memcmp(consts.data(), s::kConst00Magic, 8) == 0) {
    UNIVK_RETURN_IF_ERROR(decode_const00(consts, out));
  } else if (!consts.empty()) {
    UNIVK_RETURN_IF_ERROR(decode_legacy_constants(consts, out, budget));
  }
  UNIVK_RETURN_IF_ERROR(validate_vgf(out));
  return out;
}

}  // namespace univk::vgf
