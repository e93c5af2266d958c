// Internal hooks of fault injection (include/univk/vulkan/fault_injection.h): Device, Instance
// and DataGraphDispatch call these right after loading their dispatch tables. Each is a no-op unless instrumentation
// is on, in which case the table's VkResult-returning entries are replaced by counting
// trampolines. The tables are owned by the caller; the trampolines are process-wide statics.
#pragma once

#include <volk.h>

#include "univk/vulkan/arm_dispatch.h"
#include "univk/vulkan/device.h"

namespace univk::vulkan::fault_injection {

void instrument(VolkDeviceTable& table);
void instrument(InstanceDispatch& table);
void instrument(DataGraphDispatch& table);

}  // namespace univk::vulkan::fault_injection
