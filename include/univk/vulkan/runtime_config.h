// RuntimeConfig: instance and device-selection settings chosen by the caller, never by which
// backends were built (review item: "an unrelated backend changes the instance API version").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

namespace univk::vulkan {

struct RuntimeConfig {
  // apiVersion passed to vkCreateInstance. Devices are still checked against each delegate's
  // own minimum (DeviceRequirements::min_api_version).
  uint32_t api_version = VK_API_VERSION_1_3;
  // Turns on VK_LAYER_KHRONOS_validation (with synchronization validation) and routes its
  // messages to univk::vulkan::record_validation_message. UNIVK_VALIDATION=1 also turns it on.
  bool enable_validation = false;
  std::vector<std::string> instance_extensions;
  // Instance layers to enable, in order (the first is nearest the application), before
  // VK_LAYER_KHRONOS_validation when validation is on; e.g. Arm's ML emulation layers
  // VK_LAYER_ML_Graph_Emulation then VK_LAYER_ML_Tensor_Emulation, found through VK_LAYER_PATH.
  // A layer the loader does not list is Incompatible at instance creation, naming it.
  // UNIVK_INSTANCE_LAYERS (colon-separated) sets it.
  std::vector<std::string> instance_layers;
  // Physical device: an index into the sorted device list or a substring of the device name.
  // Empty: UNIVK_DEVICE from the environment, else the first device in the deterministic order
  // (discrete, integrated, virtual, CPU; then by index).
  std::string device_selector;
  // How long Queue::wait polls the timeline before it blocks in vkWaitSemaphores, in
  // microseconds. Blocking costs a thread wake-up (about 10-20 us on the H200's driver) on every
  // wait, which small models feel. -1 (the default): 0 on CPU devices (lavapipe, where a spinning
  // waiter takes a core from the driver's own threads), 100 elsewhere. UNIVK_WAIT_SPIN_US sets it.
  int64_t wait_spin_us = -1;
  // How long a host wait for GPU work (Queue::wait, so every execute) accepts no progress at all
  // on the device's timeline, in milliseconds; 0 waits without a limit. Past it the wait returns
  // Timeout and marks the device unusable (Queue::unusable): a dispatch that never ends would
  // otherwise hang the caller. -1 (the default): 60 s on GPUs, 10 min on CPU devices (lavapipe),
  // where a fused forward of a whole model is one submission run by two CPU cores and can take
  // a minute on a loaded machine. UNIVK_EXECUTE_TIMEOUT_MS sets it.
  int64_t execute_timeout_ms = -1;
  static constexpr int64_t kGpuExecuteTimeoutMs = 60000;
  static constexpr int64_t kCpuDeviceExecuteTimeoutMs = 600000;

  // Defaults with the environment applied (UNIVK_VALIDATION, UNIVK_DEVICE, UNIVK_WAIT_SPIN_US,
  // UNIVK_EXECUTE_TIMEOUT_MS, UNIVK_INSTANCE_LAYERS). A malformed value keeps the default and
  // logs a warning.
  static RuntimeConfig from_environment();
};

}  // namespace univk::vulkan
