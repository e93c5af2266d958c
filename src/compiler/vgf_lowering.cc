#include "univk/compiler/vgf_lowering.h"

#include <vulkan/vulkan_core.h>

#include <algorithm>

#include "permute.h"
#include "tosa_lowering.h"
#include "univk/vgf/vgf_file.h"

namespace univk::compiler {

Status vgf_supports(const Graph& graph, const Node& node) {
  // A SPIR-V graph tensor has rank >= 1 (the writer refuses rank 0), so the partitioner must give
  // a node with a rank-0 tensor to another backend.
  for (const std::vector<ValueId>* values : {&node.inputs, &node.outputs}) {
    for (ValueId v : *values) {
      if (graph.value(v).shape.rank() == 0)
        return unsupported("VgfBackend: rank-0 tensors (SPIR-V graph tensors have rank >= 1)");
    }
  }
  // Lowering the node on its own is the one source of truth for what the lowering handles.
  detail::TosaLowering lowering(graph);
  uint32_t binding = 0;
  for (ValueId in : node.inputs) {
    if (graph.value(in).kind != ValueKind::kConstant) lowering.add_input(in, binding++);
  }
  return lowering.lower_node(node);
}

std::vector<std::string> vgf_lowered_ops() { return detail::TosaLowering::lowered_ops(); }

namespace {

// `layouts` must name every boundary value or none, and NHWC only for rank-4 values.
Status check_layouts(const Graph& graph, const SubgraphIO& io, const BoundaryLayouts& layouts) {
  if (!layouts.inputs.empty() && layouts.inputs.size() != io.inputs.size())
    return invalid_argument("vgf lowering: " + std::to_string(layouts.inputs.size()) + " input layouts for " +
                            std::to_string(io.inputs.size()) + " inputs");
  if (!layouts.outputs.empty() && layouts.outputs.size() != io.outputs.size())
    return invalid_argument("vgf lowering: " + std::to_string(layouts.outputs.size()) + " output layouts for " +
                            std::to_string(io.outputs.size()) + " outputs");
  auto check_rank = [&](ValueId v, bool nhwc) {
    if (!nhwc || graph.value(v).shape.rank() == 4) return ok_status();
    return invalid_argument("vgf lowering: NHWC asked for the rank-" + std::to_string(graph.value(v).shape.rank()) +
                            " value '" + graph.value(v).name + "'");
  };
  for (size_t i = 0; i < layouts.inputs.size(); ++i)
    UNIVK_RETURN_IF_ERROR(check_rank(io.inputs[i], layouts.inputs[i] == TensorLayout::kNhwc));
  for (size_t i = 0; i < layouts.outputs.size(); ++i)
    UNIVK_RETURN_IF_ERROR(check_rank(io.outputs[i], layouts.outputs[i] != OutputLayout::kNatural));
  return ok_status();
}

}  // namespace

Result<spirv::TosaGraph> lower_to_tosa(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io,
                                       const BoundaryLayouts& layouts, std::vector<TensorLayout>* output_layouts) {
  if (nodes.empty()) return invalid_argument("vgf lowering: empty partition");
  if (io.outputs.empty()) return invalid_argument("vgf lowering: the partition has no outputs");
  UNIVK_RETURN_IF_ERROR(check_layouts(graph, io, layouts));
  detail::TosaLowering lowering(graph);
  uint32_t binding = 0;
  for (size_t i = 0; i < io.inputs.size(); ++i) {
    lowering.add_input(io.inputs[i], binding++, layouts.inputs.empty() ? TensorLayout::kNatural : layouts.inputs[i]);
  }
  for (NodeId n : nodes) {
    const Node& node = graph.node(n);
    Status s = lowering.lower_node(node);
    if (!s.ok()) return s.with_context("vgf lowering: node '" + node.name + "' (" + node.op + ")");
  }
  std::vector<TensorLayout> chosen(io.outputs.size(), TensorLayout::kNatural);
  for (size_t i = 0; i < io.outputs.size(); ++i) {
    const OutputLayout rule = layouts.outputs.empty() ? OutputLayout::kNatural : layouts.outputs[i];
    if (rule == OutputLayout::kNhwc ||
        (rule == OutputLayout::kNhwcIfProduced && lowering.preferred_layout(io.outputs[i]) == TensorLayout::kNhwc)) {
      chosen[i] = TensorLayout::kNhwc;
    }
    UNIVK_RETURN_IF_ERROR(lowering.add_output(io.outputs[i], binding++, chosen[i]));
  }
  if (output_layouts) *output_layouts = std::move(chosen);
  return std::move(lowering.tosa());
}

Result<std::vector<uint8_t>> lower_to_vgf(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io) {
  UNIVK_ASSIGN_OR_RETURN(VgfPartition part, lower_to_vgf(graph, nodes, io, BoundaryLayouts{}));
  return std::move(part.bytes);
}

Result<VgfPartition> lower_to_vgf(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io,
                                  const BoundaryLayouts& layouts) {
  VgfPartition result;
  UNIVK_ASSIGN_OR_RETURN(spirv::TosaGraph tosa, lower_to_tosa(graph, nodes, io, layouts, &result.output_layouts));
  auto words = spirv::write_tosa_graph(tosa);
  if (!words.ok()) return words.status().with_context("vgf lowering: SPIR-V");

  vgf::VgfFile file;
  // The headers' patch version, which is what the field holds (a reader can tell which
  // VkStructureType and enum values the writer knew).
  file.vk_header_version = VK_HEADER_VERSION;
  vgf::Module module;
  module.type = vgf::ModuleType::kGraph;
  module.name = "univk_partition";
  module.entry_point = tosa.entry_point;
  module.code_type = vgf::ModuleCodeType::kSpirv;
  module.set_spirv(std::move(words).value());
  file.modules.push_back(std::move(module));

  vgf::Segment segment;
  segment.type = vgf::ModuleType::kGraph;
  segment.name = "univk_partition";
  segment.module_index = 0;
  segment.dispatch_shape = {0, 0, 0};
  vgf::DescriptorSetInfo set;
  set.set_index = 0;

  auto add_tensor = [&](ValueId id, vgf::ResourceCategory category, uint32_t binding, TensorLayout layout) -> Status {
    const Value& v = graph.value(id);
    auto format = vgf::vk_format_from_dtype(v.dtype);
    if (!format)
      return unsupported("vgf lowering: value '" + v.name + "' has dtype " + std::string(dtype_name(v.dtype)));
    vgf::Resource r;
    r.category = category;
    r.vk_descriptor_type = vgf::vk::kDescriptorTypeTensorArm;
    r.vk_format = *format;
    r.shape = layout == TensorLayout::kNhwc ? detail::permuted(v.shape.dims(), detail::kToNhwc) : v.shape.dims();
    const vgf::BindingSlot slot{binding, static_cast<uint32_t>(file.resources.size())};
    file.resources.push_back(std::move(r));
    set.bindings.push_back(slot);
    if (category == vgf::ResourceCategory::kInput) {
      segment.inputs.push_back(slot);
      file.inputs.push_back(slot);
      file.input_names.push_back(v.name);
    } else {
      segment.outputs.push_back(slot);
      file.outputs.push_back(slot);
      file.output_names.push_back(v.name);
    }
    return ok_status();
  };
  uint32_t binding = 0;
  for (size_t i = 0; i < io.inputs.size(); ++i) {
    const TensorLayout layout = layouts.inputs.empty() ? TensorLayout::kNatural : layouts.inputs[i];
    UNIVK_RETURN_IF_ERROR(add_tensor(io.inputs[i], vgf::ResourceCategory::kInput, binding++, layout));
  }
  for (size_t i = 0; i < io.outputs.size(); ++i) {
    UNIVK_RETURN_IF_ERROR(
        add_tensor(io.outputs[i], vgf::ResourceCategory::kOutput, binding++, result.output_layouts[i]));
  }
  segment.set_infos.push_back(std::move(set));

  // Graph constants in id order: id i is constant table entry i (the 0.4.x convention).
  std::vector<const spirv::TosaValue*> constants;
  for (const spirv::TosaValue& v : tosa.values) {
    if (v.kind == spirv::ValueKind::kGraphConstant) constants.push_back(&v);
  }
  std::sort(constants.begin(), constants.end(),
            [](const auto* a, const auto* b) { return a->graph_constant_id < b->graph_constant_id; });
  for (size_t i = 0; i < constants.size(); ++i) {
    const spirv::TosaValue& v = *constants[i];
    if (v.graph_constant_id != i) return internal_error("vgf lowering: graph constant ids are not 0..n-1");
    auto format = vgf::vk_format_from_dtype(v.type.dtype);
    if (!format) return unsupported("vgf lowering: constant dtype " + std::string(dtype_name(v.type.dtype)));
    vgf::Resource r;
    r.category = vgf::ResourceCategory::kConstant;
    r.vk_format = *format;
    r.shape = v.type.shape;
    vgf::Constant c;
    c.resource_index = static_cast<uint32_t>(file.resources.size());
    c.set_data(v.data);
    file.resources.push_back(std::move(r));
    file.constants.push_back(std::move(c));
    segment.constants.push_back(static_cast<uint32_t>(i));
  }
  file.segments.push_back(std::move(segment));
  auto bytes = vgf::encode_vgf(file, vgf::k0_4_3);
  if (!bytes.ok()) return bytes.status().with_context("vgf lowering: encode");
  result.bytes = std::move(bytes).value();
  return result;
}

}  // namespace univk::compiler
