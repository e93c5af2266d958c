// Field slot ids of the VGF FlatBuffers tables (format 0.3.0 .. 0.5.0), written from the
// format description in docs/FORMATS.md. A union uses two slots:
// its type (u8) and then its table. Shared by the decoder and the encoder.
#pragma once

#include <cstdint>

namespace univk::vgf::schema {

inline constexpr uint32_t kNoIndex = 0xFFFFFFFFu;  // default of set_index/alias_group_id

namespace module_table {
inline constexpr int kModules = 0;
}
namespace module {
inline constexpr int kType = 0, kName = 1, kEntryPoint = 2, kCodeType = 3, kCode = 4;
}
namespace spirv_code {
inline constexpr int kWords = 0;
}
namespace source_code {
inline constexpr int kCode = 0;
}  // namespace source_code

namespace sequence_table {
inline constexpr int kSegments = 0, kInputs = 1, kOutputs = 2, kInputNames = 3, kOutputNames = 4;
}
namespace segment {
inline constexpr int kType = 0, kName = 1, kModuleIndex = 2, kSetInfos = 3, kInputs = 4, kOutputs = 5, kConstants = 6,
                     kDispatchShape = 7, kPushConstantRanges = 8, kConstantBindings = 9;
}
namespace set_info {
inline constexpr int kBindings = 0, kSetIndex = 1;
}
namespace binding_slot {
inline constexpr int kBinding = 0, kMrtIndex = 1;
}
namespace push_constant_range {
inline constexpr int kStageFlags = 0, kOffset = 1, kSize = 2;
}
namespace constant_binding {
inline constexpr int kGraphConstantId = 0, kConstantIndex = 1;
}

namespace resource_table {
inline constexpr int kEntries = 0;
}
namespace resource {
inline constexpr int kDescriptorType = 0, kFormat = 1, kCategory = 2, kDescription = 3, kExtraConfigType = 4,
                     kExtraConfig = 5, kAliasGroupId = 6;
}
namespace description {
inline constexpr int kShape = 0, kStrides = 1;
}
inline constexpr uint8_t kExtraConfigSampler = 1;
namespace sampler {
inline constexpr int kMinFilter = 0, kMagFilter = 1, kAddressModeU = 2, kAddressModeV = 3, kBorderColor = 4;
}

// Format 0.3.0 constants section (a FlatBuffers buffer).
namespace legacy_constants {
inline constexpr int kData = 0;
}
namespace legacy_constant {
inline constexpr int kMrtIndex = 0, kSparsity = 1, kRaw = 2;
}

// Header layout (128 bytes, little endian).
namespace header {
inline constexpr uint32_t kMagic = 0x31464756u;  // "VGF1"
inline constexpr uint32_t kLegacyMagic = 0xF0E1D2C3u;
inline constexpr size_t kVkHeaderVersion = 4, kMajor = 8, kMinor = 9, kPatch = 10;
inline constexpr size_t kSections = 16;  // 4 x {u64 offset, u64 size}
}  // namespace header
// Raw constants section ("CONST00").
inline constexpr char kConst00Magic[8] = {'C', 'O', 'N', 'S', 'T', '0', '0', '\0'};
inline constexpr size_t kConstRecordSize = 24;  // {u32 mrt, i32 sparsity, u64 size, u64 offset}

}  // namespace univk::vgf::schema
