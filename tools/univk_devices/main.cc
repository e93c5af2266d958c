// univk-devices: lists the Vulkan devices in univk's selection order, then creates the shared
// device under key default/0 with two leases (as two delegates would), checks that both see the
// same VkDevice and VkQueue, and runs one compute dispatch whose output it verifies. Under each
// device it prints the cooperative-matrix shapes (M x N x K, component types, scope) the device
// lists under VK_NV_cooperative_matrix.
// Exit status 0 on success, 1 on any failure (an output that cannot be written included), 2 bad
// command line (cli.h; an unknown --device included). --device (else UNIVK_DEVICE) picks the
// device, UNIVK_VALIDATION=1 turns the validation layer on (any message is then a failure);
// --json FILE writes what it found as JSON.
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "device_option.h"
#include "json_output.h"
#include "stdout_check.h"
#include "univk-devices_shaders.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/pipeline.h"
#include "univk/vulkan/queue.h"
#include "univk/vulkan/registry.h"
#include "univk/vulkan/validation.h"

namespace univk::vulkan {
namespace {

const char* type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

using tools::Json;

// What the tool found, printed as text as it goes (unless `text` is false) and kept as JSON.
struct Findings {
  bool text = true;
  Json json = Json::object();
};

Status list_devices(const RuntimeConfig& config, Findings& out) {
  UNIVK_ASSIGN_OR_RETURN(auto instance, Instance::create(config));
  UNIVK_ASSIGN_OR_RETURN(auto devices, instance->sorted_physical_devices());
  Result<VkPhysicalDevice> selected = instance->select_physical_device(config.device_selector);
  if (out.text) std::printf("Vulkan devices (univk order; * = selected):\n");
  Json list = Json::array();
  for (size_t i = 0; i < devices.size(); ++i) {
    VkPhysicalDeviceProperties props = instance->properties(devices[i]);
    bool is_selected = selected.ok() && *selected == devices[i];
    if (out.text) {
      std::printf("  %c %zu  %-40s %-10s API %s\n", is_selected ? '*' : ' ', i, props.deviceName,
                  type_name(props.deviceType), api_version_string(props.apiVersion).c_str());
    }
    // Every cooperative-matrix shape the device lists (VK_NV_cooperative_matrix), all types.
    Json shapes = Json::array();
    for (const CooperativeMatrixShape& shape : instance->query_capabilities(devices[i]).cooperative_matrix_shapes) {
      const std::string name = cooperative_matrix_shape_string(shape);
      if (out.text) std::printf("        cooperative matrix %s\n", name.c_str());
      shapes.push_back(name);
    }
    list.push_back({{"index", i},
                    {"name", props.deviceName},
                    {"type", type_name(props.deviceType)},
                    {"api_version", api_version_string(props.apiVersion)},
                    {"selected", is_selected},
                    {"cooperative_matrix_shapes", std::move(shapes)}});
  }
  out.json["devices"] = std::move(list);
  return selected.status();
}

std::string memory_flags(VkMemoryPropertyFlags flags) {
  std::string out;
  const std::pair<VkMemoryPropertyFlags, const char*> names[] = {
      {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL"},
      {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE"},
      {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT"},
      {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED"}};
  for (const auto& [bit, name] : names) {
    if ((flags & bit) == 0) continue;
    if (!out.empty()) out += '|';
    out += name;
  }
  return out.empty() ? "-" : out;
}

// The memory heaps and types univk picks buffers from: whether the device has device-local
// memory the host can map (and read cached) decides between mapped and staged program IO.
Json memory_of(const Device& device, bool text) {
  const VkPhysicalDeviceMemoryProperties& memory = device.memory_properties();
  Json heaps = Json::array(), types = Json::array();
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h) {
    const bool device_local = (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
    if (text) {
      std::printf("  memory heap %u: %.1f MiB%s\n", h, static_cast<double>(memory.memoryHeaps[h].size) / (1 << 20),
                  device_local ? " DEVICE_LOCAL" : "");
    }
    heaps.push_back({{"index", h}, {"bytes", memory.memoryHeaps[h].size}, {"device_local", device_local}});
  }
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    const std::string flags = memory_flags(memory.memoryTypes[t].propertyFlags);
    if (text) std::printf("  memory type %u: heap %u %s\n", t, memory.memoryTypes[t].heapIndex, flags.c_str());
    types.push_back({{"index", t}, {"heap", memory.memoryTypes[t].heapIndex}, {"flags", flags}});
  }
  return {{"heaps", std::move(heaps)}, {"types", std::move(types)}};
}

// Two leases on one registered device, as two delegates of one method hold them.
Status share_and_dispatch(const RuntimeConfig& config, Findings& found) {
  DeviceRegistry& registry = DeviceRegistry::process_default();
  SharedDeviceOptions options;  // key default/0, lookup_or_create
  UNIVK_ASSIGN_OR_RETURN(DeviceLease first, registry.acquire(options, {}, config));
  UNIVK_ASSIGN_OR_RETURN(DeviceLease second, registry.acquire(options, {}, config));
  if (first->handle() != second->handle() || first->queue().handle() != second->queue().handle()) {
    return internal_error("the two leases on key default/0 see different devices or queues");
  }
  if (found.text) {
    std::printf("shared device %s: '%s', 2 leases, same VkDevice and VkQueue (family %u), devices created: %llu\n",
                options.key.to_string().c_str(), first->enabled().device_name.c_str(), first->queue().family_index(),
                static_cast<unsigned long long>(registry.created_count()));
  }
  found.json["shared_device"] = {{"key", options.key.to_string()},
                                 {"name", first->enabled().device_name},
                                 {"leases", 2},
                                 {"same_device_and_queue", true},
                                 {"queue_family", first->queue().family_index()},
                                 {"devices_created", registry.created_count()},
                                 {"memory", memory_of(*first, found.text)}};

  constexpr uint32_t n = 1000, base = 7, step = 3;
  // The first lease's holder owns the pipeline; the second records and submits, like a second
  // delegate on the same device with its own command pool.
  UNIVK_ASSIGN_OR_RETURN(
      ComputePipeline pipeline,
      ComputePipeline::create(first, ComputePipelineDesc::storage_buffers(tools::shaders::iota_spv(), 1, 12, "iota")));
  UNIVK_ASSIGN_OR_RETURN(Buffer out, Buffer::create(second, n * sizeof(uint32_t), MemoryKind::kHostVisible));
  UNIVK_ASSIGN_OR_RETURN(DescriptorPool descriptors, DescriptorPool::create(second, 1, 1));
  UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, descriptors.allocate(pipeline.set_layouts()[0]));
  BufferRange range{out.handle(), 0, out.size()};
  descriptors.write_storage_buffers(set, {&range, 1});
  UNIVK_ASSIGN_OR_RETURN(CommandPool commands, CommandPool::create(second));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, commands.allocate());

  const VolkDeviceTable& vk = second->vk();
  UNIVK_RETURN_IF_ERROR(begin_command_buffer(*second, cmd));
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
  uint32_t params[3] = {base, step, n};
  vk.vkCmdPushConstants(cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), params);
  vk.vkCmdDispatch(cmd, (n + 63) / 64, 1, 1);
  record_host_read_barrier(*second, cmd);
  UNIVK_RETURN_IF_ERROR(end_command_buffer(*second, cmd));
  UNIVK_ASSIGN_OR_RETURN(uint64_t value, second->queue().submit({&cmd, 1}));
  UNIVK_RETURN_IF_ERROR(second->queue().wait(value));

  const auto* values = static_cast<const uint32_t*>(out.mapped());
  for (uint32_t i = 0; i < n; ++i) {
    if (values[i] != base + step * i) {
      return internal_error("dispatch output element " + std::to_string(i) + " is " + std::to_string(values[i]) +
                            ", expected " + std::to_string(base + step * i));
    }
  }
  const char* submit = second->uses_synchronization2() ? "vkQueueSubmit2" : "vkQueueSubmit";
  if (found.text) {
    std::printf(
        "dispatch: %u invocations wrote values[i] = %u + %u*i; all %u values verified (timeline value %llu, %s)\n", n,
        base, step, n, static_cast<unsigned long long>(value), submit);
  }
  found.json["dispatch"] = {{"invocations", n}, {"verified", true}, {"timeline_value", value}, {"submit", submit}};
  return ok_status();
}

constexpr int kExitFailure = 1;
constexpr const char* kTool = "univk-devices";

int run(int argc, char** argv) {
  std::string device_selector, json_path;
  tools::ToolApp app(kTool,
                     "Lists the Vulkan devices in univk's order, creates the shared device (key default/0) with two "
                     "leases and runs a verified compute dispatch on it.\n"
                     "Environment: UNIVK_DEVICE=<index|name substring> (what --device overrides), "
                     "UNIVK_VALIDATION=1 (the validation layer; any message is a failure).\n"
                     "Exit status: 0 ok, 1 failure, 2 bad command line.");
  tools::add_device_option(app, device_selector);
  tools::add_json_option(app, json_path, "the devices, the shared device and the dispatch");
  if (auto exit = app.parse_command_line(argc, argv, kExitFailure)) return *exit;
  RuntimeConfig config = RuntimeConfig::from_environment();
  if (Status s = tools::apply_device_option(device_selector, config); !s.ok()) return app.usage_error(s.to_string());

  Findings found;
  found.text = json_path != "-";
  Status status = list_devices(config, found);
  if (status.ok()) status = share_and_dispatch(config, found);
  const uint64_t messages = validation_message_count();
  if (status.ok() && messages > 0) {
    status = internal_error(std::to_string(messages) + " Vulkan validation message(s)");
  }
  found.json["validation"] = config.enable_validation;
  found.json["ok"] = status.ok();
  if (!status.ok()) {
    found.json["error"] = status.to_string();
    std::fprintf(stderr, "%s: %s\n", kTool, status.to_string().c_str());
  } else if (found.text) {
    std::printf("OK%s\n", config.enable_validation ? " (validation layer on, no messages)" : "");
  }
  const bool written = json_path.empty() || tools::write_json(found.json, json_path, kTool);
  if (!tools::stdout_written(kTool) || !written) return kExitFailure;
  return status.ok() ? 0 : kExitFailure;
}

}  // namespace
}  // namespace univk::vulkan

int main(int argc, char** argv) { return univk::vulkan::run(argc, argv); }
