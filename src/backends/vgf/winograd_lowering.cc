#include "winograd_lowering.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "univk/kernels/winograd.h"

namespace univk::backends::vgf {

namespace {

// A packed fp32 vector of `elements` in its own storage.
TensorView flat_view(StorageRef storage, uint64_t elements) {
  TensorView v;
  v.storage = storage;
  v.dtype = DType::kFloat32;
  v.shape = {static_cast<int64_t>(elements)};
  v.strides = {1};
  return v;
}

}  // namespace

Result<std::optional<std::vector<Dispatch>>> lower_winograd(const Dispatch& conv, const kernels::DeviceTraits& device,
                                                            std::vector<uint8_t>& constant_blob,
                                                            WinogradScratchIds ids) {
  const auto* problem = std::get_if<kernels::Conv2dProblem>(&conv.problem);
  if (problem == nullptr || conv.inputs.size() < 3 || conv.outputs.size() != 1)
    return std::optional<std::vector<Dispatch>>();
  const std::optional<int64_t> tile = kernels::winograd_tile(*problem, device);
  if (!tile) return std::optional<std::vector<Dispatch>>();
  const TensorView& weight = conv.inputs[1];
  const uint64_t weight_elements = static_cast<uint64_t>(Shape(weight.shape).numel());
  const uint64_t weight_begin = weight.storage.byte_offset + static_cast<uint64_t>(weight.offset) * sizeof(float);
  if (weight.storage.kind != StorageKind::kConstant || weight.dtype != DType::kFloat32 || !weight.contiguous() ||
      problem->weight_offset != 0 || weight_begin + weight_elements * sizeof(float) > constant_blob.size())
    return std::optional<std::vector<Dispatch>>();

  UNIVK_ASSIGN_OR_RETURN(kernels::WinogradPlan plan, kernels::plan_winograd(*problem, device, *tile));
  std::vector<float> weights(weight_elements);
  std::memcpy(weights.data(), constant_blob.data() + weight_begin, weight_elements * sizeof(float));
  UNIVK_ASSIGN_OR_RETURN(std::vector<float> u, kernels::winograd_weights(*problem, weights, *tile));
  // U starts on the descriptor alignment: its binding then covers exactly its bytes, which
  // winograd_tile checked against the binding limit.
  const uint64_t align = std::max<uint64_t>(16, device.binding_alignment);
  constant_blob.resize((constant_blob.size() + align - 1) / align * align);
  const TensorView u_view =
      flat_view({StorageKind::kConstant, 0, constant_blob.size(), u.size() * sizeof(float)}, u.size());
  const auto* u_bytes = reinterpret_cast<const uint8_t*>(u.data());
  constant_blob.insert(constant_blob.end(), u_bytes, u_bytes + u.size() * sizeof(float));
  const TensorView v_view =
      flat_view({StorageKind::kScratch, ids.v, 0, plan.v_elements * sizeof(float)}, plan.v_elements);
  const TensorView m_view =
      flat_view({StorageKind::kScratch, ids.m, 0, plan.m_elements * sizeof(float)}, plan.m_elements);

  std::vector<Dispatch> steps(3);
  Dispatch& in = steps[0];
  in.label = conv.label + " (Winograd input transform)";
  in.inputs = {conv.inputs[0]};
  in.outputs = {v_view};
  in.kernel = plan.input_transform;
  in.work_items = plan.v_elements;

  Dispatch& gemm = steps[1];
  gemm.label = conv.label + " (Winograd GEMM)";
  gemm.inputs = {v_view, u_view};
  gemm.outputs = {m_view};
  gemm.problem = plan.gemm_problem;
  gemm.kernel = plan.gemm;
  gemm.work_items = plan.m_elements;

  // Binding 1 (the weight) is unused: bound to M like any absent operand.
  Dispatch& out = steps[2];
  out.label = conv.label + " (Winograd output transform)";
  out.inputs = {m_view, m_view, conv.inputs[2]};
  if (conv.inputs.size() > 3) out.inputs.push_back(conv.inputs[3]);
  out.outputs = conv.outputs;
  out.kernel = plan.output_transform;
  out.work_items = conv.work_items;
  return std::optional<std::vector<Dispatch>>(std::move(steps));
}

}  // namespace univk::backends::vgf
