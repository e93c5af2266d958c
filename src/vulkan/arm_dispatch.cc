#include "univk/vulkan/arm_dispatch.h"

#include <cstring>

#include "fault_injection.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::vulkan {

Result<DataGraphDispatch> DataGraphDispatch::load(const Device& device) {
  DataGraphDispatch d;
  std::string missing;
  auto load = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(vkGetDeviceProcAddr(device.handle(), name));
    if (slot == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  load(d.vkCreateTensorARM, "vkCreateTensorARM");
  load(d.vkDestroyTensorARM, "vkDestroyTensorARM");
  load(d.vkCreateTensorViewARM, "vkCreateTensorViewARM");
  load(d.vkDestroyTensorViewARM, "vkDestroyTensorViewARM");
  load(d.vkGetTensorMemoryRequirementsARM, "vkGetTensorMemoryRequirementsARM");
  load(d.vkBindTensorMemoryARM, "vkBindTensorMemoryARM");
  load(d.vkCreateDataGraphPipelinesARM, "vkCreateDataGraphPipelinesARM");
  load(d.vkCreateDataGraphPipelineSessionARM, "vkCreateDataGraphPipelineSessionARM");
  load(d.vkGetDataGraphPipelineSessionBindPointRequirementsARM,
       "vkGetDataGraphPipelineSessionBindPointRequirementsARM");
  load(d.vkGetDataGraphPipelineSessionMemoryRequirementsARM, "vkGetDataGraphPipelineSessionMemoryRequirementsARM");
  load(d.vkBindDataGraphPipelineSessionMemoryARM, "vkBindDataGraphPipelineSessionMemoryARM");
  load(d.vkDestroyDataGraphPipelineSessionARM, "vkDestroyDataGraphPipelineSessionARM");
  load(d.vkCmdDispatchDataGraphARM, "vkCmdDispatchDataGraphARM");
  if (!missing.empty()) return unsupported("vkGetDeviceProcAddr returned no " + missing);
  fault_injection::instrument(d);
  return d;
}

std::vector<arm::QueueFamilyDataGraphProperties> queue_family_data_graph_properties(const Device& device) {
  const auto query = reinterpret_cast<arm::PFN_GetPhysicalDeviceQueueFamilyDataGraphProperties>(
      vkGetInstanceProcAddr(device.instance(), "vkGetPhysicalDeviceQueueFamilyDataGraphPropertiesARM"));
  if (query == nullptr) return {};
  const uint32_t family = device.queue().family_index();
  uint32_t count = 0;
  if (query(device.physical_device(), family, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<arm::QueueFamilyDataGraphProperties> properties(count);
  if (query(device.physical_device(), family, &count, properties.data()) != VK_SUCCESS) return {};
  properties.resize(count);
  return properties;
}

bool supports_operation_set(const std::vector<arm::QueueFamilyDataGraphProperties>& properties,
                            const std::string& import_name) {
  for (const auto& p : properties) {
    if (p.operation.operationType != arm::kOperationTypeSpirvExtendedInstructionSet) continue;
    if (std::strncmp(p.operation.name, import_name.c_str(), sizeof(p.operation.name)) == 0) return true;
  }
  return false;
}

}  // namespace univk::vulkan
