#include "tosa_lowering.h"
#include "univk/ops/torch_index_ops.h"
#include "univk/ops/torch_ops.h"

namespace univk::compiler::detail {

using spirv::TosaOp;

void TosaLowering::add_input(ValueId value, uint32_t binding, Layout layout) {
  const Value& v = graph_.value(value);
  const std::vector<int64_t> dims = layout == Layout::kNhwc ? permuted(v.shape.dims(), kToNhwc) : v.shape.dims();
  set(value, layout, tosa_.add_input({v.dtype, dims}, 0, binding));
}

Status TosaLowering::add_output(ValueId value, uint32_t binding, Layout layout) {
  UNIVK_ASSIGN_OR_RETURN(TosaId id, get(value, layout));
  if (graph_.value(value).dtype == DType::kInt64 && tosa_.values[id].type.dtype == DType::kInt32) {
    Attributes a;
    a.set("output_type", std::string("int64"));
    id = op(TosaOp::kCast, {id}, std::move(a), shape_of(id), DType::kInt64);
  }
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

namespace {

// Operators whose lowering checks its own dtypes (fp32 <-> int8 at the int8 region's edges).
bool is_quantized_op(std::string_view op) {
  return op == "quantize_per_tensor" || op == "dequantize_per_tensor" || op == "quantized_conv2d" ||
         op == "quantized_linear" || op == "requantize" || op == "quantized_add" || op == "quantized_mul" ||
         op == "quantized_table";
}

// Operators that run on the integer values of int8 tensors whose input and output share their
// quantization parameters (the pools, reshapes and concatenations of a quantized model).
bool takes_int8(std::string_view op) {
  return op == "max_pool2d" || op == "avg_pool2d" || op == "adaptive_avg_pool2d" || op == "reshape" || op == "view" ||
         op == "flatten" || op == "cat";
}

}  // namespace

Status TosaLowering::lower_node(const Node& node) {
  if (node.outputs.size() != 1) return unsupported("ops with " + std::to_string(node.outputs.size()) + " results");
  if (!is_quantized_op(node.op) && !is_logic_op(node.op) && !is_index_op(node.op) && !is_integer_op(node.op)) {
    const DType dtype = graph_.value(node.outputs[0]).dtype;
    const bool int8 = dtype == DType::kInt8 && takes_int8(node.op);
    if (dtype != DType::kFloat32 && !int8) {
      return unsupported("the result is " + std::string(dtype_name(dtype)) +
                         " (float32 is lowered to TOSA, and int8 for pools and reshapes)");
    }
    for (ValueId in : node.inputs) {
      if (graph_.value(in).dtype != dtype) {
        return unsupported("input '" + graph_.value(in).name + "' is " +
                           std::string(dtype_name(graph_.value(in).dtype)) +
                           " (float32 is lowered to TOSA, and int8 for pools and reshapes)");
      }
    }
  }
  const auto& table = lowerings();
  auto it = table.find(node.op);
  if (it == table.end()) return unsupported("op '" + node.op + "' has no TOSA lowering");
  return (this->*(it->second))(node);
}

// The one list of PyTorch operators the TOSA lowering takes (lower_node, vgf_lowered_ops).
const std::map<std::string, TosaLowering::LowerFn, std::less<>>& TosaLowering::lowerings() {
  static const std::map<std::string, TosaLowering::LowerFn, std::less<>> table = [] {
    std::map<std::string, LowerFn, std::less<>> t;
    for (std::string_view op : ops::unary_op_names()) t[std::string(op)] = &TosaLowering::lower_unary;
    for (std::string_view op : ops::binary_op_names()) t[std::string(op)] = &TosaLowering::lower_binary;
    t["avg_pool2d"] = t["max_pool2d"] = &TosaLowering::lower_pool;
    t["adaptive_avg_pool2d"] = &TosaLowering::lower_adaptive_avg_pool;
    t["conv2d"] = &TosaLowering::lower_conv2d;
    t["conv_transpose2d"] = &TosaLowering::lower_conv_transpose2d;
    t["linear"] = &TosaLowering::lower_linear;
    t["matmul"] = t["bmm"] = &TosaLowering::lower_matmul;
    t["mean"] = t["sum"] = t["prod"] = t["amax"] = t["amin"] = t["all"] = t["any"] = &TosaLowering::lower_reduce;
    t["batch_norm"] = &TosaLowering::lower_batch_norm;
    t["softmax"] = t["log_softmax"] = &TosaLowering::lower_softmax;
    t["layer_norm"] = &TosaLowering::lower_layer_norm;
    t["quantize_per_tensor"] = &TosaLowering::lower_quantize;
    t["dequantize_per_tensor"] = &TosaLowering::lower_dequantize;
    t["quantized_conv2d"] = &TosaLowering::lower_quantized_conv2d;
    t["quantized_linear"] = &TosaLowering::lower_quantized_linear;
    t["requantize"] = &TosaLowering::lower_requantize;
    t["quantized_add"] = &TosaLowering::lower_quantized_add;
    t["quantized_mul"] = &TosaLowering::lower_quantized_mul;
    t["quantized_table"] = &TosaLowering::lower_quantized_table;
    for (const char* op : {"reshape", "view", "flatten", "squeeze", "unsqueeze", "contiguous"}) {
      t[op] = &TosaLowering::lower_reshape;
    }
    t["permute"] = t["transpose"] = &TosaLowering::lower_permute;
    t["cat"] = &TosaLowering::lower_cat;
    t["slice"] = &TosaLowering::lower_slice;
    t["pad"] = &TosaLowering::lower_pad;
    t["upsample_nearest2d"] = t["upsample_bilinear2d"] = &TosaLowering::lower_upsample;
    for (std::string_view op : ops::compare_op_names()) t[std::string(op)] = &TosaLowering::lower_compare;
    for (std::string_view op : ops::logical_op_names()) t[std::string(op)] = &TosaLowering::lower_logical;
    for (std::string_view op : ops::integer_op_names()) t[std::string(op)] = &TosaLowering::lower_integer;
    t["where"] = &TosaLowering::lower_where;
    t["masked_fill"] = &TosaLowering::lower_masked_fill;
    t["index_select"] = &TosaLowering::lower_index_select;
    t["argmax"] = t["argmin"] = &TosaLowering::lower_arg_reduce;
    t["cumsum"] = &TosaLowering::lower_cumsum;
    t["flip"] = &TosaLowering::lower_flip;
    t["conv3d"] = &TosaLowering::lower_conv3d;
    return t;
  }();
  return table;
}

std::vector<std::string> TosaLowering::lowered_ops() {
  std::vector<std::string> names;
  for (const auto& entry : lowerings()) names.push_back(entry.first);
  return names;  // sorted by the map
}

}  // namespace univk::compiler::detail
