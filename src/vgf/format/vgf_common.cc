// Enum names, VkFormat <-> DType and cross-reference validation shared by decoder and encoder.
#include <string>

#include "univk/vgf/vgf_file.h"

namespace univk::vgf {

std::optional<DType> dtype_from_vk_format(uint32_t vk_format) {
  switch (vk_format) {
    case vk::kFormatR32Sfloat:
      return DType::kFloat32;
    case vk::kFormatR16Sfloat:
      return DType::kFloat16;
    case vk::kFormatR8Sint:
      return DType::kInt8;
    case vk::kFormatR8Uint:
      return DType::kUint8;
    case vk::kFormatR16Sint:
      return DType::kInt16;
    case vk::kFormatR32Sint:
      return DType::kInt32;
    case vk::kFormatR64Sint:
      return DType::kInt64;
    case vk::kFormatR8BoolArm:
      return DType::kBool;
    default:
      return std::nullopt;
  }
}

std::optional<uint32_t> vk_format_from_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return vk::kFormatR32Sfloat;
    case DType::kFloat16:
      return vk::kFormatR16Sfloat;
    case DType::kInt8:
      return vk::kFormatR8Sint;
    case DType::kUint8:
      return vk::kFormatR8Uint;
    case DType::kInt16:
      return vk::kFormatR16Sint;
    case DType::kInt32:
      return vk::kFormatR32Sint;
    case DType::kInt64:
      return vk::kFormatR64Sint;
    case DType::kBool:
      return vk::kFormatR8BoolArm;
  }
  return std::nullopt;
}

std::string vk_format_name(uint32_t f) {
  switch (f) {
    case vk::kFormatR8Uint:
      return "VK_FORMAT_R8_UINT";
    case vk::kFormatR8Sint:
      return "VK_FORMAT_R8_SINT";
    case vk::kFormatR16Uint:
      return "VK_FORMAT_R16_UINT";
    case vk::kFormatR16Sint:
      return "VK_FORMAT_R16_SINT";
    case vk::kFormatR16Sfloat:
      return "VK_FORMAT_R16_SFLOAT";
    case vk::kFormatR32Uint:
      return "VK_FORMAT_R32_UINT";
    case vk::kFormatR32Sint:
      return "VK_FORMAT_R32_SINT";
    case vk::kFormatR32Sfloat:
      return "VK_FORMAT_R32_SFLOAT";
    case vk::kFormatR64Sint:
      return "VK_FORMAT_R64_SINT";
    case vk::kFormatR8BoolArm:
      return "VK_FORMAT_R8_BOOL_ARM";
    case vk::kFormatR16SfloatBfloat16Arm:
      return "VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM";
    case vk::kFormatR8Float8E4M3Arm:
      return "VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM";
    case vk::kFormatR8Float8E5M2Arm:
      return "VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM";
    default:
      return "VK_FORMAT_" + std::to_string(f);
  }
}

std::string vk_descriptor_type_name(uint32_t t) {
  switch (t) {
    case vk::kDescriptorTypeCombinedImageSampler:
      return "COMBINED_IMAGE_SAMPLER";
    case vk::kDescriptorTypeStorageImage:
      return "STORAGE_IMAGE";
    case vk::kDescriptorTypeUniformBuffer:
      return "UNIFORM_BUFFER";
    case vk::kDescriptorTypeStorageBuffer:
      return "STORAGE_BUFFER";
    case vk::kDescriptorTypeTensorArm:
      return "TENSOR_ARM";
    default:
      return std::to_string(t);
  }
}

std::string_view module_type_name(ModuleType type) { return type == ModuleType::kGraph ? "GRAPH" : "COMPUTE"; }

std::string_view resource_category_name(ResourceCategory cat) {
  switch (cat) {
    case ResourceCategory::kInput:
      return "INPUT";
    case ResourceCategory::kOutput:
      return "OUTPUT";
    case ResourceCategory::kIntermediate:
      return "INTERMEDIATE";
    case ResourceCategory::kConstant:
      return "CONSTANT";
  }
  return "?";
}

std::optional<uint32_t> Segment::constant_for_graph_constant(uint32_t graph_constant_id, size_t constant_count) const {
  if (!constant_bindings.empty()) {
    for (const ConstantBinding& b : constant_bindings) {
      if (b.graph_constant_id == graph_constant_id) {
        if (b.constant_index >= constant_count) return std::nullopt;
        return b.constant_index;
      }
    }
    return std::nullopt;
  }
  if (graph_constant_id >= constant_count) return std::nullopt;
  return graph_constant_id;
}

namespace {

std::string idx(std::string_view what, size_t i) { return std::string(what) + "[" + std::to_string(i) + "]"; }

Status check_slots(const std::vector<BindingSlot>& slots, size_t resource_count, const std::string& where) {
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].resource_index >= resource_count) {
      return invalid_argument(where + idx(" binding", i) + ": resource index " +
                              std::to_string(slots[i].resource_index) + " out of range (" +
                              std::to_string(resource_count) + " resources)");
    }
  }
  return ok_status();
}

}  // namespace

Status validate_vgf(const VgfModel& m) {
  const size_t nres = m.resources.size();
  for (size_t i = 0; i < m.segments.size(); ++i) {
    const Segment& s = m.segments[i];
    const std::string where = "vgf: model sequence table: " + idx("segment", i);
    if (s.module_index >= m.modules.size()) {
      return invalid_argument(where + ": module_index " + std::to_string(s.module_index) + " out of range (" +
                              std::to_string(m.modules.size()) + " modules)");
    }
    if (m.modules[s.module_index].type != s.type) {
      return invalid_argument(where + ": segment type " + std::string(module_type_name(s.type)) +
                              " differs from module " + std::to_string(s.module_index) + " type " +
                              std::string(module_type_name(m.modules[s.module_index].type)));
    }
    for (size_t k = 0; k < s.set_infos.size(); ++k) {
      UNIVK_RETURN_IF_ERROR(check_slots(s.set_infos[k].bindings, nres, where + ": " + idx("set_info", k)));
    }
    UNIVK_RETURN_IF_ERROR(check_slots(s.inputs, nres, where + ": inputs"));
    UNIVK_RETURN_IF_ERROR(check_slots(s.outputs, nres, where + ": outputs"));
    for (size_t k = 0; k < s.constants.size(); ++k) {
      if (s.constants[k] >= m.constants.size()) {
        return invalid_argument(where + ": " + idx("constants", k) + " = " + std::to_string(s.constants[k]) +
                                " out of range (" + std::to_string(m.constants.size()) + " constants)");
      }
    }
    for (size_t k = 0; k < s.constant_bindings.size(); ++k) {
      if (s.constant_bindings[k].constant_index >= m.constants.size()) {
        return invalid_argument(where + ": " + idx("constant_bindings", k) + ": constant index " +
                                std::to_string(s.constant_bindings[k].constant_index) + " out of range (" +
                                std::to_string(m.constants.size()) + " constants)");
      }
    }
    if (!s.dispatch_shape.empty() && s.dispatch_shape.size() != 3) {
      return invalid_argument(where + ": dispatch_shape has " + std::to_string(s.dispatch_shape.size()) +
                              " elements, expected 3");
    }
  }
  UNIVK_RETURN_IF_ERROR(check_slots(m.inputs, nres, "vgf: model sequence table: inputs"));
  UNIVK_RETURN_IF_ERROR(check_slots(m.outputs, nres, "vgf: model sequence table: outputs"));
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    if (m.resources[m.inputs[i].resource_index].category != ResourceCategory::kInput) {
      return invalid_argument("vgf: model sequence table: " + idx("input", i) + " refers to resource " +
                              std::to_string(m.inputs[i].resource_index) + " of category " +
                              std::string(resource_category_name(m.resources[m.inputs[i].resource_index].category)) +
                              ", expected INPUT");
    }
  }
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    if (m.resources[m.outputs[i].resource_index].category != ResourceCategory::kOutput) {
      return invalid_argument("vgf: model sequence table: " + idx("output", i) + " refers to resource " +
                              std::to_string(m.outputs[i].resource_index) + " of category " +
                              std::string(resource_category_name(m.resources[m.outputs[i].resource_index].category)) +
                              ", expected OUTPUT");
    }
  }
  if (!m.input_names.empty() && m.input_names.size() != m.inputs.size()) {
    return invalid_argument("vgf: model sequence table: " + std::to_string(m.input_names.size()) + " input names for " +
                            std::to_string(m.inputs.size()) + " inputs");
  }
  if (!m.output_names.empty() && m.output_names.size() != m.outputs.size()) {
    return invalid_argument("vgf: model sequence table: " + std::to_string(m.output_names.size()) +
                            " output names for " + std::to_string(m.outputs.size()) + " outputs");
  }
  for (size_t i = 0; i < m.constants.size(); ++i) {
    const Constant& c = m.constants[i];
    const std::string where = "vgf: constants: " + idx("constant", i);
    if (c.resource_index >= nres) {
      return invalid_argument(where + ": resource index " + std::to_string(c.resource_index) + " out of range (" +
                              std::to_string(nres) + " resources)");
    }
    if (m.resources[c.resource_index].category != ResourceCategory::kConstant) {
      return invalid_argument(where + ": resource " + std::to_string(c.resource_index) + " has category " +
                              std::string(resource_category_name(m.resources[c.resource_index].category)) +
                              ", expected CONSTANT");
    }
    if (c.sparsity_dimension < -1) {
      return invalid_argument(where + ": sparsity dimension " + std::to_string(c.sparsity_dimension) +
                              " is invalid (expected -1 or a dimension)");
    }
  }
  return ok_status();
}

}  // namespace univk::vgf
