#include "univk/vulkan/device.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "univk/base/logging.h"
#include "univk/vulkan/queue.h"
#include "fault_injection.h"
#include "feature_chain.h"
#include "loader.h"

namespace univk::vulkan {

namespace {

// VkDevices univk created and has not destroyed yet, in this process (for error messages).
std::atomic<uint64_t> live_owned_devices{0};

// vkCreateDevice failed: name the device, the result and, when univk already holds devices,
// the likely cause (a driver with a limit on devices or on what each costs).
Status device_creation_error(VkResult result, const std::string& device_name) {
  Status status = vk_status(result, "vkCreateDevice");
  std::string message = status.message() + " on '" + device_name + "'";
  const uint64_t live = live_owned_devices.load();
  if (live > 0) {
    message += ": the driver could not create another device while this process holds " + std::to_string(live) +
               " Vulkan devices created by univk (each delegate with vulkan_shared_context_mode=disabled gets its "
               "own device; sharing one, the default lookup_or_create, avoids that)";
  }
  return Status(status.code(), message);
}

}  // namespace
namespace {

// What every univk device needs on top of its delegates' requirements: Queue orders work with a
// timeline semaphore, and uses synchronization2 when the device has it.
DeviceRequirements runtime_requirements() {
  DeviceRequirements r;
  r.min_api_version = VK_API_VERSION_1_2;  // timelineSemaphore lives in Vulkan12Features
  r.required_features = {Feature::kTimelineSemaphore};
  r.optional_features = {Feature::kSynchronization2};
  return r;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

VkInstance Device::instance() const { return instance_ ? instance_->handle() : VK_NULL_HANDLE; }

Result<std::shared_ptr<Device>> Device::create(const RuntimeConfig& config, const DeviceRequirements& requirements) {
  UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<Instance> instance, Instance::create(config));
  return create(std::move(instance), config, requirements);
}

Result<std::shared_ptr<Device>> Device::create(std::shared_ptr<Instance> instance, const RuntimeConfig& config,
                                               const DeviceRequirements& requirements) {
  if (!instance) return invalid_argument("Device::create: null instance");
  DeviceRequirements merged = runtime_requirements();
  merged.merge(requirements);

  UNIVK_ASSIGN_OR_RETURN(VkPhysicalDevice physical_device, instance->select_physical_device(config.device_selector));
  DeviceCapabilities caps = instance->query_capabilities(physical_device);
  std::vector<std::string> missing = merged.check(caps);
  if (!missing.empty()) {
    return incompatible("Vulkan device '" + caps.device_name + "' lacks: " + join(missing));
  }

  const uint32_t family = merged.choose_queue_family(caps.queue_family_flags).value();  // check() found one

  std::vector<std::string> extensions(merged.required_extensions.begin(), merged.required_extensions.end());
  for (const auto& e : merged.optional_extensions) {
    if (caps.extensions.contains(e)) extensions.push_back(e);
  }
  std::vector<const char*> extension_ptrs;
  for (const auto& e : extensions) extension_ptrs.push_back(e.c_str());

  FeatureChain chain(caps.api_version, std::set<std::string>(extensions.begin(), extensions.end()));
  for (Feature f : merged.required_features) chain.set(f);  // check() proved each is in the chain
  for (Feature f : merged.optional_features) {
    if (caps.features.contains(f)) chain.set(f);
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  VkDeviceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.pNext = chain.head();
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extension_ptrs.size());
  info.ppEnabledExtensionNames = extension_ptrs.data();

  std::shared_ptr<Device> device(new Device());
  device->instance_ = instance;
  device->physical_device_ = physical_device;
  const VkResult created = instance->vk().vkCreateDevice(physical_device, &info, nullptr, &device->device_);
  if (created != VK_SUCCESS) return device_creation_error(created, caps.device_name);
  live_owned_devices.fetch_add(1);

  device->enabled_.device_name = caps.device_name;
  device->enabled_.api_version = caps.api_version;
  device->enabled_.extensions.insert(extensions.begin(), extensions.end());
  device->enabled_.features = chain.enabled();
  device->enabled_.queue_family_flags = {caps.queue_family_flags[family]};
  device->enabled_.subgroup_size = caps.subgroup_size;
  if (device->enabled_.features.contains(Feature::kCooperativeMatrixNV)) {
    device->enabled_.cooperative_matrix_shapes = caps.cooperative_matrix_shapes;
  }

  volkLoadDeviceTable(&device->table_, device->device_);
  fault_injection::instrument(device->table_);  // no-op unless a test turned it on
  VkQueue queue = VK_NULL_HANDLE;
  device->table_.vkGetDeviceQueue(device->device_, family, 0, &queue);
  UNIVK_RETURN_IF_ERROR(device->finish_setup(queue, family, config.wait_spin_us, config.execute_timeout_ms));
  UNIVK_LOG(kInfo) << "created Vulkan device '" << caps.device_name << "' (API " << api_version_string(caps.api_version)
                   << ", queue family " << family << ")";
  return device;
}

Result<std::shared_ptr<Device>> Device::import(const ImportedDevice& imported) {
  if (imported.instance == VK_NULL_HANDLE || imported.physical_device == VK_NULL_HANDLE ||
      imported.device == VK_NULL_HANDLE || imported.queue == VK_NULL_HANDLE) {
    return invalid_argument("Device::import: instance, physical device, device and queue must all be set");
  }
  if (!imported.enabled_features.contains(Feature::kTimelineSemaphore)) {
    return incompatible("Device::import: the imported device must have feature timelineSemaphore enabled");
  }
  UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<Instance> instance, Instance::import(imported.instance, imported.api_version));
  VkPhysicalDeviceProperties props = instance->properties(imported.physical_device);

  uint32_t family_count = 0;
  instance->vk().vkGetPhysicalDeviceQueueFamilyProperties(imported.physical_device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  instance->vk().vkGetPhysicalDeviceQueueFamilyProperties(imported.physical_device, &family_count, families.data());
  if (imported.queue_family_index >= family_count) {
    return invalid_argument("Device::import: queue family index " + std::to_string(imported.queue_family_index) +
                            " out of range (device has " + std::to_string(family_count) + ")");
  }

  std::shared_ptr<Device> device(new Device());
  device->instance_ = std::move(instance);
  device->physical_device_ = imported.physical_device;
  device->device_ = imported.device;
  device->owned_ = false;
  device->enabled_.device_name = props.deviceName;
  device->enabled_.api_version = std::min(imported.api_version, props.apiVersion);
  device->enabled_.extensions = imported.enabled_extensions;
  device->enabled_.features = imported.enabled_features;
  device->enabled_.queue_family_flags = {families[imported.queue_family_index].queueFlags};
  if (device->enabled_.api_version < VK_API_VERSION_1_2) {
    return incompatible("Device::import: univk needs Vulkan 1.2 for timeline semaphores (device used at " +
                        api_version_string(device->enabled_.api_version) + ")");
  }
  volkLoadDeviceTable(&device->table_, device->device_);
  fault_injection::instrument(device->table_);  // no-op unless a test turned it on
  UNIVK_RETURN_IF_ERROR(device->finish_setup(imported.queue, imported.queue_family_index, imported.wait_spin_us,
                                             imported.execute_timeout_ms));
  return device;
}

// Shared tail of create() and import(): properties, pipeline cache and the Queue.
Status Device::finish_setup(VkQueue queue, uint32_t queue_family_index, int64_t wait_spin_us,
                            int64_t execute_timeout_ms) {
  instance_->vk().vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_properties_);
  properties_ = instance_->properties(physical_device_);
  synchronization2_ = has(Feature::kSynchronization2) && enabled_.api_version >= VK_API_VERSION_1_3;

  VkPipelineCacheCreateInfo cache_info{};
  cache_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  UNIVK_VK_RETURN_IF_ERROR(table_.vkCreatePipelineCache(device_, &cache_info, nullptr, &pipeline_cache_));
  UNIVK_ASSIGN_OR_RETURN(queue_, Queue::create(*this, queue, queue_family_index, wait_spin_us, execute_timeout_ms));
  return ok_status();
}

Device::~Device() {
  if (device_ == VK_NULL_HANDLE) return;
  if (owned_) live_owned_devices.fetch_sub(1);
  if (owned_) {
    VkResult r = table_.vkDeviceWaitIdle(device_);
    if (r != VK_SUCCESS) {
      UNIVK_LOG(kError) << vk_status(r, "vkDeviceWaitIdle").message() << " (destroying anyway)";
    }
  } else if (queue_) {
    // A borrowed device may be busy with the application's work: wait for univk's own only.
    Status s = queue_->wait(queue_->last_submitted_value(), UINT64_MAX);
    if (!s.ok()) {
      UNIVK_LOG(kError) << "waiting for univk's last submission: " << s.message();
    }
  }
  queue_.reset();
  if (pipeline_cache_ != VK_NULL_HANDLE) table_.vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
  if (owned_) table_.vkDestroyDevice(device_, nullptr);
}

Result<uint32_t> Device::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                          VkMemoryPropertyFlags preferred) const {
  for (VkMemoryPropertyFlags wanted : {required | preferred, required}) {
    for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) == 0) continue;
      if ((memory_properties_.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    }
  }
  return not_found("no memory type with property flags " + std::to_string(required) + " among type bits " +
                   std::to_string(type_bits));
}

uint64_t Device::live_allocations() const {
  std::lock_guard<std::mutex> lock(allocation_mutex_);
  return live_allocations_;
}

uint64_t Device::live_allocated_bytes() const {
  std::lock_guard<std::mutex> lock(allocation_mutex_);
  return live_bytes_;
}

void Device::note_allocation(int64_t count_delta, int64_t bytes_delta) {
  std::lock_guard<std::mutex> lock(allocation_mutex_);
  live_allocations_ = static_cast<uint64_t>(static_cast<int64_t>(live_allocations_) + count_delta);
  live_bytes_ = static_cast<uint64_t>(static_cast<int64_t>(live_bytes_) + bytes_delta);
}

}  // namespace univk::vulkan
