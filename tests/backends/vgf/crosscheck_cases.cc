#include "crosscheck_cases.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

namespace univk::backends::vgf_test {
namespace {

using spirv::TosaOp;
using ::univk::testing::random_tensor;
using ::univk::testing::Tolerance;
using Dims = std::vector<int64_t>;

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }
bool coin(std::mt19937& rng) { return pick(rng, 0, 1) == 1; }

Dims random_dims(std::mt19937& rng, int64_t rank_lo, int64_t rank_hi, int64_t dim_lo = 1, int64_t dim_hi = 7) {
  Dims d(static_cast<size_t>(pick(rng, rank_lo, rank_hi)));
  for (auto& x : d) x = pick(rng, dim_lo, dim_hi);
  return d;
}

HostTensor tensor(std::mt19937& rng, DType dtype, const Dims& dims, double lo, double hi) {
  return random_tensor(dtype, Shape(dims), static_cast<uint32_t>(rng()), lo, hi);
}
HostTensor tensor(std::mt19937& rng, DType dtype, const Dims& dims) {
  const auto range = ::univk::testing::default_range(dtype);
  return tensor(rng, dtype, dims, range.lo, range.hi);
}

// With `nans`, about one float element in eight becomes NaN. nan_mode is PROPAGATE, what univk
// writes and the lowering implements (it refuses IGNORE; docs/VGF_BACKEND.md).
int64_t with_nans(std::mt19937& rng, bool nans, std::vector<HostTensor>& inputs) {
  if (!nans) return spirv::kNanPropagate;
  for (HostTensor& t : inputs) {
    if (t.dtype() != DType::kFloat32) continue;
    for (float& v : t.data<float>())
      if (pick(rng, 0, 7) == 0) v = NAN;
  }
  return spirv::kNanPropagate;
}

CrossCheckCase make(TosaOp op, std::vector<HostTensor> inputs, DType out_dtype, Dims out, Tolerance tol = {}) {
  CrossCheckCase c;
  c.op = op;
  c.graph_constant.assign(inputs.size(), false);
  c.inputs = std::move(inputs);
  c.output = {out_dtype, std::move(out)};
  c.tolerance = tol;
  return c;
}

// Exact IEEE operations (ADD of two floats, MAXIMUM, data movement) must agree bit for bit;
// transcendental functions within a few ulp of fp32; sums within their accumulation order.
constexpr Tolerance kExact{0.0, 0.0};
constexpr Tolerance kRounded{1e-6, 1e-6};
constexpr Tolerance kTranscendental{1e-6, 1e-5};
constexpr Tolerance kAccumulated{1e-5, 1e-5};

// ---- elementwise ------------------------------------------------------------------------------

// Two shapes of one rank that broadcast (any dim of either may be 1).
std::pair<Dims, Dims> broadcast_pair(std::mt19937& rng) {
  Dims a = random_dims(rng, 1, 5, 1, 6), b = a;
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t r = pick(rng, 0, 3);
    if (r == 0) a[i] = 1;
    if (r == 1) b[i] = 1;
  }
  return {a, b};
}

Dims broadcast(const Dims& a, const Dims& b) {
  Dims out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = std::max(a[i], b[i]);
  return out;
}

template <TosaOp Op, DType Type, bool Nans = false>
CrossCheckCase binary(std::mt19937& rng) {
  auto [a, b] = broadcast_pair(rng);
  const bool is_float = Type == DType::kFloat32;
  double lo = is_float ? -4.0 : -1000000.0, hi = -lo;
  if (Op == TosaOp::kMul && !is_float) lo = -30000.0, hi = 30000.0;  // the product fits int32
  if (Op == TosaOp::kPow) lo = 0.1, hi = 3.0;                        // a positive base
  HostTensor x = tensor(rng, Type, a, lo, hi);
  HostTensor y = Op == TosaOp::kPow ? tensor(rng, Type, b, -2.0, 2.0) : tensor(rng, Type, b, lo, hi);
  const Tolerance tol = Op == TosaOp::kPow ? kTranscendental : (Op == TosaOp::kMul ? kRounded : kExact);
  CrossCheckCase c = make(Op, {x, y}, Type, broadcast(a, b), tol);
  if (Op == TosaOp::kMul) c.attrs.set("shift", is_float || coin(rng) ? int64_t{0} : pick(rng, 1, 40));
  if (Op == TosaOp::kMaximum || Op == TosaOp::kMinimum) c.attrs.set("nan_mode", with_nans(rng, Nans, c.inputs));
  return c;
}

template <TosaOp Op>
CrossCheckCase unary(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  double lo = -4.0, hi = 4.0;
  if (Op == TosaOp::kLog || Op == TosaOp::kRsqrt || Op == TosaOp::kReciprocal) lo = 0.1;
  if (Op == TosaOp::kSigmoid || Op == TosaOp::kTanh) lo = -6.0, hi = 6.0;
  const bool exact = Op == TosaOp::kAbs || Op == TosaOp::kNegate || Op == TosaOp::kCeil || Op == TosaOp::kFloor;
  // SIN/COS near their zeros: an absolute bound of a few fp32 ulp of 1.
  const bool periodic = Op == TosaOp::kSin || Op == TosaOp::kCos;
  CrossCheckCase c = make(Op, {tensor(rng, DType::kFloat32, d, lo, hi)}, DType::kFloat32, d,
                          exact ? kExact : (periodic ? Tolerance{1e-5, 1e-5} : kTranscendental));
  if (Op == TosaOp::kCeil || Op == TosaOp::kFloor) {
    for (float& v : c.inputs[0].data<float>())
      if (pick(rng, 0, 3) == 0) v = std::round(v);  // integral inputs stay as they are
  }
  if (Op == TosaOp::kNegate) {
    c.attrs.set("input1_zp", 0.0);
    c.attrs.set("output_zp", 0.0);
  }
  return c;
}

// The int32 bit operators, shifts, INTDIV and CLZ. Shift amounts are in [0, 31] and divisors
// non-zero (TOSA's REQUIREs); magnitudes spread over the 32 bits.
template <TosaOp Op>
CrossCheckCase integer(std::mt19937& rng) {
  const bool is_unary = Op == TosaOp::kBitwiseNot || Op == TosaOp::kClz;
  auto [a, b] = broadcast_pair(rng);
  if (is_unary) b = a;
  HostTensor x = tensor(rng, DType::kInt32, a, -2147483648.0, 2147483647.0);
  for (int32_t& v : x.data<int32_t>()) v >>= pick(rng, 0, 31);
  const bool is_shift =
      Op == TosaOp::kLogicalLeftShift || Op == TosaOp::kLogicalRightShift || Op == TosaOp::kArithmeticRightShift;
  HostTensor y =
      is_shift ? tensor(rng, DType::kInt32, b, 0.0, 31.0) : tensor(rng, DType::kInt32, b, -2147483648.0, 2147483647.0);
  if (!is_shift) {
    for (int32_t& v : y.data<int32_t>()) v = (v >> pick(rng, 0, 31)) | (Op == TosaOp::kIntdiv ? 1 : 0);
  }
  if (Op == TosaOp::kIntdiv) {  // INT32_MIN / -1 does not fit int32 (a REQUIRE)
    for (int32_t& v : x.data<int32_t>())
      if (v == INT32_MIN) v = INT32_MAX;
  }
  if (is_unary) return make(Op, {x}, DType::kInt32, a);
  CrossCheckCase c = make(Op, {x, y}, DType::kInt32, broadcast(a, b));
  if (Op == TosaOp::kArithmeticRightShift) c.attrs.set("round", int64_t{coin(rng)});
  return c;
}

template <DType Type, bool Nans = false>
CrossCheckCase clamp(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  CrossCheckCase c = make(TosaOp::kClamp, {tensor(rng, Type, d)}, Type, d);
  if (Type == DType::kFloat32) {
    const double a = static_cast<double>(pick(rng, -8, 8)) / 4, b = static_cast<double>(pick(rng, -8, 8)) / 4;
    c.attrs.set("min_val", std::min(a, b));
    c.attrs.set("max_val", std::max(a, b));
  } else {
    const auto range = ::univk::testing::default_range(Type);
    const int64_t a = pick(rng, static_cast<int64_t>(range.lo), static_cast<int64_t>(range.hi));
    const int64_t b = pick(rng, static_cast<int64_t>(range.lo), static_cast<int64_t>(range.hi));
    c.attrs.set("min_val", std::min(a, b));
    c.attrs.set("max_val", std::max(a, b));
  }
  c.attrs.set("nan_mode", with_nans(rng, Nans, c.inputs));
  return c;
}

// ---- windows ----------------------------------------------------------------------------------

// One spatial axis of a pool or convolution: the input size that gives `out` outputs exactly
// (TOSA's idiv_check), or 0 when none is at least 1.
int64_t input_size(int64_t out, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_lo, int64_t pad_hi) {
  const int64_t in = (out - 1) * stride + (kernel - 1) * dilation + 1 - pad_lo - pad_hi;
  return in >= 1 ? in : 0;
}

struct Window {
  Dims kernel, stride, dilation, pad;  // pad: top, bottom, left, right
  int64_t ih = 0, iw = 0, oh = 0, ow = 0;
};

// A random window with pad < kernel (pools need it; convolutions take it too).
Window random_window(std::mt19937& rng, bool dilated) {
  for (;;) {
    Window w;
    w.kernel = {pick(rng, 1, 4), pick(rng, 1, 4)};
    w.stride = {pick(rng, 1, 3), pick(rng, 1, 3)};
    w.dilation = {dilated ? pick(rng, 1, 2) : 1, dilated ? pick(rng, 1, 2) : 1};
    w.pad = {pick(rng, 0, w.kernel[0] - 1), pick(rng, 0, w.kernel[0] - 1), pick(rng, 0, w.kernel[1] - 1),
             pick(rng, 0, w.kernel[1] - 1)};
    w.oh = pick(rng, 1, 6);
    w.ow = pick(rng, 1, 6);
    w.ih = input_size(w.oh, w.kernel[0], w.stride[0], w.dilation[0], w.pad[0], w.pad[1]);
    w.iw = input_size(w.ow, w.kernel[1], w.stride[1], w.dilation[1], w.pad[2], w.pad[3]);
    if (w.ih > 0 && w.iw > 0) return w;
  }
}

template <TosaOp Op, DType Type, bool Nans = false>
CrossCheckCase pool(std::mt19937& rng) {
  const Window w = random_window(rng, false);
  const int64_t n = pick(rng, 1, 2), ch = pick(rng, 1, 6);
  CrossCheckCase c = make(Op, {tensor(rng, Type, {n, w.ih, w.iw, ch})}, Type, {n, w.oh, w.ow, ch},
                          Op == TosaOp::kAvgPool2d ? kRounded : kExact);
  c.attrs.set("kernel", w.kernel);
  c.attrs.set("stride", w.stride);
  c.attrs.set("pad", w.pad);
  if (Op == TosaOp::kMaxPool2d) {
    c.attrs.set("nan_mode", with_nans(rng, Nans, c.inputs));
  } else if (Type == DType::kFloat32) {
    c.attrs.set("acc_type", spirv::kAccFp32);
    c.attrs.set("input_zp", 0.0);
    c.attrs.set("output_zp", 0.0);
  } else {
    c.attrs.set("acc_type", spirv::kAccInt32);
    c.attrs.set("input_zp", pick(rng, -128, 127));
    c.attrs.set("output_zp", pick(rng, -128, 127));
  }
  return c;
}

// CONV2D (weights OHWI) or DEPTHWISE_CONV2D (weights HWCM); weights and bias are graph
// constants, as the exporter writes them. int8 x int8 accumulates to int32 with an int32 bias.
template <TosaOp Op, DType Type>
CrossCheckCase convolution(std::mt19937& rng) {
  const Window w = random_window(rng, true);
  const int64_t n = pick(rng, 1, 2), ic = pick(rng, 1, 6);
  const bool depthwise = Op == TosaOp::kDepthwiseConv2d;
  const int64_t m = depthwise ? pick(rng, 1, 3) : 1, oc = depthwise ? ic * m : pick(rng, 1, 6);
  const bool is_int = Type == DType::kInt8;
  const DType acc = is_int ? DType::kInt32 : DType::kFloat32;
  const Dims weight = depthwise ? Dims{w.kernel[0], w.kernel[1], ic, m} : Dims{oc, w.kernel[0], w.kernel[1], ic};
  const Dims bias = coin(rng) ? Dims{oc} : Dims{1};
  HostTensor x = is_int ? tensor(rng, Type, {n, w.ih, w.iw, ic}) : tensor(rng, Type, {n, w.ih, w.iw, ic}, -1.0, 1.0);
  HostTensor wt = is_int ? tensor(rng, Type, weight) : tensor(rng, Type, weight, -1.0, 1.0);
  HostTensor b = is_int ? tensor(rng, acc, bias, -1000.0, 1000.0) : tensor(rng, acc, bias, -1.0, 1.0);
  CrossCheckCase c = make(Op, {x, wt, b}, acc, {n, w.oh, w.ow, oc}, kAccumulated);
  c.graph_constant = {false, true, true};
  c.attrs.set("pad", w.pad);
  c.attrs.set("stride", w.stride);
  c.attrs.set("dilation", w.dilation);
  c.attrs.set("acc_type", is_int ? spirv::kAccInt32 : spirv::kAccFp32);
  c.attrs.set("local_bound", int64_t{0});
  if (is_int) {
    c.attrs.set("input_zp", pick(rng, -128, 127));
    c.attrs.set("weight_zp", pick(rng, -10, 10));
  } else {
    c.attrs.set("input_zp", 0.0);
    c.attrs.set("weight_zp", 0.0);
  }
  return c;
}

// MATMUL fp32, or int8 x int8 -> int32 with zero points.
template <DType Type>
CrossCheckCase matmul(std::mt19937& rng) {
  const int64_t n = pick(rng, 1, 3), h = pick(rng, 1, 9), k = pick(rng, 1, 17), w = pick(rng, 1, 9);
  const bool is_int = Type == DType::kInt8;
  CrossCheckCase c = make(TosaOp::kMatmul, {tensor(rng, Type, {n, h, k}), tensor(rng, Type, {n, k, w})},
                          is_int ? DType::kInt32 : DType::kFloat32, {n, h, w}, kAccumulated);
  if (is_int) {
    c.attrs.set("a_zp", pick(rng, -128, 127));
    c.attrs.set("b_zp", pick(rng, -128, 127));
  } else {
    c.attrs.set("a_zp", 0.0);
    c.attrs.set("b_zp", 0.0);
  }
  return c;
}

// TRANSPOSE_CONV2D (weights OHWI, graph constants like the exporter's); out_pad crops (negative)
// or grows (positive) each border, bounded by TOSA: out_pad > -kernel.
CrossCheckCase transpose_convolution(std::mt19937& rng) {
  const int64_t n = pick(rng, 1, 2), ih = pick(rng, 1, 5), iw = pick(rng, 1, 5), ic = pick(rng, 1, 5),
                oc = pick(rng, 1, 5), kh = pick(rng, 1, 3), kw = pick(rng, 1, 3);
  const Dims stride = {pick(rng, 1, 3), pick(rng, 1, 3)};
  const Dims out_pad = {pick(rng, 1 - kh, 2), pick(rng, 1 - kh, 2), pick(rng, 1 - kw, 2), pick(rng, 1 - kw, 2)};
  const int64_t oh = (ih - 1) * stride[0] + out_pad[0] + out_pad[1] + kh;
  const int64_t ow = (iw - 1) * stride[1] + out_pad[2] + out_pad[3] + kw;
  if (oh < 1 || ow < 1) return transpose_convolution(rng);  // redraw: the output must not be empty
  CrossCheckCase c = make(TosaOp::kTransposeConv2d,
                          {tensor(rng, DType::kFloat32, {n, ih, iw, ic}, -1.0, 1.0),
                           tensor(rng, DType::kFloat32, {oc, kh, kw, ic}, -1.0, 1.0),
                           tensor(rng, DType::kFloat32, coin(rng) ? Dims{oc} : Dims{1}, -1.0, 1.0)},
                          DType::kFloat32, {n, oh, ow, oc}, kAccumulated);
  c.graph_constant = {false, true, true};
  c.attrs.set("out_pad", out_pad);
  c.attrs.set("stride", stride);
  c.attrs.set("acc_type", spirv::kAccFp32);
  c.attrs.set("local_bound", int64_t{0});
  c.attrs.set("input_zp", 0.0);
  c.attrs.set("weight_zp", 0.0);
  return c;
}

// CONV3D (weights [OC,KD,KH,KW,IC], graph constants): a random window per axis with pad < kernel.
CrossCheckCase convolution3d(std::mt19937& rng) {
  Dims pad(6), stride(3), dilation(3), kernel(3), in(3), out(3);
  for (size_t a = 0; a < 3; ++a) {
    for (;;) {
      kernel[a] = pick(rng, 1, 3), stride[a] = pick(rng, 1, 2), dilation[a] = pick(rng, 1, 2);
      pad[2 * a] = pick(rng, 0, kernel[a] - 1), pad[2 * a + 1] = pick(rng, 0, kernel[a] - 1);
      out[a] = pick(rng, 1, 4);
      in[a] = input_size(out[a], kernel[a], stride[a], dilation[a], pad[2 * a], pad[2 * a + 1]);
      if (in[a] > 0) break;
    }
  }
  const int64_t n = pick(rng, 1, 2), ic = pick(rng, 1, 4), oc = pick(rng, 1, 4);
  CrossCheckCase c = make(TosaOp::kConv3d,
                          {tensor(rng, DType::kFloat32, {n, in[0], in[1], in[2], ic}, -1.0, 1.0),
                           tensor(rng, DType::kFloat32, {oc, kernel[0], kernel[1], kernel[2], ic}, -1.0, 1.0),
                           tensor(rng, DType::kFloat32, coin(rng) ? Dims{oc} : Dims{1}, -1.0, 1.0)},
                          DType::kFloat32, {n, out[0], out[1], out[2], oc}, kAccumulated);
  c.graph_constant = {false, true, true};
  c.attrs.set("pad", pad);
  c.attrs.set("stride", stride);
  c.attrs.set("dilation", dilation);
  c.attrs.set("acc_type", spirv::kAccFp32);
  c.attrs.set("local_bound", int64_t{0});
  c.attrs.set("input_zp", 0.0);
  c.attrs.set("weight_zp", 0.0);
  return c;
}

// FFT2D (complex input, forward or inverse) and RFFT2D (real input): [N,H,W] with H and W powers
// of two; two results. Sums of up to 64 terms of fp32 sines and cosines.
template <TosaOp Op>
CrossCheckCase fourier(std::mt19937& rng) {
  const int64_t n = pick(rng, 1, 2), h = int64_t{1} << pick(rng, 1, 3), w = int64_t{1} << pick(rng, 1, 3);
  const bool complex_input = Op == TosaOp::kFft2d;
  std::vector<HostTensor> inputs = {tensor(rng, DType::kFloat32, {n, h, w}, -1.0, 1.0)};
  if (complex_input) inputs.push_back(tensor(rng, DType::kFloat32, {n, h, w}, -1.0, 1.0));
  const Dims out = {n, h, complex_input ? w : w / 2 + 1};
  CrossCheckCase c = make(Op, std::move(inputs), DType::kFloat32, out, Tolerance{1e-4, 1e-5});
  c.output2 = spirv::TosaTensorType{DType::kFloat32, out};
  if (complex_input) c.attrs.set("inverse", int64_t{coin(rng) ? 1 : 0});
  c.attrs.set("local_bound", int64_t{0});
  return c;
}

// ---- comparison, logic, selection, gather -------------------------------------------------------

// EQUAL, GREATER, GREATER_EQUAL of two broadcasting fp32 tensors -> bool. Values are drawn from
// a few integers so that ties (where EQUAL and GREATER_EQUAL differ from GREATER) are common.
template <TosaOp Op>
CrossCheckCase comparison(std::mt19937& rng) {
  auto [a, b] = broadcast_pair(rng);
  HostTensor x = tensor(rng, DType::kFloat32, a, -3.0, 3.0), y = tensor(rng, DType::kFloat32, b, -3.0, 3.0);
  for (HostTensor* t : {&x, &y})
    for (float& v : t->data<float>()) v = std::round(v);
  return make(Op, {x, y}, DType::kBool, broadcast(a, b));
}

template <TosaOp Op>
CrossCheckCase logical(std::mt19937& rng) {
  auto [a, b] = broadcast_pair(rng);
  if (Op == TosaOp::kLogicalNot) return make(Op, {tensor(rng, DType::kBool, a)}, DType::kBool, a);
  return make(Op, {tensor(rng, DType::kBool, a), tensor(rng, DType::kBool, b)}, DType::kBool, broadcast(a, b));
}

// SELECT(condition bool, on_true, on_false), all three broadcasting to one shape.
CrossCheckCase selection(std::mt19937& rng) {
  auto [a, b] = broadcast_pair(rng);
  Dims cond = broadcast(a, b);
  for (auto& d : cond)
    if (coin(rng) && coin(rng)) d = 1;
  return make(TosaOp::kSelect,
              {tensor(rng, DType::kBool, cond), tensor(rng, DType::kFloat32, a), tensor(rng, DType::kFloat32, b)},
              DType::kFloat32, broadcast(a, b), kExact);
}

// GATHER: values [N,K,C], int32 indices [N,W] in [0, K) -> [N,W,C].
CrossCheckCase gather(std::mt19937& rng) {
  const int64_t n = pick(rng, 1, 3), k = pick(rng, 1, 9), c = pick(rng, 1, 6), w = pick(rng, 1, 9);
  return make(TosaOp::kGather,
              {tensor(rng, DType::kFloat32, {n, k, c}), tensor(rng, DType::kInt32, {n, w}, 0.0, double(k - 1))},
              DType::kFloat32, {n, w, c}, kExact);
}

// SCATTER: values_in [N,K,C], W <= K distinct int32 indices per batch in [0, K) (TOSA requires
// that no row is written twice), input [N,W,C] -> [N,K,C].
CrossCheckCase scatter(std::mt19937& rng) {
  const int64_t n = pick(rng, 1, 3), k = pick(rng, 1, 9), c = pick(rng, 1, 6), w = pick(rng, 1, k);
  HostTensor indices(DType::kInt32, Shape{n, w});
  for (int64_t b = 0; b < n; ++b) {
    std::vector<int32_t> rows(static_cast<size_t>(k));
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    for (int64_t j = 0; j < w; ++j)
      indices.data<int32_t>()[static_cast<size_t>(b * w + j)] = rows[static_cast<size_t>(j)];
  }
  return make(TosaOp::kScatter,
              {tensor(rng, DType::kFloat32, {n, k, c}), indices, tensor(rng, DType::kFloat32, {n, w, c})},
              DType::kFloat32, {n, k, c}, kExact);
}

// REVERSE along a random axis, any rank from 1 to 4.
template <DType Type>
CrossCheckCase reverse(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  CrossCheckCase c = make(TosaOp::kReverse, {tensor(rng, Type, d)}, Type, d, kExact);
  c.attrs.set("axis", pick(rng, 0, static_cast<int64_t>(d.size()) - 1));
  return c;
}

// ---- reductions -------------------------------------------------------------------------------

// REDUCE_* and ARGMAX over a random axis; `Type` is the input's element type.
template <TosaOp Op, bool Nans = false, DType Type = DType::kFloat32>
CrossCheckCase reduce(std::mt19937& rng) {
  const Dims d = random_dims(rng, Op == TosaOp::kArgmax ? 2 : 1, 4);
  const int64_t axis = pick(rng, 0, static_cast<int64_t>(d.size()) - 1);
  Dims out = d;
  if (Op == TosaOp::kArgmax) {
    out.erase(out.begin() + axis);
  } else {
    out[static_cast<size_t>(axis)] = 1;
  }
  const bool accumulates = Op == TosaOp::kReduceSum || Op == TosaOp::kReduceProduct;
  HostTensor x = Type == DType::kInt32 ? tensor(rng, Type, d, -2147483648.0, 2147483647.0) : tensor(rng, Type, d);
  CrossCheckCase c = make(Op, {x}, Op == TosaOp::kArgmax ? DType::kInt32 : Type, out,
                          accumulates && Type == DType::kFloat32 ? kAccumulated : kExact);
  c.attrs.set("axis", axis);
  if (Op == TosaOp::kReduceMax || Op == TosaOp::kReduceMin || Op == TosaOp::kArgmax)
    c.attrs.set("nan_mode", with_nans(rng, Nans, c.inputs));
  return c;
}

// ---- data movement ----------------------------------------------------------------------------

template <DType Type>
CrossCheckCase reshape(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  int64_t total = std::accumulate(d.begin(), d.end(), int64_t{1}, std::multiplies<>());
  // Split the element count into 1-4 factors.
  Dims out;
  const int64_t rank = pick(rng, 1, 4);
  for (int64_t i = 0; i + 1 < rank; ++i) {
    Dims divisors;
    for (int64_t f = 1; f <= total; ++f)
      if (total % f == 0) divisors.push_back(f);
    const int64_t f = divisors[static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(divisors.size()) - 1))];
    out.push_back(f);
    total /= f;
  }
  out.push_back(total);
  CrossCheckCase c = make(TosaOp::kReshape, {tensor(rng, Type, d)}, Type, out);
  c.attrs.set("shape", out);
  return c;
}

template <DType Type>
CrossCheckCase transpose(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 5, 1, 5);
  Dims perms(d.size());
  std::iota(perms.begin(), perms.end(), 0);
  std::shuffle(perms.begin(), perms.end(), rng);
  Dims out(d.size());
  for (size_t i = 0; i < d.size(); ++i) out[i] = d[static_cast<size_t>(perms[i])];
  CrossCheckCase c = make(TosaOp::kTranspose, {tensor(rng, Type, d)}, Type, out);
  c.attrs.set("perms", perms);
  return c;
}

CrossCheckCase concat(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  const int64_t axis = pick(rng, 0, static_cast<int64_t>(d.size()) - 1);
  std::vector<HostTensor> inputs;
  Dims out = d;
  out[static_cast<size_t>(axis)] = 0;
  for (int64_t i = pick(rng, 1, 3); i > 0; --i) {
    Dims part = d;
    part[static_cast<size_t>(axis)] = pick(rng, 1, 4);
    out[static_cast<size_t>(axis)] += part[static_cast<size_t>(axis)];
    inputs.push_back(tensor(rng, DType::kFloat32, part));
  }
  CrossCheckCase c = make(TosaOp::kConcat, std::move(inputs), DType::kFloat32, out);
  c.attrs.set("axis", axis);
  return c;
}

CrossCheckCase slice(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  Dims start(d.size()), size(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    start[i] = pick(rng, 0, d[i] - 1);
    size[i] = pick(rng, 1, d[i] - start[i]);
  }
  CrossCheckCase c = make(TosaOp::kSlice, {tensor(rng, DType::kFloat32, d)}, DType::kFloat32, size);
  c.attrs.set("start", start);
  c.attrs.set("size", size);
  return c;
}

CrossCheckCase pad(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  Dims padding, out = d;
  for (size_t i = 0; i < d.size(); ++i) {
    padding.push_back(pick(rng, 0, 2));
    padding.push_back(pick(rng, 0, 2));
    out[i] += padding[2 * i] + padding[2 * i + 1];
  }
  CrossCheckCase c = make(TosaOp::kPad, {tensor(rng, DType::kFloat32, d)}, DType::kFloat32, out);
  c.attrs.set("padding", padding);
  c.attrs.set("pad_const", static_cast<double>(pick(rng, -8, 8)) / 4);
  return c;
}

CrossCheckCase tile(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4, 1, 4);
  Dims multiples(d.size()), out(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    multiples[i] = pick(rng, 1, 3);
    out[i] = d[i] * multiples[i];
  }
  CrossCheckCase c = make(TosaOp::kTile, {tensor(rng, DType::kFloat32, d)}, DType::kFloat32, out);
  c.attrs.set("multiples", multiples);
  return c;
}

// RESIZE fp32, NEAREST_NEIGHBOR (1) or BILINEAR (2): scale n/d with n, d in [1, 8] (d < 16 n),
// offset in [-n, 16 n), border in [-16 n, n) chosen so that the output size is exact.
CrossCheckCase resize(std::mt19937& rng) {
  for (;;) {
    const int64_t n = pick(rng, 1, 2), c = pick(rng, 1, 4);
    Dims scale, offset, border, in(2), out(2);
    bool fits = true;
    for (size_t axis = 0; axis < 2; ++axis) {
      const int64_t sn = pick(rng, 1, 8), sd = pick(rng, 1, 8);
      const int64_t off = pick(rng, -sn, sn);
      in[axis] = pick(rng, 1, 6);
      const int64_t span = (in[axis] - 1) * sn - off;
      const int64_t rem = ((span % sd) + sd) % sd;
      const int64_t bord = -rem;  // in (-d, 0], within [-16 n, n)
      if (span + bord < 0) fits = false;
      out[axis] = (span + bord) / sd + 1;
      scale.push_back(sn);
      scale.push_back(sd);
      offset.push_back(off);
      border.push_back(bord);
    }
    if (!fits || out[0] > 24 || out[1] > 24) continue;
    const int64_t mode = pick(rng, 1, 2);
    CrossCheckCase r = make(TosaOp::kResize, {tensor(rng, DType::kFloat32, {n, in[0], in[1], c})}, DType::kFloat32,
                            {n, out[0], out[1], c}, mode == 1 ? kExact : kRounded);
    r.attrs.set("mode", mode);
    r.attrs.set("scale", scale);
    r.attrs.set("offset", offset);
    r.attrs.set("border", border);
    return r;
  }
}

// ---- types and quantization -------------------------------------------------------------------

template <DType From, DType To>
CrossCheckCase cast(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  // Floats cover the saturating range of the integer types and ties (x.5) for round-half-even.
  HostTensor x = From == DType::kFloat32 ? tensor(rng, From, d, -300.0, 300.0)
                 : From == DType::kInt32 ? tensor(rng, From, d, -100000.0, 100000.0)
                                         : tensor(rng, From, d);
  if (From == DType::kFloat32) {
    auto v = x.data<float>();
    for (size_t i = 0; i < v.size(); i += 3) v[i] = std::round(v[i]) + 0.5f;
  }
  return make(TosaOp::kCast, {x}, To, d);
}

// RESCALE with scale32 (multiplier in [2^30, 2^31)) or 16-bit multipliers, SINGLE or DOUBLE
// rounding, per tensor or per channel (the last dim); shifts keep input - input_zp within the
// spec's apply_scale range and the scale where outputs saturate only sometimes.
template <DType From, DType To>
CrossCheckCase rescale(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  HostTensor x = From == DType::kInt32 ? tensor(rng, From, d, -200000.0, 200000.0) : tensor(rng, From, d);
  CrossCheckCase c = make(TosaOp::kRescale, {x}, To, d);
  const bool scale32 = coin(rng), per_channel = coin(rng);
  const int64_t channels = per_channel ? d.back() : 1;
  // log2 of the scale: i32 -> i8 shrinks, i8 -> i32 may grow, i8 -> i8 stays near 1.
  const int64_t log_lo = From == DType::kInt32 ? -14 : (To == DType::kInt32 ? -2 : -3);
  const int64_t log_hi = From == DType::kInt32 ? -7 : (To == DType::kInt32 ? 10 : 1);
  Dims multiplier, shift;
  for (int64_t i = 0; i < channels; ++i) {
    const int64_t bits = scale32 ? 30 : 14;
    multiplier.push_back(pick(rng, int64_t{1} << bits, (int64_t{1} << (bits + 1)) - 1));
    shift.push_back(bits - pick(rng, log_lo, log_hi));
  }
  c.attrs.set("scale32", int64_t{scale32});
  c.attrs.set("rounding_mode", scale32 && coin(rng) ? spirv::kRoundingDouble : spirv::kRoundingSingle);
  c.attrs.set("per_channel", int64_t{per_channel});
  c.attrs.set("input_unsigned", int64_t{0});
  c.attrs.set("output_unsigned", int64_t{0});
  c.attrs.set("multiplier", multiplier);
  c.attrs.set("shift", shift);
  c.attrs.set("input_zp", From == DType::kInt8 ? pick(rng, -128, 127) : int64_t{0});
  c.attrs.set("output_zp", To == DType::kInt8 ? pick(rng, -128, 127) : int64_t{0});
  return c;
}

CrossCheckCase table(std::mt19937& rng) {
  const Dims d = random_dims(rng, 1, 4);
  CrossCheckCase c =
      make(TosaOp::kTable, {tensor(rng, DType::kInt8, d), tensor(rng, DType::kInt8, {256})}, DType::kInt8, d);
  c.graph_constant = {false, true};
  return c;
}

constexpr DType kF32 = DType::kFloat32, kI8 = DType::kInt8, kI32 = DType::kInt32, kBool = DType::kBool;

// clang-format off
const CrossCheckGenerator kGenerators[] = {
    {"ADD fp32", TosaOp::kAdd, binary<TosaOp::kAdd, kF32>},
    {"ADD int32", TosaOp::kAdd, binary<TosaOp::kAdd, kI32>},
    {"SUB fp32", TosaOp::kSub, binary<TosaOp::kSub, kF32>},
    {"SUB int32", TosaOp::kSub, binary<TosaOp::kSub, kI32>},
    {"MUL fp32", TosaOp::kMul, binary<TosaOp::kMul, kF32>},
    {"MUL int32", TosaOp::kMul, binary<TosaOp::kMul, kI32>},
    {"MAXIMUM fp32", TosaOp::kMaximum, binary<TosaOp::kMaximum, kF32>},
    {"MAXIMUM int32", TosaOp::kMaximum, binary<TosaOp::kMaximum, kI32>},
    {"MINIMUM fp32", TosaOp::kMinimum, binary<TosaOp::kMinimum, kF32>},
    {"MINIMUM int32", TosaOp::kMinimum, binary<TosaOp::kMinimum, kI32>},
    {"POW fp32", TosaOp::kPow, binary<TosaOp::kPow, kF32>},
    {"SIGMOID fp32", TosaOp::kSigmoid, unary<TosaOp::kSigmoid>},
    {"TANH fp32", TosaOp::kTanh, unary<TosaOp::kTanh>},
    {"EXP fp32", TosaOp::kExp, unary<TosaOp::kExp>},
    {"LOG fp32", TosaOp::kLog, unary<TosaOp::kLog>},
    {"ABS fp32", TosaOp::kAbs, unary<TosaOp::kAbs>},
    {"NEGATE fp32", TosaOp::kNegate, unary<TosaOp::kNegate>},
    {"RECIPROCAL fp32", TosaOp::kReciprocal, unary<TosaOp::kReciprocal>},
    {"RSQRT fp32", TosaOp::kRsqrt, unary<TosaOp::kRsqrt>},
    {"ERF fp32", TosaOp::kErf, unary<TosaOp::kErf>},
    {"CEIL fp32", TosaOp::kCeil, unary<TosaOp::kCeil>},
    {"FLOOR fp32", TosaOp::kFloor, unary<TosaOp::kFloor>},
    {"SIN fp32", TosaOp::kSin, unary<TosaOp::kSin>},
    {"COS fp32", TosaOp::kCos, unary<TosaOp::kCos>},
    {"BITWISE_AND int32", TosaOp::kBitwiseAnd, integer<TosaOp::kBitwiseAnd>},
    {"BITWISE_OR int32", TosaOp::kBitwiseOr, integer<TosaOp::kBitwiseOr>},
    {"BITWISE_XOR int32", TosaOp::kBitwiseXor, integer<TosaOp::kBitwiseXor>},
    {"BITWISE_NOT int32", TosaOp::kBitwiseNot, integer<TosaOp::kBitwiseNot>},
    {"INTDIV int32", TosaOp::kIntdiv, integer<TosaOp::kIntdiv>},
    {"LOGICAL_LEFT_SHIFT int32", TosaOp::kLogicalLeftShift, integer<TosaOp::kLogicalLeftShift>},
    {"LOGICAL_RIGHT_SHIFT int32", TosaOp::kLogicalRightShift, integer<TosaOp::kLogicalRightShift>},
    {"ARITHMETIC_RIGHT_SHIFT int32", TosaOp::kArithmeticRightShift, integer<TosaOp::kArithmeticRightShift>},
    {"CLZ int32", TosaOp::kClz, integer<TosaOp::kClz>},
    {"CLAMP fp32", TosaOp::kClamp, clamp<kF32>},
    {"CLAMP int32", TosaOp::kClamp, clamp<kI32>},
    {"AVG_POOL2D fp32", TosaOp::kAvgPool2d, pool<TosaOp::kAvgPool2d, kF32>},
    {"AVG_POOL2D int8", TosaOp::kAvgPool2d, pool<TosaOp::kAvgPool2d, kI8>},
    {"MAX_POOL2D fp32", TosaOp::kMaxPool2d, pool<TosaOp::kMaxPool2d, kF32>},
    {"MAX_POOL2D int8", TosaOp::kMaxPool2d, pool<TosaOp::kMaxPool2d, kI8>},
    {"CONV2D fp32", TosaOp::kConv2d, convolution<TosaOp::kConv2d, kF32>},
    {"CONV2D int8", TosaOp::kConv2d, convolution<TosaOp::kConv2d, kI8>},
    {"DEPTHWISE_CONV2D fp32", TosaOp::kDepthwiseConv2d, convolution<TosaOp::kDepthwiseConv2d, kF32>},
    {"DEPTHWISE_CONV2D int8", TosaOp::kDepthwiseConv2d, convolution<TosaOp::kDepthwiseConv2d, kI8>},
    {"MATMUL fp32", TosaOp::kMatmul, matmul<kF32>},
    {"MATMUL int8", TosaOp::kMatmul, matmul<kI8>},
    {"REDUCE_SUM fp32", TosaOp::kReduceSum, reduce<TosaOp::kReduceSum>},
    {"REDUCE_MAX fp32", TosaOp::kReduceMax, reduce<TosaOp::kReduceMax>},
    {"REDUCE_MAX int32", TosaOp::kReduceMax, reduce<TosaOp::kReduceMax, false, kI32>},
    {"REDUCE_MIN fp32", TosaOp::kReduceMin, reduce<TosaOp::kReduceMin>},
    {"REDUCE_MIN int32", TosaOp::kReduceMin, reduce<TosaOp::kReduceMin, false, kI32>},
    {"REDUCE_PRODUCT fp32", TosaOp::kReduceProduct, reduce<TosaOp::kReduceProduct>},
    {"REDUCE_ALL bool", TosaOp::kReduceAll, reduce<TosaOp::kReduceAll, false, kBool>},
    {"REDUCE_ANY bool", TosaOp::kReduceAny, reduce<TosaOp::kReduceAny, false, kBool>},
    {"ARGMAX fp32", TosaOp::kArgmax, reduce<TosaOp::kArgmax>},
    {"RESHAPE fp32", TosaOp::kReshape, reshape<kF32>},
    {"RESHAPE int8", TosaOp::kReshape, reshape<kI8>},
    {"TRANSPOSE fp32", TosaOp::kTranspose, transpose<kF32>},
    {"TRANSPOSE int8", TosaOp::kTranspose, transpose<kI8>},
    {"CONCAT fp32", TosaOp::kConcat, concat},
    {"SLICE fp32", TosaOp::kSlice, slice},
    {"PAD fp32", TosaOp::kPad, pad},
    {"TILE fp32", TosaOp::kTile, tile},
    {"RESIZE fp32", TosaOp::kResize, resize},
    {"CAST fp32->int8", TosaOp::kCast, cast<kF32, kI8>},
    {"CAST int8->fp32", TosaOp::kCast, cast<kI8, kF32>},
    {"CAST fp32->int32", TosaOp::kCast, cast<kF32, kI32>},
    {"CAST int32->int8", TosaOp::kCast, cast<kI32, kI8>},
    {"CAST int8->bool", TosaOp::kCast, cast<kI8, kBool>},
    {"RESCALE int8->int8", TosaOp::kRescale, rescale<kI8, kI8>},
    {"RESCALE int8->int32", TosaOp::kRescale, rescale<kI8, kI32>},
    {"RESCALE int32->int8", TosaOp::kRescale, rescale<kI32, kI8>},
    {"TABLE int8", TosaOp::kTable, table},
    {"TRANSPOSE_CONV2D fp32", TosaOp::kTransposeConv2d, transpose_convolution},
    {"EQUAL fp32", TosaOp::kEqual, comparison<TosaOp::kEqual>},
    {"GREATER fp32", TosaOp::kGreater, comparison<TosaOp::kGreater>},
    {"GREATER_EQUAL fp32", TosaOp::kGreaterEqual, comparison<TosaOp::kGreaterEqual>},
    {"LOGICAL_AND bool", TosaOp::kLogicalAnd, logical<TosaOp::kLogicalAnd>},
    {"LOGICAL_OR bool", TosaOp::kLogicalOr, logical<TosaOp::kLogicalOr>},
    {"LOGICAL_XOR bool", TosaOp::kLogicalXor, logical<TosaOp::kLogicalXor>},
    {"LOGICAL_NOT bool", TosaOp::kLogicalNot, logical<TosaOp::kLogicalNot>},
    {"SELECT fp32", TosaOp::kSelect, selection},
    {"GATHER fp32", TosaOp::kGather, gather},
    {"REVERSE fp32", TosaOp::kReverse, reverse<kF32>},
    {"REVERSE int8", TosaOp::kReverse, reverse<kI8>},
    {"SCATTER fp32", TosaOp::kScatter, scatter},
    {"CONV3D fp32", TosaOp::kConv3d, convolution3d},
    {"FFT2D fp32", TosaOp::kFft2d, fourier<TosaOp::kFft2d>},
    {"RFFT2D fp32", TosaOp::kRfft2d, fourier<TosaOp::kRfft2d>},
    // NaN inputs (nan_mode PROPAGATE).
    {"MAXIMUM fp32 NaN", TosaOp::kMaximum, binary<TosaOp::kMaximum, kF32, true>},
    {"MINIMUM fp32 NaN", TosaOp::kMinimum, binary<TosaOp::kMinimum, kF32, true>},
    {"CLAMP fp32 NaN", TosaOp::kClamp, clamp<kF32, true>},
    {"MAX_POOL2D fp32 NaN", TosaOp::kMaxPool2d, pool<TosaOp::kMaxPool2d, kF32, true>},
    {"REDUCE_MAX fp32 NaN", TosaOp::kReduceMax, reduce<TosaOp::kReduceMax, true>},
    {"REDUCE_MIN fp32 NaN", TosaOp::kReduceMin, reduce<TosaOp::kReduceMin, true>},
    {"ARGMAX fp32 NaN", TosaOp::kArgmax, reduce<TosaOp::kArgmax, true>},
};
// clang-format on

}  // namespace

std::span<const CrossCheckGenerator> crosscheck_generators() { return kGenerators; }

CrossCheckCase make_crosscheck_case(const CrossCheckGenerator& generator, uint32_t seed) {
  uint32_t name_hash = 2166136261u;  // FNV-1a: the same on every machine, unlike std::hash
  for (const char* p = generator.variant; *p != '\0'; ++p)
    name_hash = (name_hash ^ static_cast<uint8_t>(*p)) * 16777619u;
  std::seed_seq seq{name_hash, seed};
  std::mt19937 rng(seq);
  return generator.make(rng);
}

std::string describe(const CrossCheckGenerator& generator, uint32_t seed, const CrossCheckCase& c) {
  std::string s = std::string(generator.variant) + " seed " + std::to_string(seed) + ":";
  for (size_t i = 0; i < c.inputs.size(); ++i)
    s += " " + c.inputs[i].describe() + (c.graph_constant[i] ? "(constant)" : "");
  s += " -> " + spirv::to_string(c.output);
  if (c.output2) s += ", " + spirv::to_string(*c.output2);
  return s + " " + c.attrs.to_string();
}

Attributes reference_attributes(const CrossCheckCase& c) {
  Attributes a = c.attrs;
  for (const char* name : {"input_zp", "output_zp", "weight_zp", "a_zp", "b_zp", "input1_zp"})
    if (a.has(name)) a.set(name, static_cast<int64_t>(a.get_float(name).value()));
  if (c.op == spirv::TosaOp::kCast || c.op == spirv::TosaOp::kRescale)
    a.set("output_type", std::string(dtype_name(c.output.dtype)));
  return a;
}

}  // namespace univk::backends::vgf_test
