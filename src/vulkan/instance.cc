#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "univk/base/logging.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/validation.h"
#include "fault_injection.h"
#include "feature_chain.h"
#include "loader.h"

namespace univk::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool validation_requested(const RuntimeConfig& config) {
  const char* env = std::getenv("UNIVK_VALIDATION");
  return config.enable_validation || (env != nullptr && std::strcmp(env, "1") == 0);
}

// The messenger's user data on an instance with Arm's ML emulation layers above the validation
// layer (null otherwise).
int emulation_layer_marker = 0;

bool is_emulation_layer(const std::string& name) { return name.rfind("VK_LAYER_ML_", 0) == 0; }

// The one message the validation layer (1.3.239, below Arm's emulation layers) reports about
// the compute pipelines the emulation layer builds for TRANSPOSE and SLICE operators (their
// push-constant ranges are sized rank * 4 bytes, their shaders declare more): it concerns the
// layer's own objects, never univk's (univk's pipelines run under validation without the layer
// in every other test). docs/VGF_BACKEND.md, "Validation on the native path".
bool emulation_layer_own_pipeline(const VkDebugUtilsMessengerCallbackDataEXT* data) {
  return data != nullptr && data->pMessageIdName != nullptr && data->pMessage != nullptr &&
         std::strcmp(data->pMessageIdName, "VUID-VkComputePipelineCreateInfo-layout-00703") == 0 &&
         std::strstr(data->pMessage, "Push constant buffer") != nullptr;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  // The messenger is created for WARNING|ERROR only; INFO and VERBOSE never arrive here.
  if ((severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) ==
      0) {
    return VK_FALSE;
  }
  std::string text;
  if (data != nullptr && data->pMessageIdName != nullptr) text += std::string("[") + data->pMessageIdName + "] ";
  if (data != nullptr && data->pMessage != nullptr) text += data->pMessage;
  if (user == &emulation_layer_marker && emulation_layer_own_pipeline(data)) {
    record_filtered_validation_message(text);
  } else {
    record_validation_message(text);
  }
  return VK_FALSE;  // never abort the call that triggered the message
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(bool emulation_layers) {
  VkDebugUtilsMessengerCreateInfoEXT info{};
  info.pUserData = emulation_layers ? &emulation_layer_marker : nullptr;
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_debug_message;
  return info;
}

bool layer_present(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  return std::any_of(layers.begin(), layers.begin() + count,
                     [name](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

std::vector<std::string> instance_extensions(const char* layer) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> props(count);
  if (vkEnumerateInstanceExtensionProperties(layer, &count, props.data()) != VK_SUCCESS) return {};
  std::vector<std::string> names;
  for (uint32_t i = 0; i < count; ++i) names.emplace_back(props[i].extensionName);
  return names;
}

bool contains(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

int type_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The subgroup size and the cooperative-matrix shapes of `physical_device` (kernels/kernel.h
// reads them to pick kernels).
void query_compute_properties(const InstanceDispatch& fn, VkPhysicalDevice physical_device, DeviceCapabilities& caps) {
  if (fn.vkGetPhysicalDeviceProperties2 != nullptr && caps.api_version >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &subgroup;
    fn.vkGetPhysicalDeviceProperties2(physical_device, &props);
    caps.subgroup_size = subgroup.subgroupSize;
  }
  if (fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV == nullptr ||
      !caps.extensions.contains(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    return;
  }
  uint32_t count = 0;
  if (fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(physical_device, &count, nullptr) != VK_SUCCESS) return;
  VkCooperativeMatrixPropertiesNV blank{};
  blank.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  std::vector<VkCooperativeMatrixPropertiesNV> shapes(count, blank);
  if (fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(physical_device, &count, shapes.data()) != VK_SUCCESS) return;
  for (const auto& s : shapes) {
    caps.cooperative_matrix_shapes.push_back({s.MSize, s.NSize, s.KSize, s.AType, s.BType, s.CType, s.DType, s.scope});
  }
}

}  // namespace

Status Instance::load_functions() {
  auto load = [this](const char* name) { return vkGetInstanceProcAddr(instance_, name); };
#define UNIVK_LOAD_INSTANCE_FN(name) fn_.name = reinterpret_cast<PFN_##name>(load(#name))
  UNIVK_LOAD_INSTANCE_FN(vkDestroyInstance);
  UNIVK_LOAD_INSTANCE_FN(vkEnumeratePhysicalDevices);
  UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceProperties);
  UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceFeatures);
  UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceQueueFamilyProperties);
  UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceMemoryProperties);
  UNIVK_LOAD_INSTANCE_FN(vkEnumerateDeviceExtensionProperties);
  UNIVK_LOAD_INSTANCE_FN(vkCreateDevice);
  UNIVK_LOAD_INSTANCE_FN(vkCreateDebugUtilsMessengerEXT);
  UNIVK_LOAD_INSTANCE_FN(vkDestroyDebugUtilsMessengerEXT);
  if (api_version_ >= VK_API_VERSION_1_1) {
    UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceFeatures2);
    UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceProperties2);
  }
  // Null where no device has VK_NV_cooperative_matrix.
  UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV);
  UNIVK_LOAD_INSTANCE_FN(vkGetPhysicalDeviceCalibrateableTimeDomainsEXT);
#undef UNIVK_LOAD_INSTANCE_FN
  fault_injection::instrument(fn_);  // no-op unless a test turned it on
  if (fn_.vkEnumeratePhysicalDevices == nullptr || fn_.vkGetPhysicalDeviceProperties == nullptr ||
      fn_.vkCreateDevice == nullptr || fn_.vkGetPhysicalDeviceQueueFamilyProperties == nullptr ||
      fn_.vkGetPhysicalDeviceMemoryProperties == nullptr || fn_.vkEnumerateDeviceExtensionProperties == nullptr ||
      fn_.vkGetPhysicalDeviceFeatures == nullptr) {
    return internal_error("vkGetInstanceProcAddr returned null for a core Vulkan 1.0 instance function");
  }
  return ok_status();
}

Result<std::shared_ptr<Instance>> Instance::create(const RuntimeConfig& config) {
  UNIVK_RETURN_IF_ERROR(ensure_loader());
  if (config.api_version < VK_API_VERSION_1_1) {
    return invalid_argument("RuntimeConfig::api_version must be at least 1.1, got " +
                            api_version_string(config.api_version));
  }
  std::vector<std::string> extensions = config.instance_extensions;
  std::vector<std::string> available = instance_extensions(nullptr);
  std::string missing;
  for (const auto& e : config.instance_extensions) {
    if (!contains(available, e.c_str())) missing += (missing.empty() ? "" : ", ") + e;
  }
  if (!missing.empty()) return incompatible("the Vulkan loader lacks instance extension(s): " + missing);
  bool validation = validation_requested(config);
  bool sync_validation = false;
  if (validation) {
    if (!layer_present(kValidationLayer)) {
      UNIVK_LOG(kWarning) << "validation requested but " << kValidationLayer
                          << " is not installed; continuing without it";
      validation = false;
    } else {
      std::vector<std::string> layer_exts = instance_extensions(kValidationLayer);
      if (!contains(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
          !contains(layer_exts, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
        UNIVK_LOG(kWarning) << "validation requested but " << VK_EXT_DEBUG_UTILS_EXTENSION_NAME
                            << " is unavailable; continuing without validation";
        validation = false;
      } else {
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        sync_validation = contains(layer_exts, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        if (sync_validation) {
          extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        } else {
          UNIVK_LOG(kWarning) << "validation layer lacks " << VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME
                              << "; synchronization validation is off";
        }
      }
    }
  }
  std::sort(extensions.begin(), extensions.end());
  extensions.erase(std::unique(extensions.begin(), extensions.end()), extensions.end());
  std::vector<const char*> extension_ptrs;
  for (const auto& e : extensions) extension_ptrs.push_back(e.c_str());

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "univk";
  app.pEngineName = "univk";
  app.apiVersion = config.api_version;

  // The messenger info in the chain also reports problems during vkCreateInstance and
  // vkDestroyInstance, which the separately created messenger cannot see.
  const bool emulation_layers =
      std::any_of(config.instance_layers.begin(), config.instance_layers.end(), is_emulation_layer);
  VkDebugUtilsMessengerCreateInfoEXT chained_messenger = messenger_info(emulation_layers);
  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  if (sync_validation) chained_messenger.pNext = &features;

  std::vector<const char*> layers;
  for (const auto& layer : config.instance_layers) {
    if (!layer_present(layer.c_str()))
      return incompatible("the Vulkan loader does not list instance layer " + layer +
                          " (is VK_LAYER_PATH set to the folder of its manifest?)");
    layers.push_back(layer.c_str());
  }
  if (validation) layers.push_back(kValidationLayer);
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = validation ? &chained_messenger : nullptr;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.empty() ? nullptr : layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extension_ptrs.size());
  info.ppEnabledExtensionNames = extension_ptrs.data();

  std::shared_ptr<Instance> instance(new Instance());
  instance->api_version_ = config.api_version;
  UNIVK_VK_RETURN_IF_ERROR(vkCreateInstance(&info, nullptr, &instance->instance_));
  UNIVK_RETURN_IF_ERROR(instance->load_functions());
  if (validation) {
    if (instance->fn_.vkCreateDebugUtilsMessengerEXT == nullptr) {
      return internal_error("VK_EXT_debug_utils was enabled but vkCreateDebugUtilsMessengerEXT is null");
    }
    VkDebugUtilsMessengerCreateInfoEXT mi = messenger_info(emulation_layers);
    UNIVK_VK_RETURN_IF_ERROR(
        instance->fn_.vkCreateDebugUtilsMessengerEXT(instance->instance_, &mi, nullptr, &instance->messenger_));
  }
  return instance;
}

Result<std::shared_ptr<Instance>> Instance::import(VkInstance handle, uint32_t api_version) {
  UNIVK_RETURN_IF_ERROR(ensure_loader());
  if (handle == VK_NULL_HANDLE) return invalid_argument("Instance::import: null VkInstance");
  std::shared_ptr<Instance> instance(new Instance());
  instance->instance_ = handle;
  instance->api_version_ = api_version;
  instance->owned_ = false;
  UNIVK_RETURN_IF_ERROR(instance->load_functions());
  return instance;
}

Instance::~Instance() {
  if (instance_ == VK_NULL_HANDLE) return;
  if (messenger_ != VK_NULL_HANDLE && fn_.vkDestroyDebugUtilsMessengerEXT != nullptr) {
    fn_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  }
  if (owned_ && fn_.vkDestroyInstance != nullptr) fn_.vkDestroyInstance(instance_, nullptr);
}

Result<std::vector<VkPhysicalDevice>> Instance::sorted_physical_devices() const {
  uint32_t count = 0;
  UNIVK_VK_RETURN_IF_ERROR(fn_.vkEnumeratePhysicalDevices(instance_, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VkResult r = fn_.vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vk_status(r, "vkEnumeratePhysicalDevices");
  devices.resize(count);
  std::vector<std::pair<int, VkPhysicalDevice>> ranked;
  for (VkPhysicalDevice d : devices) ranked.emplace_back(type_rank(properties(d).deviceType), d);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<VkPhysicalDevice> sorted;
  for (const auto& [rank, d] : ranked) sorted.push_back(d);
  return sorted;
}

Result<VkPhysicalDevice> Instance::select_physical_device(const std::string& selector_arg) const {
  std::string selector = selector_arg;
  if (selector.empty()) {
    if (const char* env = std::getenv("UNIVK_DEVICE")) selector = env;
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<VkPhysicalDevice> devices, sorted_physical_devices());
  if (devices.empty()) return not_found("no Vulkan physical device found (is a Vulkan driver installed?)");
  if (selector.empty()) return devices.front();

  std::string listing;
  for (size_t i = 0; i < devices.size(); ++i) {
    listing += (i ? ", " : "") + std::to_string(i) + ": " + properties(devices[i]).deviceName;
  }
  bool numeric = std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c); });
  if (numeric) {
    size_t index = std::strtoull(selector.c_str(), nullptr, 10);
    if (selector.size() > 6 || index >= devices.size()) {
      return not_found("device index " + selector + " out of range (devices: " + listing + ")");
    }
    return devices[index];
  }
  std::string needle = lowercase(selector);
  for (VkPhysicalDevice d : devices) {
    if (lowercase(properties(d).deviceName).find(needle) != std::string::npos) return d;
  }
  return not_found("no Vulkan device name contains '" + selector + "' (devices: " + listing + ")");
}

VkPhysicalDeviceProperties Instance::properties(VkPhysicalDevice physical_device) const {
  VkPhysicalDeviceProperties props{};
  fn_.vkGetPhysicalDeviceProperties(physical_device, &props);
  return props;
}

DeviceCapabilities Instance::query_capabilities(VkPhysicalDevice physical_device) const {
  DeviceCapabilities caps;
  VkPhysicalDeviceProperties props = properties(physical_device);
  caps.device_name = props.deviceName;
  caps.api_version = std::min(api_version_, props.apiVersion);

  uint32_t count = 0;
  if (fn_.vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, nullptr) == VK_SUCCESS) {
    std::vector<VkExtensionProperties> exts(count);
    if (fn_.vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, exts.data()) == VK_SUCCESS) {
      for (uint32_t i = 0; i < count; ++i) caps.extensions.insert(exts[i].extensionName);
    }
  }

  FeatureChain chain(caps.api_version, caps.extensions);
  if (fn_.vkGetPhysicalDeviceFeatures2 != nullptr) {
    fn_.vkGetPhysicalDeviceFeatures2(physical_device, chain.head());
  } else {
    fn_.vkGetPhysicalDeviceFeatures(physical_device, &chain.head()->features);
  }
  caps.features = chain.enabled();
  query_compute_properties(fn_, physical_device, caps);

  fn_.vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  fn_.vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i) caps.queue_family_flags.push_back(families[i].queueFlags);
  return caps;
}

}  // namespace univk::vulkan
