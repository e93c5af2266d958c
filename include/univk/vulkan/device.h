// Instance and Device: RAII owners of VkInstance / VkDevice with their own volk dispatch tables
// (never a process-global table, so several instances and devices coexist).
//
// Ownership: an Instance owns its VkInstance (and debug messenger) unless it was imported, in
// which case it borrows. A Device owns its VkDevice unless imported (borrowed, never destroyed),
// keeps its Instance alive through a shared_ptr, and owns the Queue, the pipeline cache and the
// memory allocator state. Devices are shared through std::shared_ptr (see registry.h: a
// DeviceLease is a shared_ptr<Device>); everything created from a device (buffers, pipelines,
// command pools) holds a shared_ptr to it, so destroy order is free.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <volk.h>

#include "univk/base/status.h"
#include "univk/vulkan/device_requirements.h"
#include "univk/vulkan/runtime_config.h"
#include "univk/vulkan/shared_objects.h"

namespace univk::vulkan {

class Queue;

// The instance-level functions univk uses, resolved for one VkInstance through
// vkGetInstanceProcAddr (never volk's process-global instance table). Calls go through these
// pointers so they can be wrapped (fault injection).
struct InstanceDispatch {
  PFN_vkDestroyInstance vkDestroyInstance = nullptr;
  PFN_vkEnumeratePhysicalDevices vkEnumeratePhysicalDevices = nullptr;
  PFN_vkGetPhysicalDeviceProperties vkGetPhysicalDeviceProperties = nullptr;
  PFN_vkGetPhysicalDeviceFeatures vkGetPhysicalDeviceFeatures = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 vkGetPhysicalDeviceFeatures2 = nullptr;      // null on a 1.0 instance
  PFN_vkGetPhysicalDeviceProperties2 vkGetPhysicalDeviceProperties2 = nullptr;  // null on a 1.0 instance
  PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV vkGetPhysicalDeviceCooperativeMatrixPropertiesNV = nullptr;
  // Null where no device has VK_EXT_calibrated_timestamps.
  PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT vkGetPhysicalDeviceCalibrateableTimeDomainsEXT = nullptr;
  PFN_vkGetPhysicalDeviceQueueFamilyProperties vkGetPhysicalDeviceQueueFamilyProperties = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties vkGetPhysicalDeviceMemoryProperties = nullptr;
  PFN_vkEnumerateDeviceExtensionProperties vkEnumerateDeviceExtensionProperties = nullptr;
  PFN_vkCreateDevice vkCreateDevice = nullptr;
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;    // validation only
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;  // validation only
};

class Instance {
 public:
  static Result<std::shared_ptr<Instance>> create(const RuntimeConfig& config);
  // Borrows an application-owned instance; univk never destroys it.
  static Result<std::shared_ptr<Instance>> import(VkInstance instance, uint32_t api_version);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  uint32_t api_version() const { return api_version_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }

  // Physical devices in the deterministic order (discrete, integrated, virtual, CPU, other;
  // ties by enumeration index).
  Result<std::vector<VkPhysicalDevice>> sorted_physical_devices() const;
  // Applies RuntimeConfig::device_selector / UNIVK_DEVICE (index or name substring).
  Result<VkPhysicalDevice> select_physical_device(const std::string& selector) const;
  // What the physical device supports, as pure data for DeviceRequirements::check. Its
  // api_version is the lower of the instance's and the device's.
  DeviceCapabilities query_capabilities(VkPhysicalDevice physical_device) const;
  VkPhysicalDeviceProperties properties(VkPhysicalDevice physical_device) const;
  // This instance's own function table.
  const InstanceDispatch& vk() const { return fn_; }

 private:
  Instance() = default;
  Status load_functions();
  InstanceDispatch fn_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  uint32_t api_version_ = 0;
  bool owned_ = true;
};

// An application-owned device handed to univk (see DeviceRegistry::import_device).
struct ImportedDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family_index = 0;
  uint32_t api_version = VK_API_VERSION_1_3;  // the instance/device API version the app used
  std::set<std::string> enabled_extensions;
  std::set<Feature> enabled_features;
  int64_t wait_spin_us = -1;  // RuntimeConfig::wait_spin_us for the imported queue
  // RuntimeConfig::execute_timeout_ms for the imported queue (the environment is not read: the
  // application decides).
  int64_t execute_timeout_ms = -1;
};

class Device {
 public:
  // Creates a device on the selected physical device (config.device_selector, else UNIVK_DEVICE,
  // else the first in Instance's order) with exactly the required items plus the supported
  // optional ones. univk itself adds Vulkan 1.2 with timelineSemaphore (required: Queue's
  // timeline) and synchronization2 (optional: vkQueueSubmit2 / vkCmdPipelineBarrier2 when the
  // device has it at Vulkan 1.3). Incompatible, naming every missing item, when the device cannot
  // satisfy them. Feature structs are chained only for the device's API version (1.1 features
  // through the Vulkan11Features struct, so from 1.2 on).
  // Creates a new Instance from `config` for the device.
  static Result<std::shared_ptr<Device>> create(const RuntimeConfig& config, const DeviceRequirements& requirements);
  // The same on an existing instance (config.device_selector still picks the physical device).
  static Result<std::shared_ptr<Device>> create(std::shared_ptr<Instance> instance, const RuntimeConfig& config,
                                                const DeviceRequirements& requirements);
  // Wraps an application-owned device; never destroys its handles (univk's own timeline
  // semaphore and pipeline cache on it are destroyed after waiting for univk's last submission).
  // The application must have enabled timelineSemaphore (Vulkan 1.2).
  static Result<std::shared_ptr<Device>> import(const ImportedDevice& imported);
  ~Device();  // waits for the device to be idle only when it owns it, then destroys it
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  VkInstance instance() const;
  const std::shared_ptr<Instance>& instance_object() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_device_; }
  VkDevice handle() const { return device_; }
  // This device's dispatch table: call `device.vk().vkCmdDispatch(...)`.
  const VolkDeviceTable& vk() const { return table_; }
  Queue& queue() const { return *queue_; }
  bool borrowed() const { return !owned_; }

  // What was enabled at creation (or what the application said it enabled, when imported).
  const DeviceCapabilities& enabled() const { return enabled_; }
  bool has(Feature feature) const { return enabled_.features.contains(feature); }
  // True when synchronization2 is enabled on a Vulkan 1.3 device: the queue then uses
  // vkQueueSubmit2 and the record_* helpers vkCmdPipelineBarrier2.
  bool uses_synchronization2() const { return synchronization2_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_properties_; }
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  // Immutable objects delegates on this device share (shared_objects.h).
  SharedObjectCache& shared_objects() const { return shared_objects_; }

  // Memory type index with all of `required` (and `preferred` when one has it) among the bits of
  // `type_bits`; NotFound when none.
  Result<uint32_t> find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                    VkMemoryPropertyFlags preferred = 0) const;

  // Live allocation count and bytes of the device's simple allocator (for tests and tools).
  uint64_t live_allocations() const;
  uint64_t live_allocated_bytes() const;
  void note_allocation(int64_t count_delta, int64_t bytes_delta);

 private:
  Device() = default;
  Status finish_setup(VkQueue queue, uint32_t queue_family_index, int64_t wait_spin_us, int64_t execute_timeout_ms);
  std::shared_ptr<Instance> instance_;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VolkDeviceTable table_{};
  std::unique_ptr<Queue> queue_;
  DeviceCapabilities enabled_;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  bool owned_ = true;
  bool synchronization2_ = false;
  mutable SharedObjectCache shared_objects_;
  mutable std::mutex allocation_mutex_;
  uint64_t live_allocations_ = 0;
  uint64_t live_bytes_ = 0;
};

// Maps a VkResult to a Status: OUT_OF_*_MEMORY -> OutOfMemory, DEVICE_LOST -> DeviceLost,
// EXTENSION/FEATURE_NOT_PRESENT and INCOMPATIBLE_DRIVER -> Incompatible, others -> Internal.
// The message names the call: "vkCreateBuffer failed: VK_ERROR_OUT_OF_DEVICE_MEMORY".
Status vk_status(VkResult result, const char* call);
const char* vk_result_name(VkResult result);

}  // namespace univk::vulkan

// Returns a Status from the enclosing function when the Vulkan call fails.
#define UNIVK_VK_RETURN_IF_ERROR(call)                                                              \
  do {                                                                                              \
    VkResult univk_vk_result_ = (call);                                                             \
    if (univk_vk_result_ != VK_SUCCESS) return ::univk::vulkan::vk_status(univk_vk_result_, #call); \
  } while (0)
