// lower_op: operator name -> per-family lowering function; common checks and grid helpers.
#include "op_lowering.h"

#include <algorithm>
#include <map>

#include "lowering_common.h"

namespace univk::backends::vulkan {
namespace {

using LowerMap = std::map<std::string, LowerFn, std::less<>>;

const LowerMap& lowerings() {
  static const LowerMap map = [] {
    LowerMap m;
    for (const LowerTable& table : {elementwise_lowerings(), shape_lowerings(), pool_conv_lowerings(),
                                    matmul_lowerings(), normalization_lowerings(), index_lowerings()}) {
      for (const auto& [name, fn] : table) m.emplace(std::string(name), fn);
    }
    return m;
  }();
  return map;
}

}  // namespace

const char* shader_name(Shader shader) {
  switch (shader) {
    case Shader::kUnary:
      return "unary";
    case Shader::kBinary:
      return "binary";
    case Shader::kStridedCopy:
      return "strided_copy";
    case Shader::kPool2d:
      return "pool2d";
    case Shader::kSoftmax:
      return "softmax";
    case Shader::kReduce:
      return "reduce";
    case Shader::kLayerNorm:
      return "layer_norm";
    case Shader::kBatchNorm:
      return "batch_norm";
    case Shader::kPad:
      return "pad";
    case Shader::kUpsample:
      return "upsample";
    case Shader::kLogic:
      return "logic";
    case Shader::kSelect:
      return "select";
    case Shader::kGather:
      return "gather";
    case Shader::kAlongDim:
      return "along_dim";
  }
  return "unknown";
}

uint32_t shader_binding_count(Shader shader) {
  switch (shader) {
    case Shader::kUnary:
    case Shader::kStridedCopy:
    case Shader::kPad:
    case Shader::kUpsample:
    case Shader::kPool2d:
    case Shader::kSoftmax:
    case Shader::kReduce:
    case Shader::kAlongDim:
      return 2;
    case Shader::kBinary:
    case Shader::kLogic:
    case Shader::kGather:
      return 3;
    case Shader::kLayerNorm:
    case Shader::kSelect:
      return 4;
    case Shader::kBatchNorm:
      return 6;
  }
  return 0;
}

Result<LoweredOp> lower_op(std::string_view op, const Attributes& attrs, std::span<const ComputeTensorType> inputs) {
  auto it = lowerings().find(op);
  if (it == lowerings().end()) return unsupported("VulkanBackend has no operator '" + std::string(op) + "'");
  auto lowered = it->second(op, attrs, inputs);
  if (!lowered.ok()) return lowered.status().with_context(std::string(op));
  for (const Dispatch& d : lowered->dispatches) {
    const uint32_t wanted = d.kernel ? kernels::kernel_binding_count(d.kernel->kernel) : shader_binding_count(d.shader);
    if (d.bindings.size() != wanted) {
      return internal_error(std::string(op) + ": dispatch of " +
                            (d.kernel ? kernels::kernel_name(d.kernel->kernel) : shader_name(d.shader)) + " binds " +
                            std::to_string(d.bindings.size()) + " buffers");
    }
  }
  return lowered;
}

const std::vector<std::string>& lowered_op_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : lowerings()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

Result<Dispatch> kernel_dispatch(kernels::Problem problem, std::vector<Operand> bindings,
                                 const kernels::DeviceTraits& traits) {
  Dispatch d;
  d.problem = std::move(problem);
  d.bindings = std::move(bindings);
  UNIVK_ASSIGN_OR_RETURN(std::vector<Dispatch> pieces, kernel_pieces(d, traits));
  return std::move(pieces.front());
}

Result<std::vector<Dispatch>> kernel_pieces(const Dispatch& whole, const kernels::DeviceTraits& traits) {
  UNIVK_ASSIGN_OR_RETURN(std::vector<kernels::KernelPiece> planned, kernels::plan_pieces(whole.problem, traits));
  std::vector<Dispatch> pieces;
  for (kernels::KernelPiece& piece : planned) {
    Dispatch d;
    d.problem = whole.problem;
    d.bindings = whole.bindings;
    d.groups = piece.dispatch.groups;
    d.kernel = std::move(piece.dispatch);
    d.windows = piece.windows;
    pieces.push_back(std::move(d));
  }
  return pieces;
}

Dispatch contiguous_copy(uint32_t words) {
  LoweredOp tmp;
  // A 1-d copy never fails to lower: numel was checked when the value's op was lowered.
  (void)append_strided_copy(tmp, {words}, {1}, {1}, 0, 0, 0);
  return tmp.dispatches.front();
}

std::vector<Shape> shapes_of(Inputs inputs) {
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const ComputeTensorType& t : inputs) shapes.push_back(t.shape);
  return shapes;
}

Status check_float(Inputs inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype != DType::kFloat32) {
      return unsupported("input " + std::to_string(i) + " is " + std::string(dtype_name(inputs[i].dtype)) +
                         "; only float32 is implemented");
    }
  }
  return ok_status();
}

Status check_word_dtype(Inputs inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (dtype_size(inputs[i].dtype) != 4) {
      return unsupported("input " + std::to_string(i) + " is " + std::string(dtype_name(inputs[i].dtype)) +
                         "; copies handle 4-byte dtypes only");
    }
  }
  return ok_status();
}

Status check_extent(const Shape& shape, const std::string& what) {
  const int64_t n = shape.numel();
  if (n <= 0) return unsupported(what + " " + shape.to_string() + " is empty");
  if (n > int64_t{UINT32_MAX}) return unsupported(what + " " + shape.to_string() + " has more than 2^32-1 elements");
  return ok_status();
}

StridedLayout coalesce(const std::vector<int64_t>& dims, const std::vector<std::vector<int64_t>>& strides) {
  StridedLayout out;
  out.strides.resize(strides.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    bool merge = !out.dims.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k) {
      merge = out.strides[k].back() == strides[k][d] * dims[d];
    }
    if (merge) {
      out.dims.back() *= dims[d];
      for (size_t k = 0; k < strides.size(); ++k) out.strides[k].back() = strides[k][d];
    } else {
      out.dims.push_back(dims[d]);
      for (size_t k = 0; k < strides.size(); ++k) out.strides[k].push_back(strides[k][d]);
    }
  }
  if (out.dims.empty()) {
    out.dims.push_back(1);
    for (auto& s : out.strides) s.push_back(0);
  }
  return out;
}

Result<std::array<uint32_t, 3>> grid_for_groups(uint64_t groups) {
  groups = std::max<uint64_t>(groups, 1);
  const uint64_t x = std::min<uint64_t>(groups, kMaxGroupCount);
  const uint64_t y = (groups + x - 1) / x;
  if (y > kMaxGroupCount) return unsupported(std::to_string(groups) + " workgroups exceed the dispatch limit");
  return std::array<uint32_t, 3>{static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

Result<std::array<uint32_t, 3>> grid_for_threads(uint64_t threads) {
  return grid_for_groups((threads + kWorkgroupSize - 1) / kWorkgroupSize);
}

Status append_strided_copy(LoweredOp& lowered, const std::vector<int64_t>& dims, const std::vector<int64_t>& in_strides,
                           const std::vector<int64_t>& out_strides, int64_t in_offset, int64_t out_offset,
                           uint32_t input_index) {
  const StridedLayout layout = coalesce(dims, {in_strides, out_strides});
  if (layout.dims.size() > kMaxRank) {
    return unsupported("copy needs " + std::to_string(layout.dims.size()) + " dims after merging; at most " +
                       std::to_string(kMaxRank) + " are supported");
  }
  int64_t n = 1;
  for (int64_t d : layout.dims) n *= d;
  Dispatch d;
  d.shader = Shader::kStridedCopy;
  // Params { n, rank, in_offset, out_offset, dims[6], in_strides[6], out_strides[6] }
  d.push = {u32(n), u32(static_cast<int64_t>(layout.dims.size())), u32(in_offset), u32(out_offset)};
  for (const auto* list : {&layout.dims, &layout.strides[0], &layout.strides[1]}) {
    for (uint32_t i = 0; i < kMaxRank; ++i) d.push.push_back(i < list->size() ? u32((*list)[i]) : 0);
  }
  d.bindings = {Operand::input(input_index), Operand::output()};
  UNIVK_ASSIGN_OR_RETURN(d.groups, grid_for_threads(static_cast<uint64_t>(n)));
  lowered.dispatches.push_back(std::move(d));
  return ok_status();
}

}  // namespace univk::backends::vulkan

namespace univk::backends {

Status vulkan_backend_check(std::string_view op, const Attributes& attrs, std::span<const ComputeTensorType> inputs,
                            ComputeTensorType* output) {
  UNIVK_ASSIGN_OR_RETURN(vulkan::LoweredOp lowered, vulkan::lower_op(op, attrs, inputs));
  if (output != nullptr) *output = lowered.output;
  return ok_status();
}

bool vulkan_backend_supports(std::string_view op, const Attributes& attrs, std::span<const ComputeTensorType> inputs) {
  return vulkan_backend_check(op, attrs, inputs).ok();
}

std::vector<std::string> vulkan_backend_ops() { return vulkan::lowered_op_names(); }

}  // namespace univk::backends
