#include "tosa_lowering.h"
#include "univk/ops/torch_ops.h"

#include <algorithm>
#include <cstring>

namespace univk::compiler::detail {

using spirv::TosaOp;

std::vector<int64_t> permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perms) {
  std::vector<int64_t> out(perms.size());
  for (size_t i = 0; i < perms.size(); ++i) out[i] = dims[static_cast<size_t>(perms[i])];
  return out;
}

HostTensor permute_tensor(const HostTensor& tensor, const std::vector<int64_t>& perms) {
  const std::vector<int64_t>& in_dims = tensor.shape().dims();
  const Shape out_shape(permuted(in_dims, perms));
  HostTensor out(tensor.dtype(), out_shape);
  const size_t rank = perms.size();
  const size_t elem = dtype_size(tensor.dtype());
  const std::vector<int64_t> in_strides = tensor.shape().contiguous_strides();
  std::vector<int64_t> index(rank, 0);
  const uint8_t* src = tensor.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t i = 0; i < out_shape.numel(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * in_strides[static_cast<size_t>(perms[d])];
    std::memcpy(dst + static_cast<size_t>(i) * elem, src + static_cast<size_t>(offset) * elem, elem);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

void TosaLowering::add_input(ValueId value, uint32_t binding) {
  const Value& v = graph_.value(value);
  const TosaId id = tosa_.add_input({v.dtype, v.shape.dims()}, 0, binding);
  natural_[value] = id;
}

Status TosaLowering::add_output(ValueId value, uint32_t binding) {
  UNIVK_ASSIGN_OR_RETURN(TosaId id, get(value, Layout::kNatural));
  tosa_.add_output(id, 0, binding);
  return ok_status();
}

bool TosaLowering::has(ValueId value, Layout layout) const {
  return (layout == Layout::kNatural ? natural_ : nhwc_).count(value) != 0;
}

Layout TosaLowering::preferred_layout(ValueId value) const {
  return has(value, Layout::kNhwc) ? Layout::kNhwc : Layout::kNatural;
}

void TosaLowering::set(ValueId value, Layout layout, TosaId id) {
  (layout == Layout::kNatural ? natural_ : nhwc_)[value] = id;
}

Result<TosaLowering::TosaId> TosaLowering::get(ValueId value, Layout layout) {
  auto& map = layout == Layout::kNatural ? natural_ : nhwc_;
  if (auto it = map.find(value); it != map.end()) return it->second;
  const Value& v = graph_.value(value);
  if (layout == Layout::kNhwc && v.shape.rank() != 4) {
    return internal_error("vgf lowering: value '" + v.name + "' of rank " + std::to_string(v.shape.rank()) +
                          " asked for in NHWC layout");
  }
  TosaId id;
  if (v.kind == ValueKind::kConstant) {
    id = constant(layout == Layout::kNhwc ? permute_tensor(*v.constant, kToNhwc) : *v.constant);
  } else if (layout == Layout::kNatural && nhwc_.count(value)) {
    id = transpose(nhwc_[value], kToNchw);
  } else if (layout == Layout::kNhwc && natural_.count(value)) {
    id = transpose(natural_[value], kToNhwc);
  } else {
    return internal_error("vgf lowering: value '" + v.name + "' is used before it is defined");
  }
  map[value] = id;
  return id;
}

TosaLowering::TosaId TosaLowering::constant(const HostTensor& tensor) {
  spirv::TosaTensorType type{tensor.dtype(), tensor.shape().dims()};
  std::vector<uint8_t> bytes(tensor.bytes().begin(), tensor.bytes().end());
  if (tensor.numel() > kMaxInlineConstantElements) {
    return tosa_.add_graph_constant(std::move(type), next_graph_constant_++, std::move(bytes));
  }
  return tosa_.add_constant(std::move(type), std::move(bytes));
}

TosaLowering::TosaId TosaLowering::scalar_constant(float value, size_t rank) {
  HostTensor t(DType::kFloat32, Shape(std::vector<int64_t>(rank, 1)));
  t.data<float>()[0] = value;
  return constant(t);
}

TosaLowering::TosaId TosaLowering::op(TosaOp op, std::vector<TosaId> inputs, Attributes attrs,
                                      std::vector<int64_t> shape, DType dtype) {
  return tosa_.add_operation(op, std::move(inputs), std::move(attrs), {dtype, std::move(shape)});
}

TosaLowering::TosaId TosaLowering::transpose(TosaId input, const std::vector<int64_t>& perms) {
  Attributes a;
  a.set("perms", perms);
  const spirv::TosaTensorType& in = tosa_.values[input].type;
  return op(TosaOp::kTranspose, {input}, std::move(a), permuted(in.shape, perms), in.dtype);
}

TosaLowering::TosaId TosaLowering::reshape(TosaId input, std::vector<int64_t> shape) {
  Attributes a;
  a.set("shape", shape);
  return op(TosaOp::kReshape, {input}, std::move(a), std::move(shape), tosa_.values[input].type.dtype);
}

Status TosaLowering::lower_node(const Node& node) {
  if (node.outputs.size() != 1) return unsupported("ops with " + std::to_string(node.outputs.size()) + " results");
  for (ValueId in : node.inputs) {
    if (graph_.value(in).dtype != DType::kFloat32) {
      return unsupported("input '" + graph_.value(in).name + "' is " +
                         std::string(dtype_name(graph_.value(in).dtype)) + " (only float32 is lowered to TOSA)");
    }
  }
  if (graph_.value(node.outputs[0]).dtype != DType::kFloat32) return unsupported("non-float32 result");
  const std::string& o = node.op;
  auto is_one_of = [&](std::span<const std::string_view> names) {
    return std::find(names.begin(), names.end(), o) != names.end();
  };
  if (is_one_of(ops::unary_op_names())) return lower_unary(node);
  if (is_one_of(ops::binary_op_names())) return lower_binary(node);
  if (o == "avg_pool2d" || o == "max_pool2d") return lower_pool(node);
  if (o == "adaptive_avg_pool2d") return lower_adaptive_avg_pool(node);
  if (o == "conv2d") return lower_conv2d(node);
  if (o == "linear") return lower_linear(node);
  if (o == "matmul" || o == "bmm") return lower_matmul(node);
  if (o == "mean" || o == "sum") return lower_reduce(node);
  if (o == "batch_norm") return lower_batch_norm(node);
  if (o == "reshape" || o == "view" || o == "flatten" || o == "squeeze" || o == "unsqueeze" || o == "contiguous") {
    return lower_reshape(node);
  }
  if (o == "permute" || o == "transpose") return lower_permute(node);
  if (o == "cat") return lower_cat(node);
  if (o == "slice") return lower_slice(node);
  return unsupported("op '" + o + "' has no TOSA lowering");
}

}  // namespace univk::compiler::detail
