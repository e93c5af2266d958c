// FeatureChain: a VkPhysicalDeviceFeatures2 chain with the 1.1/1.2/1.3 feature structs, each
// linked only when the device's API version has it, and the extension feature structs of the
// extensions given (only those: a struct of an extension the device lacks is invalid there). Used both to query what a
// physical device supports and to enable features at vkCreateDevice. Holds no Vulkan objects.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include <volk.h>

#include "univk/vulkan/arm_data_graph.h"
#include "univk/vulkan/device_requirements.h"

namespace univk::vulkan {

class FeatureChain {
 public:
  // `api_version`: the version the device will be used at (min of instance and device).
  // `extensions`: the device's (query) or the enabled (create) extensions.
  FeatureChain(uint32_t api_version, const std::set<std::string>& extensions);
  FeatureChain(const FeatureChain&) = delete;
  FeatureChain& operator=(const FeatureChain&) = delete;

  // The head of the chain, for vkGetPhysicalDeviceFeatures2 or VkDeviceCreateInfo::pNext.
  VkPhysicalDeviceFeatures2* head() { return &features_; }

  // Every Feature whose bit is set.
  std::set<Feature> enabled() const;
  // Sets the bit of `feature`; false when its struct is not in the chain (API version too low).
  bool set(Feature feature);

 private:
  VkBool32* field(Feature feature);
  const VkBool32* field(Feature feature) const { return const_cast<FeatureChain*>(this)->field(feature); }

  uint32_t api_version_;
  VkPhysicalDeviceFeatures2 features_{};
  VkPhysicalDeviceVulkan11Features v11_{};
  VkPhysicalDeviceVulkan12Features v12_{};
  VkPhysicalDeviceVulkan13Features v13_{};
  bool has_cooperative_matrix_nv_ = false;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperative_matrix_nv_{};
  bool has_tensors_arm_ = false;
  arm::PhysicalDeviceTensorFeatures tensors_arm_{};
  bool has_data_graph_arm_ = false;
  arm::PhysicalDeviceDataGraphFeatures data_graph_arm_{};
  bool has_pipeline_executable_ = false;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pipeline_executable_{};
};

}  // namespace univk::vulkan
