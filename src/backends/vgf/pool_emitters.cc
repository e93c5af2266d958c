// AVG/MAX_POOL2D with an elementwise epilogue on the pool shaders (pool.glsl, pool_i8.comp).
#include "emitter_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>

#include "univk/ops/tosa_ops.h"

namespace univk::backends::vgf {

using spirv::TosaOp;
using spirv::TosaOperation;

namespace {

struct PoolGeometry {
  int64_t in_h = 0, in_w = 0, kernel_y = 0, kernel_x = 0, stride_y = 0, stride_x = 0, pad_top = 0, pad_left = 0;
  bool is_max = false;
  int64_t in_zp = 0, out_zp = 0;  // int8 AVG only
};

// Whether every stride of `v` but dim `skip` is a multiple of `m`, ignoring dims of size 1
// (their index is always 0).
bool strides_divisible(const TensorView& v, size_t skip, int64_t m) {
  for (size_t d = 0; d < v.strides.size(); ++d)
    if (d != skip && v.shape[d] > 1 && v.strides[d] % m != 0) return false;
  return true;
}

// One pool dispatch over views {output, input, epilogue inputs...}; the epilogue views have the
// output's shape (broadcast dims have stride 0).
Result<Dispatch> pool_dispatch(Shader shader, const PoolGeometry& g, const std::vector<TensorView>& views,
                               const EwProgram& epilogue) {
  const TensorView& output = views[0];
  const TensorView& in = views[1];
  Dispatch k;
  k.shader = shader;
  k.outputs = {output};
  k.inputs.assign(views.begin() + 1, views.end());
  const int64_t total = Shape(output.shape).numel();
  UNIVK_RETURN_IF_ERROR(append_u32(k.params, total, "element count"));
  for (int64_t d : output.shape) UNIVK_RETURN_IF_ERROR(append_u32(k.params, d, "dimension"));
  for (int64_t s : output.strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  for (int64_t s : in.strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  for (int64_t v : {g.in_h, g.in_w, g.kernel_y, g.kernel_x, g.stride_y, g.stride_x, g.pad_top, g.pad_left})
    UNIVK_RETURN_IF_ERROR(append_u32(k.params, v, "pool parameter"));
  // NCHW memory (W stride below C stride): consecutive invocations take consecutive ox.
  // Kernel sizes and output dims are also specialization constants (see pool.glsl); kernel
  // sizes of 0 select the runtime-bounded tap loops for windows too large to unroll.
  const uint32_t nchw_order = output.strides[2] < output.strides[3] ? 1u : 0u;
  const bool unroll = g.kernel_y * g.kernel_x <= kMaxUnrolledPoolTaps;
  const uint32_t kernel_y = unroll ? static_cast<uint32_t>(g.kernel_y) : 0u;
  const uint32_t kernel_x = unroll ? static_cast<uint32_t>(g.kernel_x) : 0u;
  k.work_items = static_cast<uint64_t>(total);
  if (shader == Shader::kPoolI8) {
    if (views.size() != 2 || !epilogue.steps.empty()) return internal_error("int8 pooling has no epilogue");
    k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(g.in_zp)));
    k.params.push_back(static_cast<uint32_t>(static_cast<int32_t>(g.out_zp)));
    k.specialization = {{0u, g.is_max ? 1u : 0u},
                        {1u, nchw_order},
                        {2u, kernel_y},
                        {3u, kernel_x},
                        {4u, static_cast<uint32_t>(output.shape[1])},
                        {5u, static_cast<uint32_t>(output.shape[2])},
                        {6u, static_cast<uint32_t>(output.shape[3])}};
    return k;
  }
  for (size_t i = 2; i < 5; ++i) {
    if (i >= views.size()) {
      k.params.insert(k.params.end(), 4, 0u);
      continue;
    }
    for (int64_t s : views[i].strides) UNIVK_RETURN_IF_ERROR(append_u32(k.params, s, "stride"));
  }
  // Two taps per load (see pool.glsl): the recorder clears it when the base word is odd.
  const bool pair_x = unroll && g.kernel_x == 2 && g.stride_x == 2 && g.pad_left == 0 &&
                      g.in_w == 2 * output.shape[2] && in.strides[2] == 1 && strides_divisible(in, 2, 2) &&
                      in.offset % 2 == 0;
  // Four outputs along ox per invocation, one 4-vector store; with pair geometry and 4-aligned
  // input strides, each row's 8 taps are two 4-vector loads. The recorder clears both when
  // the output's base word is not a multiple of 4 (and QUAD_LOAD when the input's is not).
  const bool quad_x = unroll && output.shape[2] % 4 == 0 && output.strides[2] == 1 && strides_divisible(output, 2, 4) &&
                      output.offset % 4 == 0;
  const bool quad_load = quad_x && pair_x && strides_divisible(in, 2, 4) && in.offset % 4 == 0;
  // Otherwise, channels-last: four channels per invocation, one 4-vector per tap and one store
  // (the recorder clears it when the output's or the input's base word is not a multiple of 4).
  const bool quad_c = unroll && !quad_x && nchw_order == 0 && output.shape[3] % 4 == 0 && output.strides[3] == 1 &&
                      strides_divisible(output, 3, 4) && output.offset % 4 == 0 && in.strides[3] == 1 &&
                      strides_divisible(in, 3, 4) && in.offset % 4 == 0;
  if (quad_x || quad_c) k.work_items = static_cast<uint64_t>(total) / 4;
  // Epilogue inputs read as one 4-vector per invocation (bit k-1 for input k), same rule along
  // the dimension the 4 outputs walk.
  const size_t quad_dim = quad_x ? 2 : 3;
  uint32_t epilogue_quad = 0;
  for (size_t i = 2; (quad_x || quad_c) && i < views.size(); ++i)
    if (views[i].strides[quad_dim] == 1 && strides_divisible(views[i], quad_dim, 4) && views[i].offset % 4 == 0)
      epilogue_quad |= 1u << (i - 2);
  k.specialization = {{0u, g.is_max ? 1u : 0u},
                      {1u, static_cast<uint32_t>(views.size() - 1)},
                      {2u, nchw_order},
                      {3u, kernel_y},
                      {4u, kernel_x},
                      {5u, static_cast<uint32_t>(output.shape[1])},
                      {6u, static_cast<uint32_t>(output.shape[2])},
                      {7u, static_cast<uint32_t>(output.shape[3])},
                      {kPoolPairXConstant, pair_x ? 1u : 0u},
                      {kPoolQuadXConstant, quad_x ? 1u : 0u},
                      {kPoolQuadLoadConstant, quad_load ? 1u : 0u},
                      {kPoolEpilogueQuadConstant, epilogue_quad},
                      {kPoolQuadCConstant, quad_c ? 1u : 0u}};
  for (auto& s : epilogue.specialization(8)) k.specialization.push_back(s);
  return k;
}

}  // namespace

Result<std::vector<Dispatch>> emit_pool(const TosaOperation& op, const std::vector<TensorView>& inputs,
                                        const TensorView& output, const EwProgram& epilogue,
                                        const BindingLimit& limit) {
  const TensorView& in = inputs[0];
  const bool is_int8 = in.dtype == DType::kInt8;
  const bool is_f16 = in.dtype == DType::kFloat16;
  if (output.dtype != in.dtype || (!is_int8 && !is_f16 && in.dtype != DType::kFloat32))
    return unsupported(std::string("pooling on ") + std::string(dtype_name(in.dtype)) + " (fp32, fp16 and int8 only)");
  if (in.shape.size() != 4 || output.shape.size() != 4) return invalid_argument("pooling needs rank-4 NHWC tensors");
  // Attributes, limits and the output size: the same rule as the TOSA reference kernels.
  UNIVK_ASSIGN_OR_RETURN(ops::TosaPool2d window, ops::tosa_pool2d(op.attrs, Shape(in.shape)));
  if (window.output != Shape(output.shape)) {
    return invalid_argument("output shape " + Shape(output.shape).to_string() + " does not follow the pooling rule (" +
                            window.output.to_string() + ")");
  }
  const int64_t* kernel = window.kernel;
  const int64_t* stride = window.stride;
  const int64_t* pad = window.pad;
  PoolGeometry geom;
  geom.is_max = op.op == TosaOp::kMaxPool2d;
  if (!geom.is_max) {
    UNIVK_ASSIGN_OR_RETURN(double izp, op.attrs.get_float_or("input_zp", 0.0));
    UNIVK_ASSIGN_OR_RETURN(double ozp, op.attrs.get_float_or("output_zp", 0.0));
    if (!is_int8 && (izp != 0.0 || ozp != 0.0)) return invalid_argument("float AVG_POOL2D needs zero points of 0");
    geom.in_zp = static_cast<int64_t>(izp);
    geom.out_zp = static_cast<int64_t>(ozp);
    if (geom.in_zp < -128 || geom.in_zp > 127 || geom.out_zp < -128 || geom.out_zp > 127)
      return invalid_argument("int8 zero point out of range");
  }
  geom.in_h = in.shape[1];
  geom.in_w = in.shape[2];
  geom.kernel_y = kernel[0];
  geom.kernel_x = kernel[1];
  geom.stride_y = stride[0];
  geom.stride_x = stride[1];
  geom.pad_top = pad[0];
  geom.pad_left = pad[2];
  if (is_int8 && inputs.size() != 1) return internal_error("int8 pooling has no epilogue");
  const Shader shader = is_int8 ? Shader::kPoolI8 : (is_f16 ? Shader::kPoolF16 : Shader::kPoolF32);

  // {output, input, epilogue inputs at the output's shape}.
  std::vector<TensorView> views = {output, in};
  for (size_t i = 1; i < inputs.size(); ++i) {
    TensorView v = inputs[i];
    UNIVK_ASSIGN_OR_RETURN(v.strides, broadcast_strides(inputs[i], output.shape));
    v.shape = output.shape;
    views.push_back(std::move(v));
  }
  const std::string what(spirv::tosa_op_name(op.op));
  std::vector<Dispatch> dispatches;
  auto add = [&](const PoolGeometry& g, const std::vector<TensorView>& slice) -> Status {
    UNIVK_ASSIGN_OR_RETURN(Dispatch k, pool_dispatch(shader, g, slice, epilogue));
    dispatches.push_back(std::move(k));
    return ok_status();
  };
  if (views_fit(views, limit)) {
    UNIVK_RETURN_IF_ERROR(add(geom, views));
    return dispatches;
  }
  // Whole images: every view is sliced along N.
  auto batch = [&](int64_t start, int64_t count) {
    std::vector<TensorView> out;
    for (const TensorView& v : views) out.push_back(slice_dim(v, 0, start, count));
    return out;
  };
  const auto images = plan_slices(output.shape[0], batch, limit);
  if (!images.empty()) {
    for (auto [start, count] : images) UNIVK_RETURN_IF_ERROR(add(geom, batch(start, count)));
    return dispatches;
  }
  // Bands of output rows of one image: the input rows their windows cover, with the top
  // padding that is left above the band.
  auto band = [&](int64_t n, int64_t start, int64_t count) {
    const int64_t top = start * geom.stride_y - geom.pad_top;
    const int64_t first_row = std::max<int64_t>(0, top);
    const int64_t end_row = std::min(geom.in_h, (start + count - 1) * geom.stride_y - geom.pad_top + geom.kernel_y);
    PoolGeometry g = geom;
    g.in_h = end_row - first_row;
    g.pad_top = first_row - top;
    std::vector<TensorView> out;
    for (size_t i = 0; i < views.size(); ++i) {
      TensorView v = slice_dim(views[i], 0, n, 1);
      out.push_back(i == 1 ? slice_dim(v, 1, first_row, g.in_h) : slice_dim(v, 1, start, count));
    }
    return std::make_pair(g, out);
  };
  const int64_t out_h = output.shape[1];
  for (int64_t n = 0; n < output.shape[0]; ++n) {
    const auto rows = plan_slices(
        out_h, [&](int64_t start, int64_t count) { return band(n, start, count).second; }, limit);
    if (rows.empty()) return binding_limit_error(band(n, 0, 1).second, limit, what + " (bands of output rows)");
    if (dispatches.size() + rows.size() > kMaxSlices) return binding_limit_error(views, limit, what);
    for (auto [start, count] : rows) {
      auto [g, slice] = band(n, start, count);
      UNIVK_RETURN_IF_ERROR(add(g, slice));
    }
  }
  return dispatches;
}

}  // namespace univk::backends::vgf
