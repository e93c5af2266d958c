// DataGraphDispatch: the VK_ARM_tensors / VK_ARM_data_graph entry points of one device, loaded
// with vkGetDeviceProcAddr (the loader exports none of them, and through Arm's emulation layer
// they exist only in the device's layer chain). A plain value: copy it into whatever uses the
// device; it stays valid while the VkDevice lives. No process-global state.
#pragma once

#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/vulkan/arm_data_graph.h"

namespace univk::vulkan {

class Device;

struct DataGraphDispatch {
  arm::PFN_CreateTensor vkCreateTensorARM = nullptr;
  arm::PFN_DestroyTensor vkDestroyTensorARM = nullptr;
  arm::PFN_CreateTensorView vkCreateTensorViewARM = nullptr;
  arm::PFN_DestroyTensorView vkDestroyTensorViewARM = nullptr;
  arm::PFN_GetTensorMemoryRequirements vkGetTensorMemoryRequirementsARM = nullptr;
  arm::PFN_BindTensorMemory vkBindTensorMemoryARM = nullptr;
  arm::PFN_CreateDataGraphPipelines vkCreateDataGraphPipelinesARM = nullptr;
  arm::PFN_CreateDataGraphPipelineSession vkCreateDataGraphPipelineSessionARM = nullptr;
  arm::PFN_GetDataGraphPipelineSessionBindPointRequirements vkGetDataGraphPipelineSessionBindPointRequirementsARM =
      nullptr;
  arm::PFN_GetDataGraphPipelineSessionMemoryRequirements vkGetDataGraphPipelineSessionMemoryRequirementsARM = nullptr;
  arm::PFN_BindDataGraphPipelineSessionMemory vkBindDataGraphPipelineSessionMemoryARM = nullptr;
  arm::PFN_DestroyDataGraphPipelineSession vkDestroyDataGraphPipelineSessionARM = nullptr;
  arm::PFN_CmdDispatchDataGraph vkCmdDispatchDataGraphARM = nullptr;

  // Every entry point above for `device`; Unsupported naming the ones the device does not
  // return (an extension that was not enabled).
  static Result<DataGraphDispatch> load(const Device& device);
};

// The data-graph operation sets the device's queue family supports
// (vkGetPhysicalDeviceQueueFamilyDataGraphPropertiesARM through vkGetInstanceProcAddr), e.g.
// {SPIRV_EXTENDED_INSTRUCTION_SET, "TOSA.001000.1", ...}. Empty when the instance has no such
// entry point.
std::vector<arm::QueueFamilyDataGraphProperties> queue_family_data_graph_properties(const Device& device);

// "TOSA.001000.1" for the operation set the SPIR-V import name `import_name` needs when the
// queue family lists it; the check behind VgfBackend's choice of path.
bool supports_operation_set(const std::vector<arm::QueueFamilyDataGraphProperties>& properties,
                            const std::string& import_name);

}  // namespace univk::vulkan
