#include "requirements.h"

#include <algorithm>
#include <string>

#include "univk/spirv/tosa_graph.h"
#include "univk/vulkan/arm_data_graph.h"

namespace univk::backends::vgf {

using vulkan::DeviceRequirements;
using vulkan::Feature;

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpFunction = 54;

void require(DeviceRequirements& r, uint32_t api, std::initializer_list<Feature> features) {
  r.min_api_version = std::max(r.min_api_version, api);
  for (Feature f : features) r.required_features.insert(f);
}

// SPIR-V capability numbers (SPIR-V spec, "Capability") and what each needs on Vulkan.
Status add_capability(DeviceRequirements& r, uint32_t cap) {
  switch (cap) {
    case 0:
    case 1:
      return ok_status();  // Matrix, Shader
    case 9:
      require(r, VK_API_VERSION_1_2, {Feature::kShaderFloat16});
      return ok_status();
    case 10:
      require(r, VK_API_VERSION_1_1, {Feature::kShaderFloat64});
      return ok_status();
    case 11:
      require(r, VK_API_VERSION_1_1, {Feature::kShaderInt64});
      return ok_status();
    case 22:
      require(r, VK_API_VERSION_1_1, {Feature::kShaderInt16});
      return ok_status();
    case 39:
      require(r, VK_API_VERSION_1_2, {Feature::kShaderInt8});
      return ok_status();
    case 61:
    case 62:
    case 63:
    case 64:
    case 65:
    case 66:
    case 67:
    case 68:  // GroupNonUniform*
      require(r, VK_API_VERSION_1_1, {});
      return ok_status();
    case 4433:
      require(r, VK_API_VERSION_1_1, {Feature::kStorageBuffer16BitAccess});
      return ok_status();
    case 4434:
      require(r, VK_API_VERSION_1_1, {Feature::kUniformAndStorageBuffer16BitAccess});
      return ok_status();
    case 4435:
      require(r, VK_API_VERSION_1_1, {Feature::kStoragePushConstant16});
      return ok_status();
    case 4441:
    case 4442:
      require(r, VK_API_VERSION_1_1, {});
      return ok_status();  // VariablePointers*
    case 4448:
      require(r, VK_API_VERSION_1_2, {Feature::kStorageBuffer8BitAccess});
      return ok_status();
    case 4449:
      require(r, VK_API_VERSION_1_2, {Feature::kUniformAndStorageBuffer8BitAccess});
      return ok_status();
    case 4450:
      require(r, VK_API_VERSION_1_2, {Feature::kStoragePushConstant8});
      return ok_status();
    case 5345:
      require(r, VK_API_VERSION_1_2, {Feature::kVulkanMemoryModel});
      return ok_status();
    case 5346:
      require(r, VK_API_VERSION_1_2, {Feature::kVulkanMemoryModelDeviceScope});
      return ok_status();
    case 5347:
      require(r, VK_API_VERSION_1_2, {Feature::kBufferDeviceAddress});
      return ok_status();
    case 6016:
    case 6017:
    case 6018:
    case 6019:  // DotProductInput*, DotProduct
      require(r, VK_API_VERSION_1_3, {Feature::kShaderIntegerDotProduct});
      return ok_status();
    case 4174:
    case 4175:
    case 4176:  // TensorsARM, StorageTensorArray*IndexingARM
      r.required_extensions.insert("VK_ARM_tensors");
      require(r, VK_API_VERSION_1_3, {});
      return ok_status();
    case 4191:  // GraphARM
      r.required_extensions.insert("VK_ARM_data_graph");
      require(r, VK_API_VERSION_1_3, {});
      return ok_status();
    default:
      return unsupported("SPIR-V capability " + std::to_string(cap) + " has no known Vulkan feature mapping");
  }
}

Status add_extension(DeviceRequirements& r, const std::string& name) {
  if (name == "SPV_KHR_storage_buffer_storage_class" || name == "SPV_KHR_16bit_storage" ||
      name == "SPV_KHR_variable_pointers" || name == "SPV_KHR_shader_draw_parameters") {
    require(r, VK_API_VERSION_1_1, {});
  } else if (name == "SPV_KHR_8bit_storage" || name == "SPV_KHR_vulkan_memory_model" ||
             name == "SPV_KHR_physical_storage_buffer" || name == "SPV_KHR_float_controls" ||
             name == "SPV_EXT_descriptor_indexing" || name == "SPV_KHR_shader_float16_int8") {
    require(r, VK_API_VERSION_1_2, {});
  } else if (name == "SPV_KHR_integer_dot_product" || name == "SPV_KHR_non_semantic_info" ||
             name == "SPV_KHR_terminate_invocation") {
    require(r, VK_API_VERSION_1_3, {});
  } else if (name == "SPV_ARM_tensors") {
    r.required_extensions.insert("VK_ARM_tensors");
  } else if (name == "SPV_ARM_graph") {
    r.required_extensions.insert("VK_ARM_data_graph");
  } else {
    return unsupported("SPIR-V extension " + name + " has no known Vulkan mapping");
  }
  return ok_status();
}

void add_dtype(DeviceRequirements& r, DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUint8:
    case DType::kBool:
      require(r, VK_API_VERSION_1_2, {Feature::kShaderInt8, Feature::kStorageBuffer8BitAccess});
      break;
    case DType::kInt16:
      require(r, VK_API_VERSION_1_1, {Feature::kShaderInt16, Feature::kStorageBuffer16BitAccess});
      break;
    case DType::kFloat16:
      require(r, VK_API_VERSION_1_2,
              {Feature::kShaderFloat16, Feature::kShaderInt16, Feature::kStorageBuffer16BitAccess});
      break;
    default:
      break;
  }
}

bool is_placeholder(const univk::vgf::Module& m) {
  return m.code_type == univk::vgf::ModuleCodeType::kSpirv && (m.spirv().size() < 5 || m.spirv()[0] != kSpirvMagic);
}

}  // namespace

Status check_runnable(const univk::vgf::VgfFile& file) {
  for (size_t s = 0; s < file.segments.size(); ++s) {
    const univk::vgf::Segment& seg = file.segments[s];
    if (seg.module_index >= file.modules.size())
      return invalid_argument("segment " + std::to_string(s) + ": module index out of range");
    const univk::vgf::Module& m = file.modules[seg.module_index];
    const std::string where =
        "segment " + std::to_string(s) + " module " + std::to_string(seg.module_index) + " '" + m.name + "'";
    if (m.type != seg.type) return invalid_argument(where + ": segment and module types differ");
    if (m.code_type != univk::vgf::ModuleCodeType::kSpirv)
      return unsupported(where + ": holds " +
                         (m.code_type == univk::vgf::ModuleCodeType::kGlsl ? "GLSL" : "non-SPIR-V") +
                         " source; univk runs SPIR-V modules only (no shader compiler at run time)");
    if (is_placeholder(m))
      return invalid_argument(
          where + ": placeholder SPIR-V (" + std::to_string(m.spirv().size()) +
          " words, no SPIR-V module header); this VGF expects a shader substitution and cannot run");
  }
  return ok_status();
}

Result<DeviceRequirements> spirv_module_requirements(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != kSpirvMagic) return invalid_argument("not a SPIR-V module");
  DeviceRequirements r;
  const uint32_t minor = (words[1] >> 8) & 0xff;
  if (minor >= 6)
    r.min_api_version = VK_API_VERSION_1_3;
  else if (minor >= 4)
    r.min_api_version = VK_API_VERSION_1_2;
  size_t i = 5;
  while (i < words.size()) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size())
      return invalid_argument("SPIR-V instruction at word " + std::to_string(i) + " overruns the module");
    if (opcode == kOpFunction) break;  // capabilities and extensions come first
    if (opcode == kOpCapability && count >= 2) UNIVK_RETURN_IF_ERROR(add_capability(r, words[i + 1]));
    if (opcode == kOpExtension && count >= 2) {
      std::string name;
      for (size_t w = i + 1; w < i + count; ++w)
        for (int b = 0; b < 4; ++b) {
          const char c = static_cast<char>((words[w] >> (8 * b)) & 0xff);
          if (c == 0) {
            w = i + count;
            break;
          }
          name.push_back(c);
        }
      UNIVK_RETURN_IF_ERROR(add_extension(r, name));
    }
    i += count;
  }
  return r;
}

DeviceRequirements native_graph_requirements() {
  DeviceRequirements r;
  r.optional_extensions = {vulkan::arm::kTensorsExtension, vulkan::arm::kDataGraphExtension,
                           vulkan::arm::kDataGraphTosaExtension};
  r.optional_features = {Feature::kTensorsARM, Feature::kDataGraphARM, Feature::kDataGraphShaderModuleARM,
                         Feature::kSynchronization2};
  r.preferred_queue_flags = vulkan::arm::kQueueDataGraphBit;
  return r;
}

Result<DeviceRequirements> vgf_requirements(const univk::vgf::VgfFile& file) {
  UNIVK_RETURN_IF_ERROR(check_runnable(file));
  DeviceRequirements r;
  r.min_api_version = VK_API_VERSION_1_1;
  r.queue_flags = VK_QUEUE_COMPUTE_BIT;
  // Bool tensors (comparison results, masks) need 8-bit storage; asked for as optional by every
  // file, so a shared device created for one without them can run a later one with them.
  r.optional_features.insert(Feature::kShaderInt8);
  r.optional_features.insert(Feature::kStorageBuffer8BitAccess);
  for (size_t s = 0; s < file.segments.size(); ++s) {
    const univk::vgf::Segment& seg = file.segments[s];
    const univk::vgf::Module& m = file.modules[seg.module_index];
    const std::string where = "segment " + std::to_string(s) + " '" + seg.name + "'";
    if (seg.type == univk::vgf::ModuleType::kGraph) {
      // The lowered path: the module's own capabilities (TensorsARM, GraphARM) are not needed.
      auto graph = spirv::read_tosa_graph(m.spirv());
      if (!graph.ok()) return graph.status().with_context(where);
      for (const auto& v : graph->values) add_dtype(r, v.type.dtype);
      // The CAST/RESCALE/TABLE dispatches share 8-bit tensor views (shaders/int8_io.glsl).
      for (const auto& op : graph->operations)
        if (op.op == spirv::TosaOp::kCast || op.op == spirv::TosaOp::kRescale || op.op == spirv::TosaOp::kTable)
          add_dtype(r, DType::kInt8);
    } else {
      auto module = spirv_module_requirements(m.spirv());
      if (!module.ok()) return module.status().with_context(where);
      r.merge(*module);
      // The program file's own shaders run with bounds-checked buffer access (the delegate
      // refuses a device without it unless vgf_robust_buffer_access=off).
      r.optional_features.insert(Feature::kRobustBufferAccess);
    }
  }
  const bool has_graph = std::any_of(file.segments.begin(), file.segments.end(), [](const univk::vgf::Segment& seg) {
    return seg.type == univk::vgf::ModuleType::kGraph;
  });
  if (has_graph) r.merge(native_graph_requirements());
  for (const auto& res : file.resources)
    if (auto dt = univk::vgf::dtype_from_vk_format(res.vk_format);
        dt && res.category != univk::vgf::ResourceCategory::kConstant)
      add_dtype(r, *dt);
  return r;
}

}  // namespace univk::backends::vgf
