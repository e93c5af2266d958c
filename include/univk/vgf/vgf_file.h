// VGF files (Arm ML SDK for Vulkan container): a decoded view and an encoder.
//
// Layout (docs/FORMATS.md): a 128-byte header, then a
// module table, a model sequence table and a model resource table (each a FlatBuffers buffer)
// and a constants section (raw "CONST00" records, or the FlatBuffers section of format 0.3.0).
//
// Ownership: `decode_vgf` returns a VgfFile whose byte/word views BORROW the input bytes: the
// caller keeps the bytes (e.g. a MappedFile) alive and unchanged while the VgfFile is used.
// Where a view cannot borrow (SPIR-V words not 4-byte aligned in memory) the VgfFile owns a
// copy instead; accessors hide the difference. A VgfFile built by hand for `encode_vgf` uses
// the owned storage (`set_spirv`, `set_data`). Copying a VgfFile copies owned storage and keeps
// borrowed views pointing at the same external bytes.
//
// Every decode error is InvalidArgument naming the section and field, e.g.
// "vgf: model sequence table: segment 0: module_index 3 out of range (2 modules)";
// a version newer than univk reads is Unsupported.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/dtype.h"

namespace univk::vgf {

struct VgfVersion {
  uint8_t major = 0;
  uint8_t minor = 0;
  uint8_t patch = 0;
  friend bool operator==(const VgfVersion&, const VgfVersion&) = default;
};
inline constexpr VgfVersion k0_3_0{0, 3, 0};
inline constexpr VgfVersion k0_4_3{0, 4, 3};
inline constexpr VgfVersion k0_5_0{0, 5, 0};
// Newest minor version the decoder accepts (major must be 0).
inline constexpr uint8_t kMaxSupportedMinor = 5;

// Raw Vulkan enum values used in VGF files (no vulkan.h needed).
namespace vk {
inline constexpr uint32_t kDescriptorTypeCombinedImageSampler = 1;
inline constexpr uint32_t kDescriptorTypeStorageImage = 3;
inline constexpr uint32_t kDescriptorTypeUniformBuffer = 6;
inline constexpr uint32_t kDescriptorTypeStorageBuffer = 7;
inline constexpr uint32_t kDescriptorTypeTensorArm = 1000460000;

inline constexpr uint32_t kFormatR8Uint = 13;
inline constexpr uint32_t kFormatR8Sint = 14;
inline constexpr uint32_t kFormatR16Uint = 74;
inline constexpr uint32_t kFormatR16Sint = 75;
inline constexpr uint32_t kFormatR16Sfloat = 76;
inline constexpr uint32_t kFormatR32Uint = 98;
inline constexpr uint32_t kFormatR32Sint = 99;
inline constexpr uint32_t kFormatR32Sfloat = 100;
inline constexpr uint32_t kFormatR64Sint = 111;
inline constexpr uint32_t kFormatR8BoolArm = 1000460000;
inline constexpr uint32_t kFormatR16SfloatBfloat16Arm = 1000460001;
inline constexpr uint32_t kFormatR8Float8E4M3Arm = 1000460002;
inline constexpr uint32_t kFormatR8Float8E5M2Arm = 1000460003;
}  // namespace vk

// VkFormat -> univk DType (nullopt for formats univk has no dtype for, e.g. bf16, fp8).
std::optional<DType> dtype_from_vk_format(uint32_t vk_format);
// DType -> the VkFormat Arm's converter writes for it (int8 -> R8_SINT, bool -> R8_BOOL_ARM).
std::optional<uint32_t> vk_format_from_dtype(DType dtype);
// "VK_FORMAT_R32_SFLOAT", or "VK_FORMAT_<number>" for unknown values.
std::string vk_format_name(uint32_t vk_format);
// "TENSOR_ARM", "STORAGE_BUFFER", ..., or the number.
std::string vk_descriptor_type_name(uint32_t descriptor_type);

enum class ModuleType : uint8_t { kCompute = 0, kGraph = 1 };
enum class ModuleCodeType : uint8_t { kNone = 0, kSpirv = 1, kGlsl = 2, kHlsl = 3 };
enum class ResourceCategory : uint8_t { kInput = 0, kOutput = 1, kIntermediate = 2, kConstant = 3 };
std::string_view module_type_name(ModuleType type);             // "GRAPH", "COMPUTE"
std::string_view resource_category_name(ResourceCategory cat);  // "INPUT", ...

// One section of the file: absolute byte offset and size (size excludes padding).
struct SectionRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct Module {
  ModuleType type = ModuleType::kGraph;
  std::string name;
  std::string entry_point;
  // kSpirv with no words is a placeholder (a scenario substitutes the shader).
  ModuleCodeType code_type = ModuleCodeType::kSpirv;
  std::string source;  // GLSL/HLSL code when code_type is kGlsl/kHlsl

  std::span<const uint32_t> spirv() const {
    return owned_words_.empty() ? borrowed_words_ : std::span<const uint32_t>(owned_words_);
  }
  void set_spirv(std::vector<uint32_t> words) {
    owned_words_ = std::move(words);
    borrowed_words_ = {};
  }
  void borrow_spirv(std::span<const uint32_t> words) {
    owned_words_.clear();
    borrowed_words_ = words;
  }

 private:
  std::vector<uint32_t> owned_words_;
  std::span<const uint32_t> borrowed_words_;
};

struct BindingSlot {
  uint32_t binding = 0;
  uint32_t resource_index = 0;  // index into VgfFile::resources (the "MRT")
  friend bool operator==(const BindingSlot&, const BindingSlot&) = default;
};

struct DescriptorSetInfo {
  std::optional<uint32_t> set_index;  // absent: the set number is the position in set_infos
  std::vector<BindingSlot> bindings;
};

struct PushConstantRange {
  uint32_t stage_flags = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
};

// Format 0.5.0: maps an OpGraphConstantARM id to an index into VgfFile::constants.
struct ConstantBinding {
  uint32_t graph_constant_id = 0;
  uint32_t constant_index = 0;
};

struct Segment {
  ModuleType type = ModuleType::kGraph;
  std::string name;
  uint32_t module_index = 0;
  std::vector<DescriptorSetInfo> set_infos;
  std::vector<BindingSlot> inputs;
  std::vector<BindingSlot> outputs;
  std::vector<uint32_t> constants;       // indices into VgfFile::constants
  std::vector<uint32_t> dispatch_shape;  // empty or 3 values ([0,0,0] for graphs)
  std::vector<PushConstantRange> push_constant_ranges;
  std::vector<ConstantBinding> constant_bindings;  // written only in format 0.5.0

  // The Vulkan set number of set_infos[i] (set_index, or i when absent).
  uint32_t set_number(size_t i) const { return set_infos[i].set_index.value_or(static_cast<uint32_t>(i)); }
  // The constant table index holding graph constant `graph_constant_id`: via constant_bindings
  // when present, else the 0.4.x convention (graph constant id == constant table index).
  // nullopt when there is no such constant.
  std::optional<uint32_t> constant_for_graph_constant(uint32_t graph_constant_id, size_t constant_count) const;
};

struct SamplerConfig {
  uint32_t min_filter = 0;
  uint32_t mag_filter = 0;
  uint32_t address_mode_u = 0;
  uint32_t address_mode_v = 0;
  uint32_t border_color = 0;
};

// One entry of the model resource table.
struct Resource {
  ResourceCategory category = ResourceCategory::kInput;
  std::optional<uint32_t> vk_descriptor_type;  // absent (0xFFFFFFFF in the file) for constants
  uint32_t vk_format = 0;
  std::vector<int64_t> shape;    // TOSA order (NHWC); -1 = dynamic
  std::vector<int64_t> strides;  // bytes; empty = packed row-major
  std::optional<uint32_t> alias_group_id;
  std::optional<SamplerConfig> sampler;
};

struct Constant {
  uint32_t resource_index = 0;      // a CONSTANT entry of VgfFile::resources
  int64_t sparsity_dimension = -1;  // -1 dense, >= 0: 2:4 sparse along that dimension

  std::span<const uint8_t> data() const { return has_owned_ ? std::span<const uint8_t>(owned_) : borrowed_; }
  void set_data(std::vector<uint8_t> bytes) {
    owned_ = std::move(bytes);
    has_owned_ = true;
    borrowed_ = {};
  }
  void borrow_data(std::span<const uint8_t> bytes) {
    owned_.clear();
    has_owned_ = false;
    borrowed_ = bytes;
  }

 private:
  std::vector<uint8_t> owned_;
  bool has_owned_ = false;
  std::span<const uint8_t> borrowed_;
};

// A whole VGF file. Decoded by decode_vgf; also the input of encode_vgf (the header fields
// version/legacy_magic/sections/legacy_constants are outputs of decoding and ignored there).
struct VgfFile {
  VgfVersion version = k0_4_3;
  bool legacy_magic = false;  // 0xF0E1D2C3 instead of "VGF1"
  uint16_t vk_header_version = 0;
  std::array<SectionRange, 4> sections{};  // modules, model sequence, resources, constants
  bool legacy_constants = false;           // constants stored as the 0.3.0 FlatBuffers section

  std::vector<Module> modules;
  std::vector<Segment> segments;
  // The model's interface: slots pointing at INPUT / OUTPUT resources.
  std::vector<BindingSlot> inputs;
  std::vector<BindingSlot> outputs;
  std::vector<std::string> input_names;   // empty or one per input
  std::vector<std::string> output_names;  // empty or one per output
  std::vector<Resource> resources;
  std::vector<Constant> constants;
};
using VgfModel = VgfFile;

inline constexpr size_t kHeaderSize = 128;

// Decodes and validates a VGF file (every section bound, FlatBuffers offset, cross reference).
// Accepts formats 0.3.0 .. 0.5.x and the legacy magic. The result borrows `bytes`.
Result<VgfFile> decode_vgf(std::span<const uint8_t> bytes);

// Encodes `model` as format `version` (k0_4_3, or k0_5_0 which also writes constant_bindings).
// Validates the same cross references as the decoder first; vk_header_version is written as
// given. Sections are 8-byte aligned, reserved fields zero.
Result<std::vector<uint8_t>> encode_vgf(const VgfModel& model, VgfVersion version = k0_4_3);

// Checks the cross references of a model (module/resource/constant indices, categories,
// dispatch_shape length, name list lengths); used by both decode_vgf and encode_vgf.
Status validate_vgf(const VgfModel& model);

}  // namespace univk::vgf
