#include "kernel_emitters.h"

#include <cmath>
#include <cstring>
#include <string>

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

Status check_perms(const std::vector<int64_t>& perms, size_t rank) {
  if (perms.size() != rank) return invalid_argument("perms has " + std::to_string(perms.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t p : perms) {
    if (p < 0 || static_cast<size_t>(p) >= rank || seen[p]) return invalid_argument("perms is not a permutation");
    seen[p] = true;
  }
  return ok_status();
}

namespace {

// Shaders index with 32-bit unsigned words.
Status check_u32(int64_t value, const char* what) {
  if (value < 0 || value > static_cast<int64_t>(UINT32_MAX))
    return unsupported(std::string(what) + " " + std::to_string(value) + " does not fit the shaders' 32-bit indexing");
  return ok_status();
}

Status append_u32(std::vector<uint32_t>& params, int64_t value, const char* what) {
  UNIVK_RETURN_IF_ERROR(check_u32(value, what));
  params.push_back(static_cast<uint32_t>(value));
  return ok_status();
}

// dims/strides left-padded to kMaxRank.
Status append_padded(std::vector<uint32_t>& params, const std::vector<int64_t>& values, int64_t fill, const char* what) {
  if (values.size() > kMaxRank) return unsupported("rank " + std::to_string(values.size()) + " exceeds " + std::to_string(kMaxRank));
  for (size_t i = values.size(); i < kMaxRank; ++i) params.push_back(static_cast<uint32_t>(fill));
  for (int64_t v : values) UNIVK_RETURN_IF_ERROR(append_u32(params, v, what));
  return ok_status();
}

// Strides of `input` read at the coordinates of `out_shape` (equal rank, 1-dims broadcast).
Result<std::vector<int64_t>> broadcast_strides(const TensorView& input, const std::vector<int64_t>& out_shape) {
  if (input.shape.size() > out_shape.size()) return invalid_argument("operand rank exceeds the output rank");
  const size_t lead = out_shape.size() - input.shape.size();
  std::vector<int64_t> strides(out_shape.size(), 0);
  for (size_t d = 0; d < input.shape.size(); ++d) {
    const int64_t n = input.shape[d], o = out_shape[lead + d];
    if (n == o) strides[lead + d] = input.strides[d];
    else if (n != 1) return invalid_argument("operand shape " + Shape(input.shape).to_string() + " does not broadcast to " + Shape(out_shape).to_string());
  }
  return strides;
}

ShaderId copy_shader(DType dtype) {
  switch (dtype_size(dtype)) {
    case 1: return ShaderId::kCopy8;
    case 2: return ShaderId::kCopy16;
    default: return ShaderId::kCopy32;
  }
}

struct CopySpec {
  std::vector<int64_t> iter_dims;
  std::vector<int64_t> out_strides;
  int64_t out_offset = 0;
  std::vector<int64_t> in_strides;
  std::vector<int64_t> in_dims;
  std::vector<int64_t> low;
  bool wrap = false;
  uint32_t pad_bits = 0;
};

Result<Kernel> make_copy(const TensorView& input, const TensorView& output, const CopySpec& spec) {
  if (dtype_size(input.dtype) != dtype_size(output.dtype) || dtype_size(input.dtype) > 4)
    return unsupported(std::string("copy of ") + std::string(dtype_name(input.dtype)) + " to " + std::string(dtype_name(output.dtype)));
  Kernel k;
  k.shader = copy_shader(input.dtype);
  TensorView out = output;
  out.offset += spec.out_offset;
  k.outputs = {out};
  k.inputs = {input};
  const int64_t total = Shape(spec.iter_dims).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.iter_dims, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.out_strides, 0, "stride"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.in_strides, 0, "stride"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.in_dims, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, spec.low, 0, "padding"));
  k.params.push_back(spec.wrap ? 1u : 0u);
  k.params.push_back(spec.pad_bits);
  k.work_items = static_cast<uint64_t>(total);
  return k;
}

// Pad value bits for the element type of `view` from a float or int attribute.
Result<uint32_t> pad_bits(const TosaOperation& op, DType dtype) {
  if (dtype == DType::kFloat32 || dtype == DType::kFloat16) {
    UNIVK_ASSIGN_OR_RETURN(double v, op.attrs.get_float_or("pad_const", 0.0));
    if (dtype == DType::kFloat16) return static_cast<uint32_t>(float_to_half(static_cast<float>(v)));
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  UNIVK_ASSIGN_OR_RETURN(int64_t v, op.attrs.get_int_or("pad_const", 0));
  return static_cast<uint32_t>(v);
}

Result<std::vector<Kernel>> one(Result<Kernel> k) {
  if (!k.ok()) return k.status();
  return std::vector<Kernel>{std::move(k.value())};
}

Result<std::vector<Kernel>> emit_data_movement(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                               const TensorView& output) {
  const TensorView& in = inputs[0];
  CopySpec spec;
  spec.iter_dims = output.shape;
  spec.out_strides = output.strides;
  spec.in_dims = output.shape;
  spec.low.assign(output.shape.size(), 0);
  switch (op.op) {
    case TosaOp::kTranspose: {
      UNIVK_ASSIGN_OR_RETURN(auto perms, op.attrs.get_ints("perms"));
      UNIVK_RETURN_IF_ERROR(check_perms(perms, in.shape.size()));
      spec.in_strides.resize(perms.size());
      for (size_t d = 0; d < perms.size(); ++d) {
        if (output.shape[d] != in.shape[perms[d]]) return invalid_argument("TRANSPOSE output shape does not match perms");
        spec.in_strides[d] = in.strides[perms[d]];
      }
      return one(make_copy(in, output, spec));
    }
    case TosaOp::kSlice: {
      UNIVK_ASSIGN_OR_RETURN(auto start, op.attrs.get_ints("start"));
      if (start.size() != in.shape.size()) return invalid_argument("SLICE start has the wrong rank");
      TensorView src = in;
      for (size_t d = 0; d < start.size(); ++d) {
        if (start[d] < 0 || start[d] + output.shape[d] > in.shape[d]) return invalid_argument("SLICE window out of bounds");
        src.offset += start[d] * in.strides[d];
      }
      spec.in_strides = in.strides;
      return one(make_copy(src, output, spec));
    }
    case TosaOp::kReshape: {
      if (Shape(in.shape).numel() != Shape(output.shape).numel()) return invalid_argument("RESHAPE changes the element count");
      if (!output.contiguous()) return unsupported("RESHAPE into a strided resource");
      // Iterate over the input's coordinates; the packed output index is the row-major index.
      spec.iter_dims = in.shape;
      spec.in_dims = in.shape;
      spec.in_strides = in.strides;
      spec.out_strides = Shape(in.shape).contiguous_strides();
      spec.low.assign(in.shape.size(), 0);
      return one(make_copy(in, output, spec));
    }
    case TosaOp::kPad: {
      UNIVK_ASSIGN_OR_RETURN(auto padding, op.attrs.get_ints("padding"));
      if (padding.size() != 2 * in.shape.size()) return invalid_argument("PAD padding needs 2 entries per dimension");
      for (size_t d = 0; d < in.shape.size(); ++d) {
        if (padding[2 * d] < 0 || padding[2 * d + 1] < 0) return invalid_argument("PAD padding must be non-negative");
        if (in.shape[d] + padding[2 * d] + padding[2 * d + 1] != output.shape[d]) return invalid_argument("PAD output shape mismatch");
        spec.low[d] = padding[2 * d];
      }
      spec.in_dims = in.shape;
      spec.in_strides = in.strides;
      UNIVK_ASSIGN_OR_RETURN(spec.pad_bits, pad_bits(op, in.dtype));
      return one(make_copy(in, output, spec));
    }
    case TosaOp::kTile: {
      UNIVK_ASSIGN_OR_RETURN(auto multiples, op.attrs.get_ints("multiples"));
      if (multiples.size() != in.shape.size()) return invalid_argument("TILE multiples has the wrong rank");
      for (size_t d = 0; d < in.shape.size(); ++d)
        if (in.shape[d] * multiples[d] != output.shape[d]) return invalid_argument("TILE output shape mismatch");
      spec.in_dims = in.shape;
      spec.in_strides = in.strides;
      spec.wrap = true;
      return one(make_copy(in, output, spec));
    }
    case TosaOp::kConcat: {
      UNIVK_ASSIGN_OR_RETURN(int64_t axis, op.attrs.get_int("axis"));
      if (axis < 0 || static_cast<size_t>(axis) >= output.shape.size()) return invalid_argument("CONCAT axis out of range");
      std::vector<Kernel> kernels;
      int64_t at = 0;
      for (const TensorView& part : inputs) {
        if (part.shape.size() != output.shape.size()) return invalid_argument("CONCAT inputs differ in rank");
        CopySpec s;
        s.iter_dims = part.shape;
        s.in_dims = part.shape;
        s.in_strides = part.strides;
        s.out_strides = output.strides;
        s.low.assign(part.shape.size(), 0);
        s.out_offset = at * output.strides[axis];
        at += part.shape[axis];
        if (Shape(part.shape).numel() == 0) continue;
        UNIVK_ASSIGN_OR_RETURN(Kernel k, make_copy(part, output, s));
        kernels.push_back(std::move(k));
      }
      if (at != output.shape[axis]) return invalid_argument("CONCAT output shape mismatch");
      return kernels;
    }
    default:
      return unsupported("not a data-movement operator");
  }
}

}  // namespace

Result<Kernel> emit_copy(const TensorView& input, const TensorView& output) {
  if (input.shape != output.shape) return invalid_argument("copy between different shapes");
  CopySpec spec;
  spec.iter_dims = output.shape;
  spec.out_strides = output.strides;
  spec.in_strides = input.strides;
  spec.in_dims = input.shape;
  spec.low.assign(output.shape.size(), 0);
  return make_copy(input, output, spec);
}

Result<Kernel> emit_elementwise(DType dtype, const std::vector<TensorView>& inputs, const TensorView& output,
                                const EwProgram& program) {
  if (inputs.size() > kProgramInputs) return internal_error("too many program inputs");
  Kernel k;
  k.shader = dtype == DType::kInt32 ? ShaderId::kElementwiseI32
                                    : (dtype == DType::kFloat16 ? ShaderId::kElementwiseF16 : ShaderId::kElementwiseF32);
  k.outputs = {output};
  k.inputs = inputs;
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, output.shape, 1, "dimension"));
  UNIVK_RETURN_IF_ERROR(append_padded(k.params, output.strides, 0, "stride"));
  bool linear = output.contiguous();
  for (size_t i = 0; i < kProgramInputs; ++i) {
    if (i >= inputs.size()) {
      k.params.insert(k.params.end(), kMaxRank, 0u);
      continue;
    }
    UNIVK_ASSIGN_OR_RETURN(auto strides, broadcast_strides(inputs[i], output.shape));
    UNIVK_RETURN_IF_ERROR(append_padded(k.params, strides, 0, "stride"));
    linear = linear && inputs[i].contiguous() && inputs[i].shape == output.shape;
  }
  k.specialization = {{0u, linear ? 1u : 0u}, {1u, static_cast<uint32_t>(inputs.size())}};
  for (auto& s : program.specialization(8)) k.specialization.push_back(s);
  k.work_items = (static_cast<uint64_t>(total) + 3) / 4;
  return k;
}

Result<Kernel> emit_pool(const TosaOperation& op, const std::vector<TensorView>& inputs, const TensorView& output,
                         const EwProgram& epilogue) {
  const TensorView& in = inputs[0];
  const bool is_int8 = in.dtype == DType::kInt8;
  const bool is_f16 = in.dtype == DType::kFloat16;
  if (output.dtype != in.dtype || (!is_int8 && !is_f16 && in.dtype != DType::kFloat32))
    return unsupported(std::string("pooling on ") + std::string(dtype_name(in.dtype)) + " (fp32, fp16 and int8 only)");
  if (in.shape.size() != 4 || output.shape.size() != 4) return invalid_argument("pooling needs rank-4 NHWC tensors");
  UNIVK_ASSIGN_OR_RETURN(auto kernel, op.attrs.get_ints("kernel"));
  UNIVK_ASSIGN_OR_RETURN(auto stride, op.attrs.get_ints("stride"));
  UNIVK_ASSIGN_OR_RETURN(auto pad, op.attrs.get_ints("pad"));
  if (kernel.size() != 2 || stride.size() != 2 || pad.size() != 4) return invalid_argument("kernel/stride/pad must have 2/2/4 entries");
  for (int d = 0; d < 2; ++d) {
    if (kernel[d] < 1 || stride[d] < 1 || pad[2 * d] < 0 || pad[2 * d + 1] < 0 || pad[2 * d] >= kernel[d] ||
        pad[2 * d + 1] >= kernel[d])
      return invalid_argument("invalid kernel/stride/pad (TOSA requires pad < kernel)");
    const int64_t span = in.shape[1 + d] + pad[2 * d] + pad[2 * d + 1] - kernel[d];
    if (span < 0 || span % stride[d] != 0 || span / stride[d] + 1 != output.shape[1 + d])
      return invalid_argument("output size does not follow (I + pad - kernel) / stride + 1 exactly");
  }
  if (in.shape[0] != output.shape[0] || in.shape[3] != output.shape[3]) return invalid_argument("N and C must be preserved");
  const bool is_max = op.op == TosaOp::kMaxPool2d;
  int64_t in_zp = 0, out_zp = 0;
  if (!is_max) {
    UNIVK_ASSIGN_OR_RETURN(double izp, op.attrs.get_float_or("input_zp", 0.0));
    UNIVK_ASSIGN_OR_RETURN(double ozp, op.attrs.get_float_or("output_zp", 0.0));
    if (!is_int8 && (izp != 0.0 || ozp != 0.0)) return invalid_argument("float AVG_POOL2D needs zero points of 0");
    in_zp = static_cast<int64_t>(izp);
    out_zp = static_cast<int64_t>(ozp);
    if (in_zp < -128 || in_zp > 127 || out_zp < -128 || out_zp > 127) return invalid_argument("int8 zero point out of range");
  }
  Kernel k;
  k.shader = is_int8 ? ShaderId::kPoolI8 : (is_f16 ? ShaderId::kPoolF16 : ShaderId::kPoolF32);
  k.outputs = {output};
  k.inputs = inputs;
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  for (int64_t d : output.shape) UNIVK_RETURN_IF_ERROR(append_u32(k.params, d, "dimension"));
  for (int64_t s : output.strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  for (int64_t s : in.strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  for (int64_t v : {in.shape[1], in.shape[2], kernel[0], kernel[1], stride[0], stride[1], pad[0], pad[2]})
    UNIVK_RETURN_IF_ERROR(append_u32(k.params, v, "pool parameter"));
  if (is_int8) {
    if (inputs.size() != 1 || !epilogue.steps.empty()) return internal_error("int8 pooling has no epilogue");
    k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(in_zp)));
    k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(out_zp)));
    k.specialization = {{0u, is_max ? 1u : 0u}};
    k.work_items = static_cast<uint64_t>(total);
    return k;
  }
  for (size_t i = 1; i < 4; ++i) {
    if (i >= inputs.size()) {
      k.params.insert(k.params.end(), 4, 0u);
      continue;
    }
    UNIVK_ASSIGN_OR_RETURN(auto strides, broadcast_strides(inputs[i], output.shape));
    for (int64_t s : strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  }
  k.specialization = {{0u, is_max ? 1u : 0u}, {1u, static_cast<uint32_t>(inputs.size())}};
  for (auto& s : epilogue.specialization(8)) k.specialization.push_back(s);
  k.work_items = static_cast<uint64_t>(total);
  return k;
}

Result<std::vector<Kernel>> emit_kernels(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                         const TensorView& output) {
  if (inputs.empty()) return invalid_argument("operator without inputs");
  if (Shape(output.shape).numel() == 0) return std::vector<Kernel>{};
  switch (op.op) {
    case TosaOp::kTranspose: case TosaOp::kSlice: case TosaOp::kReshape: case TosaOp::kPad:
    case TosaOp::kTile: case TosaOp::kConcat:
      return emit_data_movement(op, inputs, output);
    case TosaOp::kAvgPool2d: case TosaOp::kMaxPool2d: {
      // Pools the fusion pass did not take as an anchor (int8), without an epilogue.
      auto kernel = emit_pool(op, {inputs[0]}, output, EwProgram{});
      if (!kernel.ok()) return kernel.status();
      return std::vector<Kernel>{std::move(kernel.value())};
    }
    default:
      break;
  }
  return emit_compute(op, inputs, output);
}

}  // namespace univk::backends::vgf
