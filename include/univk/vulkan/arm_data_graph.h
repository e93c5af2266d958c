// Declarations for VK_ARM_tensors, VK_ARM_data_graph and VK_ARM_data_graph_instruction_set_tosa,
// which the Vulkan headers univk builds against (Debian's 1.3.239) predate. Only what univk
// uses, written from the registry's enum values and structure layouts (Vulkan-Headers 1.4.x);
// the names live in univk::vulkan::arm so a newer vulkan_core.h that declares the real ones
// cannot clash with them.
//
// Entry points are never linked: DataGraphDispatch (arm_dispatch.h) loads them per device with
// vkGetDeviceProcAddr, so calls go through the device's layer chain (Arm's emulation layer
// implements them there).
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

namespace univk::vulkan::arm {

inline constexpr const char* kTensorsExtension = "VK_ARM_tensors";
inline constexpr const char* kDataGraphExtension = "VK_ARM_data_graph";
inline constexpr const char* kDataGraphTosaExtension = "VK_ARM_data_graph_instruction_set_tosa";

// Handles (non-dispatchable).
using Tensor = struct Tensor_T*;
using TensorView = struct TensorView_T*;
using DataGraphPipelineSession = struct DataGraphPipelineSession_T*;

// VkStructureType values.
inline constexpr auto kStructTensorCreateInfo = static_cast<VkStructureType>(1000460000);
inline constexpr auto kStructTensorViewCreateInfo = static_cast<VkStructureType>(1000460001);
inline constexpr auto kStructBindTensorMemoryInfo = static_cast<VkStructureType>(1000460002);
inline constexpr auto kStructWriteDescriptorSetTensor = static_cast<VkStructureType>(1000460003);
inline constexpr auto kStructTensorDescription = static_cast<VkStructureType>(1000460006);
inline constexpr auto kStructTensorMemoryRequirementsInfo = static_cast<VkStructureType>(1000460007);
inline constexpr auto kStructPhysicalDeviceTensorFeatures = static_cast<VkStructureType>(1000460009);
inline constexpr auto kStructDataGraphPipelineCreateInfo = static_cast<VkStructureType>(1000507000);
inline constexpr auto kStructDataGraphPipelineSessionCreateInfo = static_cast<VkStructureType>(1000507001);
inline constexpr auto kStructDataGraphPipelineResourceInfo = static_cast<VkStructureType>(1000507002);
inline constexpr auto kStructDataGraphPipelineConstant = static_cast<VkStructureType>(1000507003);
inline constexpr auto kStructDataGraphPipelineSessionMemoryRequirementsInfo = static_cast<VkStructureType>(1000507004);
inline constexpr auto kStructBindDataGraphPipelineSessionMemoryInfo = static_cast<VkStructureType>(1000507005);
inline constexpr auto kStructPhysicalDeviceDataGraphFeatures = static_cast<VkStructureType>(1000507006);
inline constexpr auto kStructDataGraphPipelineShaderModuleCreateInfo = static_cast<VkStructureType>(1000507007);
inline constexpr auto kStructDataGraphPipelineSessionBindPointRequirementsInfo =
    static_cast<VkStructureType>(1000507011);
inline constexpr auto kStructDataGraphPipelineSessionBindPointRequirement = static_cast<VkStructureType>(1000507012);
inline constexpr auto kStructDataGraphPipelineDispatchInfo = static_cast<VkStructureType>(1000507014);
inline constexpr auto kStructQueueFamilyDataGraphProperties = static_cast<VkStructureType>(1000507018);

// Other enum values.
inline constexpr auto kDescriptorTypeTensor = static_cast<VkDescriptorType>(1000460000);
inline constexpr auto kPipelineBindPointDataGraph = static_cast<VkPipelineBindPoint>(1000507000);
inline constexpr VkQueueFlags kQueueDataGraphBit = 0x400;
inline constexpr VkPipelineStageFlags2 kPipelineStage2DataGraph = 0x40000000000ull;
inline constexpr VkAccessFlags2 kAccess2DataGraphRead = 0x800000000000ull;
inline constexpr VkAccessFlags2 kAccess2DataGraphWrite = 0x1000000000000ull;
inline constexpr uint32_t kTensorTilingLinear = 1;
inline constexpr uint64_t kTensorUsageDataGraph = 0x20;
inline constexpr uint32_t kSessionBindPointTypeMemory = 0;
inline constexpr uint32_t kOperationTypeSpirvExtendedInstructionSet = 0;
inline constexpr uint32_t kMaxOperationSetNameSize = 128;

struct TensorDescription {
  VkStructureType sType = kStructTensorDescription;
  const void* pNext = nullptr;
  uint32_t tiling = kTensorTilingLinear;
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t dimensionCount = 0;
  const int64_t* pDimensions = nullptr;
  const int64_t* pStrides = nullptr;  // null: packed
  uint64_t usage = 0;
};

struct TensorCreateInfo {
  VkStructureType sType = kStructTensorCreateInfo;
  const void* pNext = nullptr;
  uint64_t flags = 0;
  const TensorDescription* pDescription = nullptr;
  VkSharingMode sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  uint32_t queueFamilyIndexCount = 0;
  const uint32_t* pQueueFamilyIndices = nullptr;
};

struct TensorViewCreateInfo {
  VkStructureType sType = kStructTensorViewCreateInfo;
  const void* pNext = nullptr;
  uint64_t flags = 0;
  Tensor tensor = nullptr;
  VkFormat format = VK_FORMAT_UNDEFINED;
};

struct TensorMemoryRequirementsInfo {
  VkStructureType sType = kStructTensorMemoryRequirementsInfo;
  const void* pNext = nullptr;
  Tensor tensor = nullptr;
};

struct BindTensorMemoryInfo {
  VkStructureType sType = kStructBindTensorMemoryInfo;
  const void* pNext = nullptr;
  Tensor tensor = nullptr;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize memoryOffset = 0;
};

struct WriteDescriptorSetTensor {
  VkStructureType sType = kStructWriteDescriptorSetTensor;
  const void* pNext = nullptr;
  uint32_t tensorViewCount = 0;
  const TensorView* pTensorViews = nullptr;
};

struct PhysicalDeviceTensorFeatures {
  VkStructureType sType = kStructPhysicalDeviceTensorFeatures;
  void* pNext = nullptr;
  VkBool32 tensorNonPacked = VK_FALSE;
  VkBool32 shaderTensorAccess = VK_FALSE;
  VkBool32 shaderStorageTensorArrayDynamicIndexing = VK_FALSE;
  VkBool32 shaderStorageTensorArrayNonUniformIndexing = VK_FALSE;
  VkBool32 descriptorBindingStorageTensorUpdateAfterBind = VK_FALSE;
  VkBool32 tensors = VK_FALSE;
};

struct PhysicalDeviceDataGraphFeatures {
  VkStructureType sType = kStructPhysicalDeviceDataGraphFeatures;
  void* pNext = nullptr;
  VkBool32 dataGraph = VK_FALSE;
  VkBool32 dataGraphUpdateAfterBind = VK_FALSE;
  VkBool32 dataGraphSpecializationConstants = VK_FALSE;
  VkBool32 dataGraphDescriptorBuffer = VK_FALSE;
  VkBool32 dataGraphShaderModule = VK_FALSE;
};

struct DataGraphPipelineConstant {
  VkStructureType sType = kStructDataGraphPipelineConstant;
  const void* pNext = nullptr;  // a TensorDescription
  uint32_t id = 0;
  const void* pConstantData = nullptr;
};

struct DataGraphPipelineResourceInfo {
  VkStructureType sType = kStructDataGraphPipelineResourceInfo;
  const void* pNext = nullptr;  // a TensorDescription
  uint32_t descriptorSet = 0;
  uint32_t binding = 0;
  uint32_t arrayElement = 0;
};

struct DataGraphPipelineCreateInfo {
  VkStructureType sType = kStructDataGraphPipelineCreateInfo;
  const void* pNext = nullptr;  // a DataGraphPipelineShaderModuleCreateInfo
  uint64_t flags = 0;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  uint32_t resourceInfoCount = 0;
  const DataGraphPipelineResourceInfo* pResourceInfos = nullptr;
};

struct DataGraphPipelineShaderModuleCreateInfo {
  VkStructureType sType = kStructDataGraphPipelineShaderModuleCreateInfo;
  const void* pNext = nullptr;
  VkShaderModule module = VK_NULL_HANDLE;
  const char* pName = nullptr;
  const VkSpecializationInfo* pSpecializationInfo = nullptr;
  uint32_t constantCount = 0;
  const DataGraphPipelineConstant* pConstants = nullptr;
};

struct DataGraphPipelineSessionCreateInfo {
  VkStructureType sType = kStructDataGraphPipelineSessionCreateInfo;
  const void* pNext = nullptr;
  uint64_t flags = 0;
  VkPipeline dataGraphPipeline = VK_NULL_HANDLE;
};

struct DataGraphPipelineSessionBindPointRequirementsInfo {
  VkStructureType sType = kStructDataGraphPipelineSessionBindPointRequirementsInfo;
  const void* pNext = nullptr;
  DataGraphPipelineSession session = nullptr;
};

struct DataGraphPipelineSessionBindPointRequirement {
  VkStructureType sType = kStructDataGraphPipelineSessionBindPointRequirement;
  void* pNext = nullptr;
  uint32_t bindPoint = 0;
  uint32_t bindPointType = 0;
  uint32_t numObjects = 0;
};

struct DataGraphPipelineSessionMemoryRequirementsInfo {
  VkStructureType sType = kStructDataGraphPipelineSessionMemoryRequirementsInfo;
  const void* pNext = nullptr;
  DataGraphPipelineSession session = nullptr;
  uint32_t bindPoint = 0;
  uint32_t objectIndex = 0;
};

struct BindDataGraphPipelineSessionMemoryInfo {
  VkStructureType sType = kStructBindDataGraphPipelineSessionMemoryInfo;
  const void* pNext = nullptr;
  DataGraphPipelineSession session = nullptr;
  uint32_t bindPoint = 0;
  uint32_t objectIndex = 0;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize memoryOffset = 0;
};

struct DataGraphPipelineDispatchInfo {
  VkStructureType sType = kStructDataGraphPipelineDispatchInfo;
  void* pNext = nullptr;
  uint64_t flags = 0;
};

struct DataGraphProcessingEngine {
  uint32_t type = 0;
  VkBool32 isForeign = VK_FALSE;
};

struct DataGraphOperationSupport {
  uint32_t operationType = 0;
  char name[kMaxOperationSetNameSize] = {};
  uint32_t version = 0;
};

struct QueueFamilyDataGraphProperties {
  VkStructureType sType = kStructQueueFamilyDataGraphProperties;
  void* pNext = nullptr;
  DataGraphProcessingEngine engine;
  DataGraphOperationSupport operation;
};

// Entry points.
using PFN_CreateTensor = VkResult(VKAPI_PTR*)(VkDevice, const TensorCreateInfo*, const VkAllocationCallbacks*, Tensor*);
using PFN_DestroyTensor = void(VKAPI_PTR*)(VkDevice, Tensor, const VkAllocationCallbacks*);
using PFN_CreateTensorView = VkResult(VKAPI_PTR*)(VkDevice, const TensorViewCreateInfo*, const VkAllocationCallbacks*,
                                                  TensorView*);
using PFN_DestroyTensorView = void(VKAPI_PTR*)(VkDevice, TensorView, const VkAllocationCallbacks*);
using PFN_GetTensorMemoryRequirements = void(VKAPI_PTR*)(VkDevice, const TensorMemoryRequirementsInfo*,
                                                         VkMemoryRequirements2*);
using PFN_BindTensorMemory = VkResult(VKAPI_PTR*)(VkDevice, uint32_t, const BindTensorMemoryInfo*);
using PFN_CreateDataGraphPipelines = VkResult(VKAPI_PTR*)(VkDevice, VkDeferredOperationKHR, VkPipelineCache, uint32_t,
                                                          const DataGraphPipelineCreateInfo*,
                                                          const VkAllocationCallbacks*, VkPipeline*);
using PFN_CreateDataGraphPipelineSession = VkResult(VKAPI_PTR*)(VkDevice, const DataGraphPipelineSessionCreateInfo*,
                                                                const VkAllocationCallbacks*,
                                                                DataGraphPipelineSession*);
using PFN_GetDataGraphPipelineSessionBindPointRequirements =
    VkResult(VKAPI_PTR*)(VkDevice, const DataGraphPipelineSessionBindPointRequirementsInfo*, uint32_t*,
                         DataGraphPipelineSessionBindPointRequirement*);
using PFN_GetDataGraphPipelineSessionMemoryRequirements =
    void(VKAPI_PTR*)(VkDevice, const DataGraphPipelineSessionMemoryRequirementsInfo*, VkMemoryRequirements2*);
using PFN_BindDataGraphPipelineSessionMemory = VkResult(VKAPI_PTR*)(VkDevice, uint32_t,
                                                                    const BindDataGraphPipelineSessionMemoryInfo*);
using PFN_DestroyDataGraphPipelineSession = void(VKAPI_PTR*)(VkDevice, DataGraphPipelineSession,
                                                             const VkAllocationCallbacks*);
using PFN_CmdDispatchDataGraph = void(VKAPI_PTR*)(VkCommandBuffer, DataGraphPipelineSession,
                                                  const DataGraphPipelineDispatchInfo*);
using PFN_GetPhysicalDeviceQueueFamilyDataGraphProperties = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t, uint32_t*,
                                                                                 QueueFamilyDataGraphProperties*);

}  // namespace univk::vulkan::arm
