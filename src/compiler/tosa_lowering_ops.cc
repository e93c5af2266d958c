// Per-operator lowerings of TosaLowering (see tosa_lowering.h for the layout rules).
#include <algorithm>
#include <cmath>
#include <limits>

#include "tosa_lowering.h"
#include "univk/ops/tosa_ops.h"
#include "univk/ops/torch_ops.h"
#include "univk/ops/torch_volume_ops.h"
#include "univk/ops/upsample_resize.h"

namespace univk::compiler::detail {
namespace {

using spirv::TosaOp;

constexpr double kInf = std::numeric_limits<double>::infinity();

Attributes nan_propagate() {
  Attributes a;
  a.set("nan_mode", spirv::kNanPropagate);
  return a;
}

Attributes clamp_attrs(double lo, double hi) {
  Attributes a = nan_propagate();
  a.set("min_val", lo);
  a.set("max_val", hi);
  return a;
}

Attributes mul_attrs() {
  Attributes a;
  a.set("shift", int64_t{0});
  return a;
}

// Natural dim `d` of a rank-4 value -> its axis in NHWC.
int64_t nhwc_axis(int64_t d) {
  static const int64_t kAxis[4] = {0, 3, 1, 2};
  return kAxis[d];
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

// The graph shapes of the node's inputs, for the ops:: resolvers (attributes, validation and
// shape rules come from univk_ops; this file adds only what TOSA cannot express).
std::vector<Shape> input_shapes(const Graph& graph, const Node& node) {
  std::vector<Shape> shapes;
  for (ValueId in : node.inputs) shapes.push_back(graph.value(in).shape);
  return shapes;
}

std::vector<int64_t> in_layout(const std::vector<int64_t>& natural, Layout layout) {
  return layout == Layout::kNhwc ? permuted(natural, kToNhwc) : natural;
}

}  // namespace

Result<TosaConvWeight> tosa_conv_weight(const HostTensor& oihw, int64_t groups, int64_t ic, int64_t oc, int64_t kh,
                                        int64_t kw, const std::string& what) {
  if (groups == 1) return TosaConvWeight{permute_tensor(oihw, {0, 2, 3, 1}), TosaOp::kConv2d};  // OIHW -> OHWI
  if (groups == ic && oihw.shape()[1] == 1 && oc % ic == 0) {
    // [C*M,1,KH,KW] -> [C,M,KH,KW] -> HWCM
    UNIVK_ASSIGN_OR_RETURN(HostTensor w4, oihw.reshaped(Shape{ic, oc / ic, kh, kw}));
    return TosaConvWeight{permute_tensor(w4, {2, 3, 0, 1}), TosaOp::kDepthwiseConv2d};
  }
  return unsupported(what + " with groups=" + std::to_string(groups) + " (only 1 or depthwise)");
}

Result<TosaLowering::TosaId> TosaLowering::operand(ValueId value, size_t rank, Layout layout) {
  const Value& v = graph_.value(value);
  if (v.shape.rank() == rank) return get(value, layout);
  if (v.shape.rank() > rank) return internal_error("operand rank above the result rank");
  std::vector<int64_t> dims(rank - v.shape.rank(), 1);
  dims.insert(dims.end(), v.shape.dims().begin(), v.shape.dims().end());
  if (v.kind == ValueKind::kConstant) {
    UNIVK_ASSIGN_OR_RETURN(HostTensor t, v.constant->reshaped(Shape(dims)));
    return constant(layout == Layout::kNhwc ? permute_tensor(t, kToNhwc) : t);
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(value, Layout::kNatural));
  TosaId r = reshape(x, dims);
  return layout == Layout::kNhwc ? transpose(r, kToNhwc) : r;
}

Result<TosaLowering::TosaId> TosaLowering::apply_unary(const std::string& o, const Attributes& attrs, TosaId x,
                                                       const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  UNIVK_ASSIGN_OR_RETURN(ops::Unary u, ops::unary(o, attrs, std::vector<Shape>{Shape(shape)}));
  auto simple = [&](TosaOp t) { return op(t, {x}, {}, shape); };
  if (o == "sigmoid") return simple(TosaOp::kSigmoid);
  if (o == "tanh") return simple(TosaOp::kTanh);
  if (o == "exp") return simple(TosaOp::kExp);
  if (o == "log") return simple(TosaOp::kLog);
  if (o == "abs") return simple(TosaOp::kAbs);
  if (o == "reciprocal") return simple(TosaOp::kReciprocal);
  if (o == "rsqrt") return simple(TosaOp::kRsqrt);
  if (o == "floor") return simple(TosaOp::kFloor);
  if (o == "ceil") return simple(TosaOp::kCeil);
  if (o == "sin") return simple(TosaOp::kSin);
  if (o == "cos") return simple(TosaOp::kCos);
  if (o == "sqrt") return op(TosaOp::kReciprocal, {simple(TosaOp::kRsqrt)}, {}, shape);
  if (o == "neg") {
    Attributes a;
    a.set("input1_zp", int64_t{0});
    a.set("output_zp", int64_t{0});
    return op(TosaOp::kNegate, {x}, std::move(a), shape);
  }
  if (o == "relu") return op(TosaOp::kClamp, {x}, clamp_attrs(0.0, kInf), shape);
  if (o == "relu6" || o == "hardtanh" || o == "clamp") {
    return op(TosaOp::kClamp, {x}, clamp_attrs(u.min, u.max), shape);
  }
  if (o == "silu") return op(TosaOp::kMul, {x, simple(TosaOp::kSigmoid)}, mul_attrs(), shape);
  if (o == "hardsigmoid" || o == "hardswish") {
    TosaId shifted = op(TosaOp::kAdd, {x, scalar_constant(3.0f, rank)}, {}, shape);
    TosaId clamped = op(TosaOp::kClamp, {shifted}, clamp_attrs(0.0, 6.0), shape);
    TosaId hs = op(TosaOp::kMul, {clamped, scalar_constant(1.0f / 6.0f, rank)}, mul_attrs(), shape);
    if (o == "hardsigmoid") return hs;
    return op(TosaOp::kMul, {x, hs}, mul_attrs(), shape);
  }
  if (o == "gelu") {
    TosaId half_x = op(TosaOp::kMul, {x, scalar_constant(0.5f, rank)}, mul_attrs(), shape);
    if (u.gelu_tanh) {
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      TosaId cube = op(TosaOp::kMul, {op(TosaOp::kMul, {x, x}, mul_attrs(), shape), x}, mul_attrs(), shape);
      TosaId inner = op(TosaOp::kAdd,
                        {x, op(TosaOp::kMul, {cube, scalar_constant(0.044715f, rank)}, mul_attrs(), shape)}, {}, shape);
      TosaId t =
          op(TosaOp::kTanh,
             {op(TosaOp::kMul, {inner, scalar_constant(0.79788456080286536f, rank)}, mul_attrs(), shape)}, {}, shape);
      return op(TosaOp::kMul, {half_x, op(TosaOp::kAdd, {t, scalar_constant(1.0f, rank)}, {}, shape)}, mul_attrs(),
                shape);
    }
    TosaId scaled = op(TosaOp::kMul, {x, scalar_constant(0.70710678118654752f, rank)}, mul_attrs(), shape);
    TosaId erf = op(TosaOp::kErf, {scaled}, {}, shape);
    TosaId one_plus = op(TosaOp::kAdd, {erf, scalar_constant(1.0f, rank)}, {}, shape);
    return op(TosaOp::kMul, {half_x, one_plus}, mul_attrs(), shape);
  }
  return unsupported("unary op '" + o + "'");
}

Status TosaLowering::lower_unary(const Node& node) {
  UNIVK_RETURN_IF_ERROR(ops::check_input_count(node.inputs.size(), 1, 1));
  const ValueId in = node.inputs[0];
  const Layout layout = preferred_layout(in);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
  const std::vector<int64_t> shape = shape_of(x);
  UNIVK_ASSIGN_OR_RETURN(TosaId y, apply_unary(node.op, node.attrs, x, shape));
  set(node.outputs[0], layout, y);
  return ok_status();
}

Status TosaLowering::lower_binary(const Node& node) {
  const Value& out = graph_.value(node.outputs[0]);
  const size_t rank = out.shape.rank();
  UNIVK_ASSIGN_OR_RETURN(ops::Binary bin, ops::binary(node.op, node.attrs, input_shapes(graph_, node)));
  Layout layout = Layout::kNatural;
  if (rank == 4) {
    for (ValueId in : node.inputs) {
      if (graph_.value(in).shape.rank() == 4 && has(in, Layout::kNhwc)) layout = Layout::kNhwc;
    }
  }
  const std::vector<int64_t> shape = in_layout(out.shape.dims(), layout);
  double alpha = bin.alpha;
  UNIVK_ASSIGN_OR_RETURN(TosaId a, operand(node.inputs[0], rank, layout));
  TosaId b;
  bool b_is_scalar = false;
  double scalar = 0.0;
  if (!bin.has_scalar) {
    UNIVK_ASSIGN_OR_RETURN(b, operand(node.inputs[1], rank, layout));
  } else {
    scalar = bin.other;
    if (bin.scalar_first) {
      // other (op) x: the scalar is the first operand.
      b = a;
      a = scalar_constant(static_cast<float>(scalar), rank);
    } else {
      b_is_scalar = true;
    }
  }
  if (b_is_scalar) {
    if (node.op == "div") scalar = 1.0 / scalar;
    b = scalar_constant(static_cast<float>(scalar * alpha), rank);
    alpha = 1.0;
  }
  if (alpha != 1.0)
    b = op(TosaOp::kMul, {b, scalar_constant(static_cast<float>(alpha), rank)}, mul_attrs(), shape_of(b));
  TosaId y;
  const std::string& o = node.op;
  if (o == "add")
    y = op(TosaOp::kAdd, {a, b}, {}, shape);
  else if (o == "sub")
    y = op(TosaOp::kSub, {a, b}, {}, shape);
  else if (o == "mul")
    y = op(TosaOp::kMul, {a, b}, mul_attrs(), shape);
  else if (o == "div") {
    // b_is_scalar already holds 1/other; tensors divide as a * reciprocal(b).
    TosaId r = b_is_scalar ? b : op(TosaOp::kReciprocal, {b}, {}, shape_of(b));
    y = op(TosaOp::kMul, {a, r}, mul_attrs(), shape);
  } else if (o == "maximum")
    y = op(TosaOp::kMaximum, {a, b}, nan_propagate(), shape);
  else if (o == "minimum")
    y = op(TosaOp::kMinimum, {a, b}, nan_propagate(), shape);
  else if (o == "pow")
    y = op(TosaOp::kPow, {a, b}, {}, shape);
  else
    return unsupported("binary op '" + o + "'");
  set(node.outputs[0], layout, y);
  return ok_status();
}

Result<TosaLowering::TosaId> TosaLowering::fit_windows(TosaId x, Window& h, Window& w, int64_t out_h, int64_t out_w) {
  std::vector<int64_t> dims = shape_of(x);
  int64_t crop[2] = {0, 0};
  Window* win[2] = {&h, &w};
  const int64_t out[2] = {out_h, out_w};
  for (int i = 0; i < 2; ++i) {
    Window& wd = *win[i];
    const int64_t in = dims[static_cast<size_t>(1 + i)];
    const int64_t span = (out[i] - 1) * wd.stride + (wd.kernel - 1) * wd.dilation + 1;
    int64_t after = span - in - wd.pad_before;
    if (after < 0) {
      crop[i] = -after;  // rows PyTorch's floor division never reads
      after = 0;
    }
    wd.pad_after = after;
  }
  if (crop[0] == 0 && crop[1] == 0) return x;
  Attributes a;
  a.set("start", std::vector<int64_t>{0, 0, 0, 0});
  std::vector<int64_t> size = {dims[0], dims[1] - crop[0], dims[2] - crop[1], dims[3]};
  a.set("size", size);
  return op(TosaOp::kSlice, {x}, std::move(a), size, tosa_.values[x].type.dtype);
}

Status TosaLowering::lower_pool(const Node& node) {
  const bool avg = node.op == "avg_pool2d";
  UNIVK_ASSIGN_OR_RETURN(ops::Pool2d pool, ops::pool2d(node.op, node.attrs, input_shapes(graph_, node)));
  const Value& in = graph_.value(node.inputs[0]);
  if (in.shape.rank() != 4)
    return unsupported(node.op + " on a rank-" + std::to_string(in.shape.rank()) + " input (only NCHW)");
  if (pool.dilation[0] != 1 || pool.dilation[1] != 1) return unsupported("max_pool2d with dilation != 1");
  if (pool.divisor_override != 0) return unsupported("avg_pool2d with divisor_override");
  const bool include_pad = avg && pool.count_include_pad;
  const DType dtype = in.dtype;
  if (dtype == DType::kInt8 && include_pad && (pool.padding[0] > 0 || pool.padding[1] > 0))
    return unsupported("int8 avg_pool2d with count_include_pad and padding");
  const int64_t* k = pool.kernel;
  const int64_t* s = pool.stride;
  const int64_t* p = pool.padding;
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNhwc));
  Window h{k[0], s[0], 1, p[0], p[0]};
  Window w{k[1], s[1], 1, p[1], p[1]};
  if (include_pad && (p[0] > 0 || p[1] > 0)) {
    // PyTorch counts the zero padding in the divisor; TOSA never does: pad explicitly.
    Attributes pa;
    pa.set("padding", std::vector<int64_t>{0, 0, p[0], p[0], p[1], p[1], 0, 0});
    pa.set("pad_const", 0.0);
    std::vector<int64_t> dims = shape_of(x);
    dims[1] += 2 * p[0];
    dims[2] += 2 * p[1];
    x = op(TosaOp::kPad, {x}, std::move(pa), dims);
    h.pad_before = h.pad_after = w.pad_before = w.pad_after = 0;
  }
  UNIVK_ASSIGN_OR_RETURN(x, fit_windows(x, h, w, pool.out_h, pool.out_w));
  Attributes a;
  a.set("kernel", std::vector<int64_t>{k[0], k[1]});
  a.set("stride", std::vector<int64_t>{s[0], s[1]});
  a.set("pad", std::vector<int64_t>{h.pad_before, h.pad_after, w.pad_before, w.pad_after});
  if (avg) {
    a.set("acc_type", dtype == DType::kInt8 ? spirv::kAccInt32 : spirv::kAccFp32);
    a.set("input_zp", int64_t{0});
    a.set("output_zp", int64_t{0});
  } else {
    a.set("nan_mode", spirv::kNanPropagate);
  }
  // TOSA's window rule (each pad below the kernel, the exact output size), as the reference and
  // the VgfBackend will check it.
  if (auto window = ops::tosa_pool2d(a, Shape(shape_of(x))); !window.ok())
    return unsupported(node.op + ": " + window.status().message() + " (TOSA limit)");
  const TosaOp tosa_op = avg ? TosaOp::kAvgPool2d : TosaOp::kMaxPool2d;
  TosaId y = op(tosa_op, {x}, std::move(a), permuted(pool.output.dims(), kToNhwc), dtype);
  set(node.outputs[0], Layout::kNhwc, y);
  return ok_status();
}

Status TosaLowering::lower_adaptive_avg_pool(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::AdaptiveAvgPool2d pool, ops::adaptive_avg_pool2d(node.attrs, input_shapes(graph_, node)));
  const Value& in = graph_.value(node.inputs[0]);
  if (in.shape.rank() != 4)
    return unsupported("adaptive_avg_pool2d on a rank-" + std::to_string(in.shape.rank()) + " input");
  const int64_t ih = pool.in.h, iw = pool.in.w, oh = pool.out_h, ow = pool.out_w;
  if (ih % oh != 0 || iw % ow != 0) {
    return unsupported("adaptive_avg_pool2d from " + std::to_string(ih) + "x" + std::to_string(iw) + " to " +
                       std::to_string(oh) + "x" + std::to_string(ow) + " (sizes must divide)");
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNhwc));
  Attributes a;
  a.set("kernel", std::vector<int64_t>{ih / oh, iw / ow});
  a.set("stride", std::vector<int64_t>{ih / oh, iw / ow});
  a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  a.set("acc_type", in.dtype == DType::kInt8 ? spirv::kAccInt32 : spirv::kAccFp32);
  a.set("input_zp", int64_t{0});
  a.set("output_zp", int64_t{0});
  set(node.outputs[0], Layout::kNhwc,
      op(TosaOp::kAvgPool2d, {x}, std::move(a), permuted(pool.output.dims(), kToNhwc), in.dtype));
  return ok_status();
}

Status TosaLowering::lower_conv2d(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Conv2d cv, ops::conv2d(node.attrs, input_shapes(graph_, node)));
  const Value& wv = graph_.value(node.inputs[1]);
  if (!cv.batched) return unsupported("conv2d on a rank-3 input");
  if (wv.kind != ValueKind::kConstant) return unsupported("conv2d with a weight that is not a constant");
  const int64_t groups = cv.groups, oc = cv.oc, kh = cv.kh, kw = cv.kw, ic = cv.c;
  const bool grouped = groups != 1 && groups != ic;
  UNIVK_ASSIGN_OR_RETURN(TosaConvWeight tw,
                         tosa_conv_weight(*wv.constant, grouped ? 1 : groups, ic, oc, kh, kw, "conv2d"));
  HostTensor weight = std::move(tw.weight);
  const TosaOp tosa_op = tw.op;
  HostTensor bias(DType::kFloat32, Shape{oc});
  if (node.inputs.size() == 3) {
    const Value& bv = graph_.value(node.inputs[2]);
    if (bv.kind != ValueKind::kConstant) return unsupported("conv2d with a bias that is not a constant");
    bias = *bv.constant;
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNhwc));
  Window h{kh, cv.stride[0], cv.dilation[0], cv.pad_top, cv.pad_bottom};
  Window w{kw, cv.stride[1], cv.dilation[1], cv.pad_left, cv.pad_right};
  UNIVK_ASSIGN_OR_RETURN(x, fit_windows(x, h, w, cv.out_h, cv.out_w));
  Attributes a;
  a.set("pad", std::vector<int64_t>{h.pad_before, h.pad_after, w.pad_before, w.pad_after});
  a.set("stride", std::vector<int64_t>{cv.stride[0], cv.stride[1]});
  a.set("dilation", std::vector<int64_t>{cv.dilation[0], cv.dilation[1]});
  a.set("acc_type", spirv::kAccFp32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", int64_t{0});
  a.set("weight_zp", int64_t{0});
  const std::vector<int64_t> out_shape = permuted(cv.output.dims(), kToNhwc);
  const TosaId y = grouped ? grouped_conv2d(x, constant(weight), constant(bias), groups, a, out_shape)
                           : op(tosa_op, {x, constant(weight), constant(bias)}, std::move(a), out_shape);
  set(node.outputs[0], Layout::kNhwc, y);
  return ok_status();
}

Status TosaLowering::lower_linear(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Linear lin, ops::linear(node.attrs, input_shapes(graph_, node)));
  const Value& in = graph_.value(node.inputs[0]);
  const Value& wv = graph_.value(node.inputs[1]);
  const int64_t n_out = lin.out_features, n_in = lin.in_features;
  const int64_t rows = in.shape.numel() / std::max<int64_t>(n_in, 1);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNatural));
  TosaId a = reshape(x, {1, rows, n_in});
  TosaId b;
  if (wv.kind == ValueKind::kConstant) {
    // The weight stays [N, K] (each output feature's K values contiguous) under a TRANSPOSE that
    // backends fold into a strided view: a GEMM can then cut a weight larger than one binding
    // along N (kernels/split.h), where [K, N] rows would span all of it.
    UNIVK_ASSIGN_OR_RETURN(HostTensor w3, wv.constant->reshaped(Shape{1, n_out, n_in}));
    b = transpose(constant(w3), {0, 2, 1});
  } else {
    UNIVK_ASSIGN_OR_RETURN(TosaId w, get(node.inputs[1], Layout::kNatural));
    b = reshape(transpose(w, {1, 0}), {1, n_in, n_out});
  }
  Attributes ma;
  ma.set("a_zp", int64_t{0});
  ma.set("b_zp", int64_t{0});
  TosaId y = op(TosaOp::kMatmul, {a, b}, std::move(ma), {1, rows, n_out});
  if (node.inputs.size() == 3) {
    UNIVK_ASSIGN_OR_RETURN(TosaId bias, operand(node.inputs[2], 3, Layout::kNatural));
    y = op(TosaOp::kAdd, {y, bias}, {}, {1, rows, n_out});
  }
  set(node.outputs[0], Layout::kNatural, reshape(y, lin.output.dims()));
  return ok_status();
}

Status TosaLowering::lower_matmul(const Node& node) {
  const std::vector<Shape> shapes = input_shapes(graph_, node);
  UNIVK_ASSIGN_OR_RETURN(ops::Matmul mm,
                         node.op == "bmm" ? ops::bmm(node.attrs, shapes) : ops::matmul(node.attrs, shapes));
  const std::vector<int64_t>& ad = graph_.value(node.inputs[0]).shape.dims();
  const std::vector<int64_t>& bd = graph_.value(node.inputs[1]).shape.dims();
  if (ad.size() < 2 || bd.size() < 2) return unsupported(node.op + " with a rank-1 operand");
  const int64_t m = mm.m, k = mm.k, n = mm.n;
  std::vector<int64_t> a_shape, b_shape;
  if (ad.size() == bd.size() && std::equal(ad.begin(), ad.end() - 2, bd.begin())) {
    const int64_t batch = product(ad, 0, ad.size() - 2);
    a_shape = {batch, m, k};
    b_shape = {batch, k, n};
  } else if (bd.size() == 2) {
    a_shape = {1, product(ad, 0, ad.size() - 1), k};
    b_shape = {1, k, n};
  } else {
    return unsupported(node.op + " with broadcast batch dimensions");
  }
  UNIVK_ASSIGN_OR_RETURN(TosaId a, get(node.inputs[0], Layout::kNatural));
  UNIVK_ASSIGN_OR_RETURN(TosaId b, get(node.inputs[1], Layout::kNatural));
  Attributes ma;
  ma.set("a_zp", int64_t{0});
  ma.set("b_zp", int64_t{0});
  TosaId y =
      op(TosaOp::kMatmul, {reshape(a, a_shape), reshape(b, b_shape)}, std::move(ma), {a_shape[0], a_shape[1], n});
  set(node.outputs[0], Layout::kNatural, reshape(y, mm.output.dims()));
  return ok_status();
}

// sum and mean as REDUCE_SUM, prod as REDUCE_PRODUCT, amax/amin as REDUCE_MAX/REDUCE_MIN (NaN
// propagates), all/any of bool tensors as REDUCE_ALL/REDUCE_ANY, one TOSA reduction per dim.
Status TosaLowering::lower_reduce(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Reduce red, ops::reduce(node.attrs, input_shapes(graph_, node)));
  const ValueId in = node.inputs[0];
  const size_t rank = graph_.value(in).shape.rank();
  if (rank == 0) return unsupported(node.op + " of a scalar");
  const std::string& o = node.op;
  const bool logical = o == "all" || o == "any";
  const DType want = logical ? DType::kBool : DType::kFloat32;
  if (graph_.value(in).dtype != want)
    return unsupported(o + " of " + std::string(dtype_name(graph_.value(in).dtype)) + " (" +
                       std::string(dtype_name(want)) + " is lowered to TOSA)");
  if ((o == "amax" || o == "amin") && red.count == 0) return invalid_argument(o + " over an empty dim has no identity");
  const TosaOp reduction = o == "prod"   ? TosaOp::kReduceProduct
                           : o == "amax" ? TosaOp::kReduceMax
                           : o == "amin" ? TosaOp::kReduceMin
                           : o == "all"  ? TosaOp::kReduceAll
                           : o == "any"  ? TosaOp::kReduceAny
                                         : TosaOp::kReduceSum;
  const Layout layout = preferred_layout(in);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
  std::vector<int64_t> shape = shape_of(x);
  int64_t count = 1;
  for (int64_t nd : red.dims) {
    const int64_t axis = layout == Layout::kNhwc ? nhwc_axis(nd) : nd;
    count *= shape[static_cast<size_t>(axis)];
    shape[static_cast<size_t>(axis)] = 1;
    Attributes a = reduction == TosaOp::kReduceMax || reduction == TosaOp::kReduceMin ? nan_propagate() : Attributes();
    a.set("axis", axis);
    x = op(reduction, {x}, std::move(a), shape, want);
  }
  if (node.op == "mean") {
    x = op(TosaOp::kMul, {x, scalar_constant(1.0f / static_cast<float>(count), rank)}, mul_attrs(), shape);
  }
  const ValueId result = node.outputs[0];
  if (red.keepdim) {
    set(result, layout, x);
  } else {
    TosaId natural = layout == Layout::kNhwc ? transpose(x, kToNchw) : x;
    set(result, Layout::kNatural, reshape(natural, red.output.dims()));
  }
  return ok_status();
}

Status TosaLowering::lower_batch_norm(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::BatchNorm bn, ops::batch_norm(node.attrs, input_shapes(graph_, node)));
  const Value& in = graph_.value(node.inputs[0]);
  const int64_t c = bn.channels;
  const float* params[4];
  for (size_t i = 1; i < 5; ++i) {
    const Value& p = graph_.value(node.inputs[i]);
    if (p.kind != ValueKind::kConstant) return unsupported("batch_norm with a parameter that is not a constant");
    params[i - 1] = p.constant->data<float>().data();
  }
  const double eps = bn.eps;
  std::vector<int64_t> dims(in.shape.rank(), 1);
  dims[1] = c;
  HostTensor scale(DType::kFloat32, Shape(dims)), shift(DType::kFloat32, Shape(dims));
  for (int64_t ch = 0; ch < c; ++ch) {
    const float s = static_cast<float>(params[0][ch] / std::sqrt(static_cast<double>(params[3][ch]) + eps));
    scale.data<float>()[static_cast<size_t>(ch)] = s;
    shift.data<float>()[static_cast<size_t>(ch)] = params[1][ch] - params[2][ch] * s;
  }
  const Layout layout = preferred_layout(node.inputs[0]);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], layout));
  const std::vector<int64_t> shape = shape_of(x);
  auto laid_out = [&](const HostTensor& t) {
    return constant(layout == Layout::kNhwc ? permute_tensor(t, kToNhwc) : t);
  };
  TosaId y = op(TosaOp::kMul, {x, laid_out(scale)}, mul_attrs(), shape);
  y = op(TosaOp::kAdd, {y, laid_out(shift)}, {}, shape);
  set(node.outputs[0], layout, y);
  return ok_status();
}

Status TosaLowering::lower_reshape(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(Shape shape, ops::infer_shape(node.op, node.attrs, input_shapes(graph_, node)));
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNatural));
  set(node.outputs[0], Layout::kNatural, reshape(x, shape.dims()));
  return ok_status();
}

Status TosaLowering::lower_permute(const Node& node) {
  const std::vector<Shape> shapes = input_shapes(graph_, node);
  UNIVK_ASSIGN_OR_RETURN(ops::Permutation p,
                         node.op == "permute" ? ops::permute(node.attrs, shapes) : ops::transpose(node.attrs, shapes));
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNatural));
  set(node.outputs[0], Layout::kNatural, transpose(x, p.perm));
  return ok_status();
}

Status TosaLowering::lower_cat(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Cat c, ops::cat(node.attrs, input_shapes(graph_, node)));
  const size_t rank = c.output.rank();
  const int64_t dim = c.dim;
  Layout layout = rank == 4 ? Layout::kNhwc : Layout::kNatural;
  for (ValueId in : node.inputs) {
    const Value& v = graph_.value(in);
    if (v.kind != ValueKind::kConstant && !has(in, Layout::kNhwc)) layout = Layout::kNatural;
  }
  std::vector<TosaId> ins;
  for (ValueId in : node.inputs) {
    UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
    ins.push_back(x);
  }
  Attributes a;
  a.set("axis", layout == Layout::kNhwc ? nhwc_axis(dim) : dim);
  set(node.outputs[0], layout,
      op(spirv::TosaOp::kConcat, ins, std::move(a), in_layout(c.output.dims(), layout),
         graph_.value(node.outputs[0]).dtype));
  return ok_status();
}

Status TosaLowering::lower_slice(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Slice r, ops::slice(node.attrs, input_shapes(graph_, node)));
  if (r.length == 0) return unsupported("slice with an empty result");
  const ValueId in = node.inputs[0];
  const Layout layout = preferred_layout(in);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
  const size_t axis = static_cast<size_t>(layout == Layout::kNhwc ? nhwc_axis(r.dim) : r.dim);
  set(node.outputs[0], layout, r.step == 1 ? slice_axis(x, axis, r.start, r.length) : strided_slice(x, axis, r));
  return ok_status();
}

TosaLowering::TosaId TosaLowering::slice_axis(TosaId x, size_t axis, int64_t start, int64_t length) {
  std::vector<int64_t> sizes = shape_of(x);
  std::vector<int64_t> starts(sizes.size(), 0);
  starts[axis] = start;
  sizes[axis] = length;
  Attributes a;
  a.set("start", starts);
  a.set("size", sizes);
  return op(TosaOp::kSlice, {x}, std::move(a), sizes, tosa_.values[x].type.dtype);
}

// TOSA SLICE has no step. Elements start, start+step, ... of an axis are, in the axis split into
// rows of `step`, column start % step of consecutive rows: a RESHAPE to [..., rows, step, ...], one
// SLICE and a RESHAPE back, after cropping the axis to whole rows. When the selected rows run past
// the whole rows (the last element lies in a partial row), a GATHER of the indices instead.
TosaLowering::TosaId TosaLowering::strided_slice(TosaId x, size_t axis, const ops::Slice& r) {
  const std::vector<int64_t> dims = shape_of(x);
  const int64_t size = dims[axis], step = r.step;
  const int64_t first_row = r.start / step, column = r.start % step, rows = size / step;
  std::vector<int64_t> out = dims;
  out[axis] = r.length;
  if (first_row + r.length <= rows) {
    std::vector<int64_t> split(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(axis));
    split.push_back(rows);
    split.push_back(step);
    split.insert(split.end(), dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dims.end());
    const TosaId grid = reshape(rows * step == size ? x : slice_axis(x, axis, 0, rows * step), split);
    std::vector<int64_t> starts(split.size(), 0), sizes = split;
    starts[axis] = first_row;
    sizes[axis] = r.length;
    starts[axis + 1] = column;
    sizes[axis + 1] = 1;
    Attributes a;
    a.set("start", starts);
    a.set("size", sizes);
    return reshape(op(TosaOp::kSlice, {grid}, std::move(a), sizes, tosa_.values[x].type.dtype), out);
  }
  const int64_t outer = product(dims, 0, axis), inner = product(dims, axis + 1, dims.size());
  HostTensor table(DType::kInt32, Shape{1, r.length});
  for (int64_t j = 0; j < r.length; ++j)
    table.data<int32_t>()[static_cast<size_t>(j)] = static_cast<int32_t>(r.start + j * step);
  TosaId indices = constant(table);
  if (outer > 1) {
    Attributes tile;
    tile.set("multiples", std::vector<int64_t>{outer, 1});
    indices = op(TosaOp::kTile, {indices}, std::move(tile), {outer, r.length}, DType::kInt32);
  }
  const TosaId values = reshape(x, {outer, size, inner});
  const TosaId y = op(TosaOp::kGather, {values, indices}, {}, {outer, r.length, inner}, tosa_.values[x].type.dtype);
  return reshape(y, out);
}

// flip as one REVERSE per flipped dim, in the layout the input already has.
Status TosaLowering::lower_flip(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Flip f, ops::flip(node.attrs, input_shapes(graph_, node)));
  const ValueId in = node.inputs[0];
  const Layout layout = preferred_layout(in);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
  for (int64_t d : f.dims) {
    Attributes a;
    a.set("axis", layout == Layout::kNhwc ? nhwc_axis(d) : d);
    x = op(spirv::TosaOp::kReverse, {x}, std::move(a), shape_of(x), tosa_.values[x].type.dtype);
  }
  set(node.outputs[0], layout, x);
  return ok_status();
}

// TOSA PAD fills a constant; reflect and replicate have no TOSA operator.
Status TosaLowering::lower_pad(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Pad p, ops::pad(node.attrs, input_shapes(graph_, node)));
  if (p.mode != ops::PadMode::kConstant) return unsupported("pad in reflect or replicate mode (TOSA PAD is constant)");
  const ValueId in = node.inputs[0];
  const Layout layout = preferred_layout(in);
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(in, layout));
  std::vector<int64_t> before = in_layout(p.before, layout), after = in_layout(p.after, layout);
  std::vector<int64_t> padding, dims = shape_of(x);
  for (size_t d = 0; d < dims.size(); ++d) {
    padding.push_back(before[d]);
    padding.push_back(after[d]);
    dims[d] += before[d] + after[d];
  }
  Attributes a;
  a.set("padding", padding);
  a.set("pad_const", p.value);
  set(node.outputs[0], layout, op(spirv::TosaOp::kPad, {x}, std::move(a), dims));
  return ok_status();
}

// RESIZE only where it reads PyTorch's exact source positions and weights
// (ops::resize_for_upsample); the rest stays with the VulkanBackend.
Status TosaLowering::lower_upsample(const Node& node) {
  UNIVK_ASSIGN_OR_RETURN(ops::Upsample2d u, ops::upsample2d(node.op, node.attrs, input_shapes(graph_, node)));
  if (graph_.value(node.inputs[0]).shape.rank() != 4) return unsupported(node.op + " on an unbatched input");
  UNIVK_ASSIGN_OR_RETURN(Attributes a, ops::resize_for_upsample(u));
  UNIVK_ASSIGN_OR_RETURN(TosaId x, get(node.inputs[0], Layout::kNhwc));
  std::vector<int64_t> dims = shape_of(x);
  dims[1] = u.out_h;
  dims[2] = u.out_w;
  set(node.outputs[0], Layout::kNhwc, op(TosaOp::kResize, {x}, std::move(a), dims));
  return ok_status();
}

}  // namespace univk::compiler::detail
