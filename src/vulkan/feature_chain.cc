#include "feature_chain.h"

namespace univk::vulkan {

FeatureChain::FeatureChain(uint32_t api_version, const std::set<std::string>& extensions) : api_version_(api_version) {
  features_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  v11_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v12_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v13_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  // The Vulkan11/12/13 feature structs are valid in the chain only from Vulkan 1.2 / 1.2 / 1.3.
  void** next = &features_.pNext;
  if (api_version_ >= VK_API_VERSION_1_2) {
    *next = &v11_;
    next = &v11_.pNext;
    *next = &v12_;
    next = &v12_.pNext;
  }
  if (api_version_ >= VK_API_VERSION_1_3) {
    *next = &v13_;
    next = &v13_.pNext;
  }
  if (api_version_ >= VK_API_VERSION_1_1 && extensions.contains(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    has_cooperative_matrix_nv_ = true;
    cooperative_matrix_nv_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
    *next = &cooperative_matrix_nv_;
    next = &cooperative_matrix_nv_.pNext;
  }
  // The ARM structs are declared by univk (arm_data_graph.h): their sType is set by their
  // default member initialisers.
  if (api_version_ >= VK_API_VERSION_1_1 && extensions.contains(arm::kTensorsExtension)) {
    has_tensors_arm_ = true;
    *next = &tensors_arm_;
    next = &tensors_arm_.pNext;
  }
  if (api_version_ >= VK_API_VERSION_1_1 && extensions.contains(arm::kDataGraphExtension)) {
    has_data_graph_arm_ = true;
    *next = &data_graph_arm_;
    next = &data_graph_arm_.pNext;
  }
  if (api_version_ >= VK_API_VERSION_1_1 && extensions.contains(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    has_pipeline_executable_ = true;
    pipeline_executable_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    *next = &pipeline_executable_;
    next = &pipeline_executable_.pNext;
  }
}

VkBool32* FeatureChain::field(Feature feature) {
  bool has12 = api_version_ >= VK_API_VERSION_1_2;
  bool has13 = api_version_ >= VK_API_VERSION_1_3;
  VkPhysicalDeviceFeatures& core = features_.features;
  switch (feature) {
    case Feature::kShaderInt16:
      return &core.shaderInt16;
    case Feature::kShaderInt64:
      return &core.shaderInt64;
    case Feature::kShaderFloat64:
      return &core.shaderFloat64;
    case Feature::kRobustBufferAccess:
      return &core.robustBufferAccess;
    case Feature::kStorageBuffer16BitAccess:
      return has12 ? &v11_.storageBuffer16BitAccess : nullptr;
    case Feature::kUniformAndStorageBuffer16BitAccess:
      return has12 ? &v11_.uniformAndStorageBuffer16BitAccess : nullptr;
    case Feature::kStoragePushConstant16:
      return has12 ? &v11_.storagePushConstant16 : nullptr;
    case Feature::kShaderInt8:
      return has12 ? &v12_.shaderInt8 : nullptr;
    case Feature::kShaderFloat16:
      return has12 ? &v12_.shaderFloat16 : nullptr;
    case Feature::kStorageBuffer8BitAccess:
      return has12 ? &v12_.storageBuffer8BitAccess : nullptr;
    case Feature::kUniformAndStorageBuffer8BitAccess:
      return has12 ? &v12_.uniformAndStorageBuffer8BitAccess : nullptr;
    case Feature::kStoragePushConstant8:
      return has12 ? &v12_.storagePushConstant8 : nullptr;
    case Feature::kTimelineSemaphore:
      return has12 ? &v12_.timelineSemaphore : nullptr;
    case Feature::kBufferDeviceAddress:
      return has12 ? &v12_.bufferDeviceAddress : nullptr;
    case Feature::kVulkanMemoryModel:
      return has12 ? &v12_.vulkanMemoryModel : nullptr;
    case Feature::kVulkanMemoryModelDeviceScope:
      return has12 ? &v12_.vulkanMemoryModelDeviceScope : nullptr;
    case Feature::kScalarBlockLayout:
      return has12 ? &v12_.scalarBlockLayout : nullptr;
    case Feature::kSynchronization2:
      return has13 ? &v13_.synchronization2 : nullptr;
    case Feature::kMaintenance4:
      return has13 ? &v13_.maintenance4 : nullptr;
    case Feature::kSubgroupSizeControl:
      return has13 ? &v13_.subgroupSizeControl : nullptr;
    case Feature::kComputeFullSubgroups:
      return has13 ? &v13_.computeFullSubgroups : nullptr;
    case Feature::kShaderIntegerDotProduct:
      return has13 ? &v13_.shaderIntegerDotProduct : nullptr;
    case Feature::kCooperativeMatrixNV:
      return has_cooperative_matrix_nv_ ? &cooperative_matrix_nv_.cooperativeMatrix : nullptr;
    case Feature::kTensorsARM:
      return has_tensors_arm_ ? &tensors_arm_.tensors : nullptr;
    case Feature::kDataGraphARM:
      return has_data_graph_arm_ ? &data_graph_arm_.dataGraph : nullptr;
    case Feature::kDataGraphShaderModuleARM:
      return has_data_graph_arm_ ? &data_graph_arm_.dataGraphShaderModule : nullptr;
    case Feature::kPipelineExecutableInfo:
      return has_pipeline_executable_ ? &pipeline_executable_.pipelineExecutableInfo : nullptr;
  }
  return nullptr;
}

std::set<Feature> FeatureChain::enabled() const {
  std::set<Feature> out;
  for (int i = 0; i < kFeatureCount; ++i) {
    auto feature = static_cast<Feature>(i);
    const VkBool32* bit = field(feature);
    if (bit != nullptr && *bit == VK_TRUE) out.insert(feature);
  }
  return out;
}

bool FeatureChain::set(Feature feature) {
  VkBool32* bit = field(feature);
  if (bit == nullptr) return false;
  *bit = VK_TRUE;
  return true;
}

}  // namespace univk::vulkan
