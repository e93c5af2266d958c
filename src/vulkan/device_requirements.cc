// Pure data: no Vulkan calls here (unit-tested without a GPU).
#include "univk/vulkan/device_requirements.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "univk/vulkan/arm_data_graph.h"

namespace univk::vulkan {
namespace {

// Indexed by Feature; the names are the Vulkan struct member names.
constexpr std::array<std::string_view, kFeatureCount> kFeatureNames = {
    "shaderInt8",
    "shaderInt16",
    "shaderInt64",
    "shaderFloat16",
    "shaderFloat64",
    "storageBuffer8BitAccess",
    "uniformAndStorageBuffer8BitAccess",
    "storagePushConstant8",
    "storageBuffer16BitAccess",
    "uniformAndStorageBuffer16BitAccess",
    "storagePushConstant16",
    "timelineSemaphore",
    "synchronization2",
    "bufferDeviceAddress",
    "vulkanMemoryModel",
    "vulkanMemoryModelDeviceScope",
    "maintenance4",
    "subgroupSizeControl",
    "computeFullSubgroups",
    "shaderIntegerDotProduct",
    "scalarBlockLayout",
    "robustBufferAccess",
    "cooperativeMatrixNV",
    "tensors",
    "dataGraph",
    "dataGraphShaderModule",
    "pipelineExecutableInfo",
};
static_assert(static_cast<int>(Feature::kPipelineExecutableInfo) + 1 == kFeatureCount,
              "kFeatureCount and kFeatureNames must cover every Feature");

}  // namespace

std::string_view feature_name(Feature feature) {
  auto index = static_cast<size_t>(feature);
  return index < kFeatureNames.size() ? kFeatureNames[index] : std::string_view("unknown feature");
}

std::optional<Feature> feature_from_name(std::string_view name) {
  for (size_t i = 0; i < kFeatureNames.size(); ++i) {
    if (kFeatureNames[i] == name) return static_cast<Feature>(i);
  }
  return std::nullopt;
}

std::string api_version_string(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version));
}

namespace {

const char* component_type_name(VkComponentTypeNV type) {
  switch (type) {
    case VK_COMPONENT_TYPE_FLOAT16_NV:
      return "fp16";
    case VK_COMPONENT_TYPE_FLOAT32_NV:
      return "fp32";
    case VK_COMPONENT_TYPE_FLOAT64_NV:
      return "fp64";
    case VK_COMPONENT_TYPE_SINT8_NV:
      return "sint8";
    case VK_COMPONENT_TYPE_SINT16_NV:
      return "sint16";
    case VK_COMPONENT_TYPE_SINT32_NV:
      return "sint32";
    case VK_COMPONENT_TYPE_SINT64_NV:
      return "sint64";
    case VK_COMPONENT_TYPE_UINT8_NV:
      return "uint8";
    case VK_COMPONENT_TYPE_UINT16_NV:
      return "uint16";
    case VK_COMPONENT_TYPE_UINT32_NV:
      return "uint32";
    case VK_COMPONENT_TYPE_UINT64_NV:
      return "uint64";
    default:
      return "type?";
  }
}

const char* scope_name(VkScopeNV scope) {
  switch (scope) {
    case VK_SCOPE_DEVICE_NV:
      return "device";
    case VK_SCOPE_WORKGROUP_NV:
      return "workgroup";
    case VK_SCOPE_SUBGROUP_NV:
      return "subgroup";
    case VK_SCOPE_QUEUE_FAMILY_NV:
      return "queue family";
    default:
      return "scope?";
  }
}

}  // namespace

std::string cooperative_matrix_shape_string(const CooperativeMatrixShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + component_type_name(s.a) +
         "*" + component_type_name(s.b) + "+" + component_type_name(s.c) + "->" + component_type_name(s.d) + " " +
         scope_name(s.scope);
}

bool DeviceCapabilities::lists_cooperative_matrix(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeNV ab,
                                                  VkComponentTypeNV cd) const {
  const CooperativeMatrixShape want{m, n, k, ab, ab, cd, cd, VK_SCOPE_SUBGROUP_NV};
  return std::find(cooperative_matrix_shapes.begin(), cooperative_matrix_shapes.end(), want) !=
         cooperative_matrix_shapes.end();
}

bool DeviceCapabilities::lists_cooperative_matrix_f16() const {
  return lists_cooperative_matrix(16, 16, 16, VK_COMPONENT_TYPE_FLOAT16_NV, VK_COMPONENT_TYPE_FLOAT32_NV);
}

bool DeviceCapabilities::lists_cooperative_matrix_i8(uint32_t m, uint32_t n, uint32_t k) const {
  return lists_cooperative_matrix(m, n, k, VK_COMPONENT_TYPE_SINT8_NV, VK_COMPONENT_TYPE_SINT32_NV);
}

std::string queue_flags_string(VkQueueFlags flags) {
  static constexpr std::pair<VkQueueFlagBits, const char*> kNames[] = {
      {VK_QUEUE_GRAPHICS_BIT, "GRAPHICS"},   {VK_QUEUE_COMPUTE_BIT, "COMPUTE"},
      {VK_QUEUE_TRANSFER_BIT, "TRANSFER"},   {VK_QUEUE_SPARSE_BINDING_BIT, "SPARSE_BINDING"},
      {VK_QUEUE_PROTECTED_BIT, "PROTECTED"}, {static_cast<VkQueueFlagBits>(arm::kQueueDataGraphBit), "DATA_GRAPH_ARM"},
  };
  std::string out;
  VkQueueFlags named = 0;
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) == 0) continue;
    if (!out.empty()) out += "|";
    out += name;
    named |= bit;
  }
  if ((flags & ~named) != 0) {
    std::ostringstream hex;
    hex << "0x" << std::hex << (flags & ~named);
    if (!out.empty()) out += "|";
    out += hex.str();
  }
  return out.empty() ? "NONE" : out;
}

void DeviceRequirements::merge(const DeviceRequirements& other) {
  min_api_version = std::max(min_api_version, other.min_api_version);
  required_extensions.insert(other.required_extensions.begin(), other.required_extensions.end());
  optional_extensions.insert(other.optional_extensions.begin(), other.optional_extensions.end());
  required_features.insert(other.required_features.begin(), other.required_features.end());
  optional_features.insert(other.optional_features.begin(), other.optional_features.end());
  queue_flags |= other.queue_flags;
  preferred_queue_flags |= other.preferred_queue_flags;
  // Required wins over optional.
  for (const auto& e : required_extensions) optional_extensions.erase(e);
  for (Feature f : required_features) optional_features.erase(f);
}

std::optional<uint32_t> DeviceRequirements::choose_queue_family(const std::vector<VkQueueFlags>& family_flags) const {
  for (VkQueueFlags wanted : {queue_flags | preferred_queue_flags, queue_flags}) {
    for (uint32_t i = 0; i < family_flags.size(); ++i)
      if ((family_flags[i] & wanted) == wanted) return i;
  }
  return std::nullopt;
}

std::vector<std::string> DeviceRequirements::check(const DeviceCapabilities& caps) const {
  std::vector<std::string> missing;
  if (caps.api_version < min_api_version) {
    missing.push_back("API version " + api_version_string(min_api_version) + " (device has " +
                      api_version_string(caps.api_version) + ")");
  }
  for (const auto& e : required_extensions) {
    if (!caps.extensions.contains(e)) missing.push_back("extension " + e);
  }
  for (Feature f : required_features) {
    if (!caps.features.contains(f)) missing.push_back("feature " + std::string(feature_name(f)));
  }
  bool queue_ok = std::any_of(caps.queue_family_flags.begin(), caps.queue_family_flags.end(),
                              [&](VkQueueFlags family) { return (family & queue_flags) == queue_flags; });
  if (!queue_ok) missing.push_back("queue flags " + queue_flags_string(queue_flags));
  return missing;
}

std::string DeviceRequirements::describe() const {
  std::ostringstream out;
  out << "API >= " << api_version_string(min_api_version) << ", queue " << queue_flags_string(queue_flags);
  if (preferred_queue_flags != 0) out << " (preferred " << queue_flags_string(preferred_queue_flags) << ")";
  auto list = [&out](const char* label, const auto& items, auto name_of) {
    if (items.empty()) return;
    out << ", " << label << " {";
    bool first = true;
    for (const auto& item : items) {
      out << (first ? "" : ", ") << name_of(item);
      first = false;
    }
    out << "}";
  };
  auto ext_name = [](const std::string& e) { return e; };
  auto feat_name = [](Feature f) { return std::string(feature_name(f)); };
  list("extensions", required_extensions, ext_name);
  list("optional extensions", optional_extensions, ext_name);
  list("features", required_features, feat_name);
  list("optional features", optional_features, feat_name);
  return out.str();
}

}  // namespace univk::vulkan
