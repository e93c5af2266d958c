// DeviceRequirements: what a delegate needs from a Vulkan device, as pure data. A method merges
// the requirements of all its delegates (union) before any device is created or looked up, so
// load order never matters. check() names every missing item. No Vulkan calls in this header's
// implementation: it is unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan_core.h>

namespace univk::vulkan {

// Named feature bits across VkPhysicalDeviceFeatures, the 1.1/1.2/1.3 feature structs and
// extension feature structs. Append only.
enum class Feature : uint16_t {
  kShaderInt8,                          // Vulkan12Features::shaderInt8
  kShaderInt16,                         // Features::shaderInt16
  kShaderInt64,                         // Features::shaderInt64
  kShaderFloat16,                       // Vulkan12Features::shaderFloat16
  kShaderFloat64,                       // Features::shaderFloat64
  kStorageBuffer8BitAccess,             // Vulkan12Features::storageBuffer8BitAccess
  kUniformAndStorageBuffer8BitAccess,   // Vulkan12Features
  kStoragePushConstant8,                // Vulkan12Features
  kStorageBuffer16BitAccess,            // Vulkan11Features::storageBuffer16BitAccess
  kUniformAndStorageBuffer16BitAccess,  // Vulkan11Features
  kStoragePushConstant16,               // Vulkan11Features
  kTimelineSemaphore,                   // Vulkan12Features
  kSynchronization2,                    // Vulkan13Features
  kBufferDeviceAddress,                 // Vulkan12Features
  kVulkanMemoryModel,                   // Vulkan12Features
  kVulkanMemoryModelDeviceScope,        // Vulkan12Features
  kMaintenance4,                        // Vulkan13Features
  kSubgroupSizeControl,                 // Vulkan13Features
  kComputeFullSubgroups,                // Vulkan13Features
  kShaderIntegerDotProduct,             // Vulkan13Features
  kScalarBlockLayout,                   // Vulkan12Features
  kRobustBufferAccess,                  // Features::robustBufferAccess
  kCooperativeMatrixNV,                 // CooperativeMatrixFeaturesNV (VK_NV_cooperative_matrix)
  kTensorsARM,                          // TensorFeaturesARM::tensors (VK_ARM_tensors)
  kDataGraphARM,                        // DataGraphFeaturesARM::dataGraph (VK_ARM_data_graph)
  kDataGraphShaderModuleARM,            // DataGraphFeaturesARM::dataGraphShaderModule
  // PipelineExecutablePropertiesFeaturesKHR::pipelineExecutableInfo
  // (VK_KHR_pipeline_executable_properties): ComputePipeline::statistics.
  kPipelineExecutableInfo,
};
inline constexpr int kFeatureCount = 27;

std::string_view feature_name(Feature feature);  // "shaderInt8", "timelineSemaphore", ...
std::optional<Feature> feature_from_name(std::string_view name);

// One entry of VK_NV_cooperative_matrix's property list: D (M x N) = A (M x K) * B (K x N) + C.
struct CooperativeMatrixShape {
  uint32_t m = 0, n = 0, k = 0;
  VkComponentTypeNV a = VK_COMPONENT_TYPE_FLOAT16_NV, b = VK_COMPONENT_TYPE_FLOAT16_NV;
  VkComponentTypeNV c = VK_COMPONENT_TYPE_FLOAT32_NV, d = VK_COMPONENT_TYPE_FLOAT32_NV;
  VkScopeNV scope = VK_SCOPE_SUBGROUP_NV;
  friend bool operator==(const CooperativeMatrixShape&, const CooperativeMatrixShape&) = default;
};
// "16x16x16 fp16*fp16+fp32->fp32 subgroup" (component types as sint8, uint32, fp16, ...).
std::string cooperative_matrix_shape_string(const CooperativeMatrixShape& shape);

// What a physical device offers, or what a created device enabled. Pure data.
struct DeviceCapabilities {
  std::string device_name;
  uint32_t api_version = 0;
  std::set<std::string> extensions;
  std::set<Feature> features;
  std::vector<VkQueueFlags> queue_family_flags;  // one entry per queue family
  uint32_t subgroup_size = 0;                    // SubgroupProperties::subgroupSize; 0: unknown
  // Every shape VK_NV_cooperative_matrix lists (empty without it, or on a created device that did
  // not enable its feature).
  std::vector<CooperativeMatrixShape> cooperative_matrix_shapes;
  // Whether cooperative_matrix_shapes holds the subgroup-scope m x n x k shape of `ab` A and B
  // with `cd` C and D.
  bool lists_cooperative_matrix(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeNV ab, VkComponentTypeNV cd) const;
  // 16x16x16 of fp16 A and B with fp32 C and D (the kernel library's fp16 cooperative-matrix
  // kernels).
  bool lists_cooperative_matrix_f16() const;
  // m x n x k of int8 A and B with int32 C and D (the kernel library's int8 cooperative-matrix
  // kernel).
  bool lists_cooperative_matrix_i8(uint32_t m, uint32_t n, uint32_t k) const;
};

struct DeviceRequirements {
  uint32_t min_api_version = VK_API_VERSION_1_1;
  std::set<std::string> required_extensions;
  std::set<std::string> optional_extensions;  // enabled when present, never an error
  std::set<Feature> required_features;
  std::set<Feature> optional_features;
  VkQueueFlags queue_flags = VK_QUEUE_COMPUTE_BIT;  // one queue family must have all of them
  // Flags a family should have on top of queue_flags: the device is created on a family with
  // both when one exists, else on one with queue_flags alone (never an error).
  VkQueueFlags preferred_queue_flags = 0;

  // The family Device::create uses: the first with queue_flags | preferred_queue_flags, else the
  // first with queue_flags; nullopt when none has queue_flags.
  std::optional<uint32_t> choose_queue_family(const std::vector<VkQueueFlags>& family_flags) const;

  // Union: max of API versions, union of sets and flags. An item required by either side stays
  // required (and is dropped from the optional set).
  void merge(const DeviceRequirements& other);

  // Every required item `caps` lacks, each named, e.g. "API version 1.3 (device has 1.1)",
  // "extension VK_KHR_foo", "feature shaderInt8", "queue flags COMPUTE|TRANSFER".
  std::vector<std::string> check(const DeviceCapabilities& caps) const;

  std::string describe() const;  // human-readable summary for logs and errors
};

std::string api_version_string(uint32_t version);    // "1.3"
std::string queue_flags_string(VkQueueFlags flags);  // "COMPUTE|TRANSFER", "COMPUTE|DATA_GRAPH_ARM"

}  // namespace univk::vulkan
