// conv2d_i8 (plain and integer-dot-product variants) against the TOSA reference: CONV2D and
// DEPTHWISE_CONV2D on int8 with input and weight zero points, odd channel counts (chunks that
// cross taps), stride, dilation, padding, NHWC and NCHW inputs, word and byte loads (offsets
// that break the word alignment, before planning and through add_binding_offsets), and the
// fused epilogue: the int32 accumulator's clamp, RESCALE to int8 (per tensor and per channel,
// SINGLE_ROUND and DOUBLE_ROUND, output zero point), the int8 clamp, an int8 TABLE and a
// residual add (RESCALE of the result and of a strided skip tensor to int32, ADD, RESCALE to
// int8, CLAMP, each reference operator run separately). Bit-exact. The Conv2dI8Coopmat* tests
// run the cooperative-matrix kernel with every int8 fragment the device lists (they skip,
// saying so, on a device that lists none) on shapes that leave every tile ragged.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "kernel_runner.h"
#include "univk/kernels/conv2d_i8.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::attrs;
using univk::testing::random_tensor;

struct I8Case {
  int64_t n, c, h, w, oc, kh, kw, stride, pad, dilation;
  bool depthwise;  // oc = c * multiplier
  int32_t in_zp, w_zp;
};

// The residual add's parameters (kernels::Residual less the skip's layout, see I8Options).
struct I8Residual {
  RescaleScale y, skip, sum;
  int32_t y_zp = 0, skip_zp = 0, out_zp = 0, lo = -128, hi = 127;
  std::optional<std::pair<int32_t, int32_t>> sum_clamp;
};

struct I8Epilogue {
  std::optional<std::pair<int32_t, int32_t>> acc_clamp;
  bool requantize = false, per_channel = false, double_round = false, table = false;
  int32_t out_zp = 0, lo = -128, hi = 127;
  std::optional<I8Residual> residual;
};

struct I8Options {
  bool nchw_input = false;
  bool bias_broadcast = false;
  std::array<uint64_t, 5> offsets = {0, 0, 0, 0, 0};
  std::array<uint32_t, 5> added = {0, 0, 0, 0, 0};
  // The skip tensor: NCHW or NHWC with `skip_pad` unused elements after each row, its first
  // element at skip_offset + skip_added (skip_added through add_binding_offsets).
  bool nchw_skip = false;
  int64_t skip_pad = 0;
  uint64_t skip_offset = 0;
  uint32_t skip_added = 0;
};

Attributes rescale_attrs(const RescaleScale& s, int32_t input_zp, int32_t output_zp, const char* output_type) {
  return attrs({{"multiplier", std::vector<int64_t>{s.multiplier}},
                {"shift", std::vector<int64_t>{s.shift}},
                {"rounding_mode", int64_t{s.double_round ? 3 : 1}},
                {"input_zp", int64_t{input_zp}},
                {"output_zp", int64_t{output_zp}},
                {"output_type", std::string(output_type)}});
}

int64_t at(const ActivationStrides& s, int64_t n, int64_t c, int64_t y, int64_t x) {
  return n * s.n + c * s.c + y * s.h + x * s.w;
}

template <typename T>
void put(std::vector<uint8_t>& bytes, uint64_t index, T value) {
  if (bytes.size() < (index + 1) * sizeof(T)) bytes.resize((index + 1) * sizeof(T), 0);
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

HostTensor run_tosa(const char* op, const Attributes& a, std::vector<HostTensor> inputs) {
  auto r = reference::run_tosa(op, a, inputs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().to_string();
  return r.ok() ? (*r)[0] : HostTensor();
}

// Returns the planned FLAGS after add_binding_offsets. With `coopmat`, the cooperative-matrix
// kernel with that fragment; with `depthwise_kernel`, kDepthwiseI8.
uint32_t expect_conv_i8(const I8Case& c, const I8Epilogue& e, const I8Options& o, bool dot, uint32_t seed,
                        std::optional<I8Fragment> coopmat = std::nullopt, bool depthwise_kernel = false) {
  const auto device = testing::test_device();
  EXPECT_NE(device, nullptr);
  if (!device) return 0;
  const int64_t icg = c.depthwise ? 1 : c.c, groups = c.depthwise ? c.c : 1;
  const HostTensor x = random_tensor(DType::kInt8, Shape{c.n, c.h, c.w, c.c}, seed);
  const Shape w_shape = c.depthwise ? Shape{c.kh, c.kw, c.c, c.oc / c.c} : Shape{c.oc, c.kh, c.kw, c.c};
  const HostTensor w = random_tensor(DType::kInt8, w_shape, seed + 1);
  const HostTensor b = random_tensor(DType::kInt32, Shape{o.bias_broadcast ? 1 : c.oc}, seed + 2, -5000, 5000);
  const Attributes conv_attrs = attrs({{"pad", std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad}},
                                       {"stride", std::vector<int64_t>{c.stride, c.stride}},
                                       {"dilation", std::vector<int64_t>{c.dilation, c.dilation}},
                                       {"input_zp", int64_t{c.in_zp}},
                                       {"weight_zp", int64_t{c.w_zp}}});
  HostTensor want = run_tosa(c.depthwise ? "DEPTHWISE_CONV2D" : "CONV2D", conv_attrs, {x, w, b});
  if (want.shape().rank() != 4) return 0;
  const int64_t oh = want.shape()[1], ow = want.shape()[2];
  if (e.acc_clamp) {
    want = run_tosa(
        "CLAMP", attrs({{"min_val", int64_t{e.acc_clamp->first}}, {"max_val", int64_t{e.acc_clamp->second}}}), {want});
  }
  std::vector<int64_t> multiplier, shift;
  if (e.requantize) {
    std::mt19937 rng(seed + 3);
    const size_t channels = e.per_channel ? size_t(c.oc) : 1;
    for (size_t i = 0; i < channels; ++i) {
      multiplier.push_back(std::uniform_int_distribution<int64_t>(int64_t{1} << 30, INT32_MAX)(rng));
      shift.push_back(std::uniform_int_distribution<int64_t>(34, 42)(rng));
    }
    want = run_tosa("RESCALE",
                    attrs({{"multiplier", multiplier},
                           {"shift", shift},
                           {"per_channel", int64_t{e.per_channel ? 1 : 0}},
                           {"rounding_mode", int64_t{e.double_round ? 3 : 1}},
                           {"input_zp", int64_t{0}},
                           {"output_zp", int64_t{e.out_zp}},
                           {"output_type", std::string("int8")}}),
                    {want});
    want = run_tosa("CLAMP", attrs({{"min_val", int64_t{e.lo}}, {"max_val", int64_t{e.hi}}}), {want});
  }
  const HostTensor table = random_tensor(DType::kInt8, Shape{256}, seed + 4);
  if (e.table) want = run_tosa("TABLE", {}, {want, table});
  const HostTensor skip = random_tensor(DType::kInt8, Shape{c.n, oh, ow, c.oc}, seed + 5);
  if (const auto& r = e.residual) {
    const HostTensor a = run_tosa("RESCALE", rescale_attrs(r->y, r->y_zp, 0, "int32"), {want});
    const HostTensor b = run_tosa("RESCALE", rescale_attrs(r->skip, r->skip_zp, 0, "int32"), {skip});
    HostTensor sum = run_tosa("ADD", {}, {a, b});
    if (r->sum_clamp) {
      sum = run_tosa("CLAMP",
                     attrs({{"min_val", int64_t{r->sum_clamp->first}}, {"max_val", int64_t{r->sum_clamp->second}}}),
                     {sum});
    }
    want = run_tosa("RESCALE", rescale_attrs(r->sum, 0, r->out_zp, "int8"), {sum});
    want = run_tosa("CLAMP", attrs({{"min_val", int64_t{r->lo}}, {"max_val", int64_t{r->hi}}}), {want});
  }

  Conv2dI8Problem p;
  p.conv.batch = c.n, p.conv.in_channels = c.c, p.conv.in_h = c.h, p.conv.in_w = c.w;
  p.conv.out_channels = c.oc, p.conv.out_h = oh, p.conv.out_w = ow;
  p.conv.kernel_h = c.kh, p.conv.kernel_w = c.kw;
  p.conv.stride_h = p.conv.stride_w = c.stride;
  p.conv.dilation_h = p.conv.dilation_w = c.dilation;
  p.conv.pad_top = p.conv.pad_left = c.pad;
  p.conv.groups = groups;
  const std::array<int64_t, 4> in_shape = {c.n, c.c, c.h, c.w}, out_shape = {c.n, c.oc, oh, ow};
  p.conv.input = o.nchw_input ? ActivationStrides::nchw(in_shape) : ActivationStrides::nhwc(in_shape);
  p.conv.output = ActivationStrides::nhwc(out_shape);
  p.conv.weight = c.depthwise ? WeightStrides{1, 1, c.oc} : WeightStrides::ohwi(icg, c.kh, c.kw);
  p.conv.input_offset = o.offsets[0], p.conv.weight_offset = o.offsets[1], p.conv.bias_offset = o.offsets[2];
  p.conv.output_offset = o.offsets[3];
  p.conv.bias_broadcast = o.bias_broadcast;
  p.conv.epilogue.bias = true;
  p.input_zp = c.in_zp, p.weight_zp = c.w_zp;
  if (e.acc_clamp) std::tie(p.acc_lo, p.acc_hi) = *e.acc_clamp;
  if (e.requantize) {
    Requantize q;
    q.per_channel = e.per_channel, q.double_round = e.double_round;
    q.output_zp = e.out_zp, q.lo = e.lo, q.hi = e.hi;
    q.table = e.table;
    q.offset = o.offsets[4];
    if (const auto& r = e.residual) {
      Residual res;
      res.y_scale = r->y, res.skip_scale = r->skip, res.sum_scale = r->sum;
      res.y_zp = r->y_zp, res.skip_zp = r->skip_zp, res.output_zp = r->out_zp, res.lo = r->lo, res.hi = r->hi;
      if (r->sum_clamp) std::tie(res.sum_lo, res.sum_hi) = *r->sum_clamp;
      const int64_t row = (o.nchw_skip ? ow : ow * c.oc) + o.skip_pad;
      res.skip = o.nchw_skip ? ActivationStrides{c.oc * oh * row, oh * row, row, 1}
                             : ActivationStrides{oh * row, 1, row, c.oc};
      res.skip_offset = o.skip_offset;
      q.residual = res;
    }
    p.requantize = q;
  }
  auto dispatch = coopmat            ? plan_conv2d_i8_coopmat(p, device_traits(*device, Precision::kFp32), *coopmat)
                  : depthwise_kernel ? plan_depthwise_i8(p, device_traits(device->properties()))
                                     : plan_conv2d_i8(p, device_traits(device->properties()), dot);
  EXPECT_TRUE(dispatch.ok()) << dispatch.status().to_string();
  if (!dispatch.ok()) return 0;
  EXPECT_EQ(dispatch->kernel, coopmat            ? Kernel::kConv2dI8Coopmat
                              : depthwise_kernel ? Kernel::kDepthwiseI8
                              : dot              ? Kernel::kConv2dI8Dot
                                                 : Kernel::kConv2dI8);
  std::vector<uint32_t> added(o.added.begin(), o.added.end());
  if (e.residual) added.push_back(o.skip_added);
  EXPECT_TRUE(add_binding_offsets(*dispatch, added).ok());

  auto base = [&](int i) { return o.offsets[i] + o.added[i]; };
  std::vector<uint8_t> in, weight, bias, out, q, skip_bytes;
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t y = 0; y < c.h; ++y)
      for (int64_t xx = 0; xx < c.w; ++xx)
        for (int64_t ch = 0; ch < c.c; ++ch)
          put(in, base(0) + at(p.conv.input, n, ch, y, xx), x.data<int8_t>()[((n * c.h + y) * c.w + xx) * c.c + ch]);
  for (int64_t i = 0; i < w.shape().numel(); ++i) put(weight, base(1) + i, w.data<int8_t>()[i]);
  for (int64_t i = 0; i < b.shape().numel(); ++i) put(bias, base(2) + i, b.data<int32_t>()[i]);
  const size_t out_elem = e.requantize ? 1 : 4;
  out.assign((base(3) + want.shape().numel()) * out_elem, 0x77);
  for (size_t i = 0; i < multiplier.size(); ++i) {
    put(q, base(4) + i, static_cast<int32_t>(multiplier[i]));
    put(q, base(4) + multiplier.size() + i, static_cast<int32_t>(shift[i]));
  }
  if (e.table) {
    for (int64_t i = 0; i < 256; ++i) put(q, (base(4) + 2 * multiplier.size()) * 4 + i, table.data<int8_t>()[i]);
  }
  if (e.residual) {
    const Residual& r = *p.requantize->residual;
    const size_t after = 2 * multiplier.size() + (e.table ? 64 : 0);
    const auto words = residual_words(r);
    for (size_t i = 0; i < words.size(); ++i) put(q, base(4) + after + i, words[i]);
    for (int64_t n = 0; n < c.n; ++n)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx)
          for (int64_t ch = 0; ch < c.oc; ++ch)
            put(skip_bytes, r.skip_offset + o.skip_added + at(r.skip, n, ch, y, xx),
                skip.data<int8_t>()[((n * oh + y) * ow + xx) * c.oc + ch]);
  }
  auto got = testing::run_kernel_bytes(device, *dispatch, {in, weight, bias, out, q, skip_bytes});
  EXPECT_TRUE(got.ok()) << got.status().to_string();
  if (!got.ok()) return 0;
  for (uint64_t i = 0; i < base(3) * out_elem; ++i) EXPECT_EQ((*got)[i], 0x77) << "wrote below the output offset";
  int64_t mismatches = 0;
  for (int64_t i = 0; i < want.shape().numel(); ++i) {
    const uint8_t* at_out = got->data() + (base(3) + i) * out_elem;
    int64_t v = 0;
    if (e.requantize) {
      v = static_cast<int8_t>(*at_out);
      if (v != want.data<int8_t>()[i]) ++mismatches;
    } else {
      int32_t v32;
      std::memcpy(&v32, at_out, 4);
      v = v32;
      if (v != want.data<int32_t>()[i]) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0) << "c " << c.c << " oc " << c.oc << " " << c.h << "x" << c.w << " k " << c.kh << "x" << c.kw
                           << " stride " << c.stride << " pad " << c.pad << " dilation " << c.dilation << " depthwise "
                           << c.depthwise << " zp " << c.in_zp << "/" << c.w_zp << " requantize " << e.requantize
                           << " per channel " << e.per_channel << " dot " << dot << " depthwise kernel "
                           << depthwise_kernel << " coopmat "
                           << (coopmat ? std::to_string(coopmat->m) + "x" + std::to_string(coopmat->n) : "no");
  for (auto [id, value] : dispatch->specialization)
    if (id == kI8FlagsConstant) return value;
  return 0;
}

// The variants to run: the plain one always, the dot-product one where the device has it.
std::vector<bool> variants() {
  std::vector<bool> v = {false};
  const auto& device = testing::test_device();
  if (device && device_traits(*device, Precision::kFp32).integer_dot_product) {
    v.push_back(true);
  } else {
    std::printf("[conv2d_i8] the device has no shaderIntegerDotProduct: the plain variant only\n");
  }
  return v;
}

const I8Case kCases[] = {
    // n, c, h, w, oc, kh, kw, stride, pad, dilation, depthwise, in_zp, w_zp
    {1, 16, 9, 11, 8, 3, 3, 1, 1, 1, false, -3, 0},    // aligned chunks, word loads
    {2, 3, 9, 11, 5, 3, 3, 2, 1, 1, false, 17, 0},     // 3 channels: chunks cross taps
    {1, 7, 6, 7, 13, 2, 3, 1, 0, 1, false, -128, 5},   // odd everything, both zero points
    {1, 8, 11, 13, 6, 3, 3, 1, 2, 2, false, 127, -7},  // dilation
    {1, 12, 1, 1, 10, 1, 1, 1, 0, 1, false, 9, 0},     // a fully connected layer
    {2, 8, 9, 7, 8, 3, 3, 1, 1, 1, true, -5, 0},       // depthwise
    {1, 6, 11, 13, 12, 3, 3, 2, 1, 1, true, 20, 3},    // depthwise, multiplier 2, stride 2
    {1, 5, 7, 8, 5, 5, 5, 1, 2, 1, true, 0, -2},       // depthwise 5x5
};

TEST(Conv2dI8Kernel, Int32AccumulatorMatchesTheReference) {
  uint32_t seed = 100;
  for (bool dot : variants())
    for (const I8Case& c : kCases) expect_conv_i8(c, {}, {}, dot, seed += 7);
}

// The accumulator's clamp (a ReLU), RESCALE per channel and per tensor (DOUBLE_ROUND, output
// zero point, int8 clamp), the accumulator's clamp alone (int32 output) and a TABLE.
std::vector<I8Epilogue> requantize_epilogues() {
  I8Epilogue relu_per_channel;
  relu_per_channel.acc_clamp = std::pair{0, INT32_MAX};
  relu_per_channel.requantize = true, relu_per_channel.per_channel = true;
  relu_per_channel.out_zp = -20;
  I8Epilogue per_tensor_double;
  per_tensor_double.requantize = true, per_tensor_double.double_round = true;
  per_tensor_double.out_zp = 11, per_tensor_double.lo = -100, per_tensor_double.hi = 90;
  I8Epilogue clamp_only;
  clamp_only.acc_clamp = std::pair{-3000, 4000};
  I8Epilogue table = relu_per_channel;
  table.table = true;
  table.lo = -50;
  return {relu_per_channel, per_tensor_double, clamp_only, table};
}

TEST(Conv2dI8Kernel, FusedRequantizationMatchesTheReference) {
  uint32_t seed = 500;
  for (bool dot : variants()) {
    for (const I8Case& c : kCases) {
      for (const I8Epilogue& e : requantize_epilogues()) {
        expect_conv_i8(c, e, {}, dot, seed += 5);
      }
    }
  }
}

// Residual scales as a quantized add has them (operands scaled up to int32, the sum back down
// with DOUBLE_ROUND), with a ReLU on the int32 sum or on the int8 result (after a table), with
// saturating operand scales and a wrapping int32 sum, and with operand shifts above 31.
std::vector<I8Epilogue> residual_epilogues() {
  I8Epilogue add;
  add.requantize = add.per_channel = true;
  add.out_zp = -7;
  I8Residual r;
  r.y = {1518500250, 12, false}, r.skip = {1288490189, 13, true}, r.sum = {1717986918, 49, true};
  r.y_zp = -7, r.skip_zp = 23, r.out_zp = 5;
  add.residual = r;
  I8Epilogue relu = add;
  relu.per_channel = false, relu.double_round = true, relu.table = true;
  relu.residual->out_zp = relu.residual->lo = -20;  // a relu after the sum's RESCALE (zero point -20)
  I8Epilogue sum_relu = add;
  sum_relu.residual->sum_clamp = std::pair{0, INT32_MAX};  // quantized add_relu's CLAMP of the int32 sum
  I8Epilogue wrap = add;
  wrap.residual->y = {INT32_MAX, 2, false}, wrap.residual->skip = {2000000000, 3, true};
  wrap.residual->sum = {1073741824, 33, true};
  I8Epilogue odd_shifts = add;
  odd_shifts.residual->y = {1200000000, 40, true}, odd_shifts.residual->skip = {1900000000, 33, true};
  odd_shifts.residual->sum = {1500000000, 20, false};
  return {add, relu, sum_relu, wrap, odd_shifts};
}

// The skip tensor NHWC at an offset, and NCHW with padded rows, an offset and a binding offset.
std::vector<I8Options> residual_layouts() {
  I8Options nhwc;
  nhwc.skip_offset = 3;
  I8Options nchw_padded;
  nchw_padded.nchw_skip = true, nchw_padded.skip_pad = 5, nchw_padded.skip_offset = 17, nchw_padded.skip_added = 9;
  return {nhwc, nchw_padded};
}

TEST(Conv2dI8Kernel, FusedResidualAddMatchesTheReference) {
  uint32_t seed = 1300;
  for (bool dot : variants()) {
    for (const I8Case& c : {kCases[0], kCases[1], kCases[2], kCases[5]}) {
      for (const I8Epilogue& e : residual_epilogues()) {
        for (const I8Options& o : residual_layouts()) {
          expect_conv_i8(c, e, o, dot, seed += 3);
        }
      }
    }
  }
}

TEST(Conv2dI8Kernel, WordLoadsOnlyWhereAligned) {
  const I8Case c = kCases[0];
  I8Epilogue e;
  e.requantize = e.per_channel = true;
  for (bool dot : variants()) {
    I8Options o;
    o.offsets = {8, 16, 3, 5, 2};
    EXPECT_EQ(expect_conv_i8(c, e, o, dot, 900) & (kI8FlagWordsIn | kI8FlagWordsWeight),
              kI8FlagWordsIn | kI8FlagWordsWeight);
    o.added = {1, 0, 0, 0, 0};  // the input's binding starts off a word: byte loads there
    EXPECT_EQ(expect_conv_i8(c, e, o, dot, 901) & (kI8FlagWordsIn | kI8FlagWordsWeight), kI8FlagWordsWeight);
    o.offsets = {8, 6, 0, 0, 0};  // the weight off a word before planning
    o.added = {};
    o.bias_broadcast = true;
    EXPECT_EQ(expect_conv_i8(c, e, o, dot, 902) & (kI8FlagWordsIn | kI8FlagWordsWeight), kI8FlagWordsIn);
    o.nchw_input = true;  // channels strided: byte loads of the input
    EXPECT_EQ(expect_conv_i8(c, e, o, dot, 903) & kI8FlagWordsIn, 0u);
  }
}

TEST(Conv2dI8Planner, ChoosesTheDevicesVariantAndRefusesBadProblems) {
  Conv2dI8Problem p;
  p.conv.in_channels = p.conv.out_channels = 4;
  p.conv.input = ActivationStrides::nhwc({1, 4, 1, 1});
  p.conv.output = ActivationStrides::nhwc({1, 4, 1, 1});
  p.conv.weight = WeightStrides::ohwi(4, 1, 1);
  DeviceTraits traits;
  EXPECT_EQ(plan_conv2d_i8(p, traits)->kernel, Kernel::kConv2dI8);
  traits.integer_dot_product = true;
  EXPECT_EQ(plan_conv2d_i8(p, traits)->kernel, Kernel::kConv2dI8Dot);
  EXPECT_EQ(plan_conv2d_i8(p, traits, false)->kernel, Kernel::kConv2dI8);
  Conv2dI8Problem bad = p;
  bad.input_zp = 128;
  EXPECT_EQ(plan_conv2d_i8(bad, traits).status().code(), StatusCode::kInvalidArgument);
  bad = p;
  bad.conv.epilogue.residual = true;
  EXPECT_EQ(plan_conv2d_i8(bad, traits).status().code(), StatusCode::kInvalidArgument);
  bad = p;
  bad.requantize = Requantize{};
  bad.requantize->lo = 10, bad.requantize->hi = -10;
  EXPECT_EQ(plan_conv2d_i8(bad, traits).status().code(), StatusCode::kInvalidArgument);
  bad = p;
  bad.conv.groups = 3;
  EXPECT_EQ(plan_conv2d_i8(bad, traits).status().code(), StatusCode::kInvalidArgument);
  // A residual: its binding is read (not scratch) and its base is packed into kI8OutQuant.
  Conv2dI8Problem add = p;
  add.requantize = Requantize{};
  add.requantize->residual = Residual{};
  add.requantize->residual->skip = ActivationStrides::nhwc({1, 4, 1, 1});
  auto planned = plan_conv2d_i8(add, traits);
  ASSERT_TRUE(planned.ok()) << planned.status().to_string();
  EXPECT_EQ(planned->used_bindings & 0b100000u, 0b100000u);
  ASSERT_TRUE(planned->last_binding_offset.has_value());
  EXPECT_TRUE(add_binding_offsets(*planned, std::vector<uint32_t>{0, 0, 0, 0, 0, 200}).ok());
  EXPECT_EQ(planned->push[kI8OutQuant] >> kI8SkipBaseShift, 200u);
  EXPECT_EQ(add_binding_offsets(*planned, std::vector<uint32_t>{0, 0, 0, 0, 0, 56}).code(),
            StatusCode::kInvalidArgument);  // 256 does not fit
  for (auto edit : std::vector<std::function<void(Residual&)>>{
           [](Residual& r) { r.y_scale.shift = 1; }, [](Residual& r) { r.skip_scale.multiplier = -1; },
           [](Residual& r) { r.sum_scale.shift = 63; }, [](Residual& r) { r.skip_zp = 200; },
           [](Residual& r) { r.lo = 5, r.hi = 4; }, [](Residual& r) { r.sum_lo = 1, r.sum_hi = 0; }}) {
    bad = add;
    edit(*bad.requantize->residual);
    EXPECT_EQ(plan_conv2d_i8(bad, traits).status().code(), StatusCode::kInvalidArgument);
  }
  bad = add;
  bad.requantize->residual->skip_offset = UINT32_MAX;
  EXPECT_EQ(plan_conv2d_i8(bad, traits).status().code(), StatusCode::kUnsupported);
}

// The int8 fragments the test device lists, printed (none: the caller skips).
std::vector<I8Fragment> coopmat_fragments() {
  std::vector<I8Fragment> listed;
  const auto& device = testing::test_device();
  if (!device) return listed;
  const uint32_t bits = device_traits(*device, Precision::kFp32).cooperative_matrix_i8;
  for (size_t i = 0; i < kI8Fragments.size(); ++i) {
    if ((bits >> i & 1u) == 0) continue;
    listed.push_back(kI8Fragments[i]);
    std::printf("[conv2d_i8_coopmat] fragment %ux%ux32\n", kI8Fragments[i].m, kI8Fragments[i].n);
  }
  return listed;
}

#define UNIVK_SKIP_WITHOUT_I8_COOPMAT(fragments)                                                     \
  if ((fragments).empty()) {                                                                         \
    GTEST_SKIP() << "the device lists no int8 cooperative-matrix shape (16x16x32, 16x8x32, 8x8x32)"; \
  }

// Tiles of 128 positions x 64 or 128 channels, K slices of 64: every case leaves some ragged.
const I8Case kCoopmatCases[] = {
    // n, c, h, w, oc, kh, kw, stride, pad, dilation, depthwise, in_zp, w_zp
    {2, 16, 13, 11, 24, 3, 3, 1, 1, 1, false, -3, 0},       // aligned chunks, M 286, K 144
    {1, 3, 23, 19, 70, 3, 3, 2, 1, 1, false, 17, 5},        // chunks cross taps, K 27, 128 columns
    {1, 40, 17, 17, 130, 3, 3, 1, 2, 2, false, -128, 127},  // dilation, two column tiles, K 360
    {3, 203, 7, 7, 33, 1, 1, 1, 0, 1, false, 9, -4},        // 1x1, K 203 (odd)
    {4, 256, 1, 1, 100, 1, 1, 1, 0, 1, false, 5, 0},        // a fully connected layer, M 4
    {1, 64, 30, 30, 64, 3, 3, 1, 1, 1, false, 0, 0},        // M 900, K 576, no zero points
    {1, 8, 9, 7, 16, 3, 3, 1, 1, 1, true, -5, 2},           // depthwise (groups 8), forced
};

TEST(Conv2dI8CoopmatKernel, Int32AccumulatorMatchesTheReference) {
  const std::vector<I8Fragment> fragments = coopmat_fragments();
  UNIVK_SKIP_WITHOUT_I8_COOPMAT(fragments);
  uint32_t seed = 1300;
  for (I8Fragment f : fragments)
    for (const I8Case& c : kCoopmatCases) expect_conv_i8(c, {}, {}, false, seed += 7, f);
}

TEST(Conv2dI8CoopmatKernel, FusedRequantizationMatchesTheReference) {
  const std::vector<I8Fragment> fragments = coopmat_fragments();
  UNIVK_SKIP_WITHOUT_I8_COOPMAT(fragments);
  uint32_t seed = 1700;
  for (I8Fragment f : fragments) {
    for (const I8Case& c : kCoopmatCases) {
      for (const I8Epilogue& e : requantize_epilogues()) {
        expect_conv_i8(c, e, {}, false, seed += 5, f);
      }
    }
  }
}

TEST(Conv2dI8CoopmatKernel, FusedResidualAddMatchesTheReference) {
  const std::vector<I8Fragment> fragments = coopmat_fragments();
  UNIVK_SKIP_WITHOUT_I8_COOPMAT(fragments);
  uint32_t seed = 2300;
  for (I8Fragment f : fragments) {
    for (const I8Case& c : {kCoopmatCases[0], kCoopmatCases[2], kCoopmatCases[3]}) {
      for (const I8Epilogue& e : residual_epilogues()) {
        for (const I8Options& o : residual_layouts()) expect_conv_i8(c, e, o, false, seed += 3, f);
      }
    }
  }
}

TEST(Conv2dI8CoopmatKernel, WordAndByteLoads) {
  const std::vector<I8Fragment> fragments = coopmat_fragments();
  UNIVK_SKIP_WITHOUT_I8_COOPMAT(fragments);
  const I8Case c = kCoopmatCases[0];
  I8Epilogue e;
  e.requantize = e.per_channel = true;
  for (I8Fragment f : fragments) {
    I8Options o;
    o.offsets = {8, 16, 3, 5, 2};
    EXPECT_EQ(expect_conv_i8(c, e, o, false, 2100, f) & (kI8FlagWordsIn | kI8FlagWordsWeight),
              kI8FlagWordsIn | kI8FlagWordsWeight);
    o.added = {1, 0, 0, 0, 0};  // the input's binding starts off a word: byte loads there
    EXPECT_EQ(expect_conv_i8(c, e, o, false, 2101, f) & (kI8FlagWordsIn | kI8FlagWordsWeight), kI8FlagWordsWeight);
    o.added = {};
    o.bias_broadcast = true;
    o.nchw_input = true;  // channels strided: byte loads of the input
    EXPECT_EQ(expect_conv_i8(c, e, o, false, 2102, f) & kI8FlagWordsIn, 0u);
  }
}

// A 3x3 convolution, NHWC with OHWI weights.
Conv2dI8Problem conv3x3(int64_t batch, int64_t c, int64_t hw, int64_t oc, int64_t groups) {
  Conv2dI8Problem p;
  p.conv.batch = batch, p.conv.in_channels = c, p.conv.in_h = p.conv.in_w = hw;
  p.conv.out_channels = oc, p.conv.out_h = p.conv.out_w = hw;
  p.conv.kernel_h = p.conv.kernel_w = 3, p.conv.pad_top = p.conv.pad_left = 1;
  p.conv.groups = groups;
  p.conv.input = ActivationStrides::nhwc({batch, c, hw, hw});
  p.conv.output = ActivationStrides::nhwc({batch, oc, hw, hw});
  p.conv.weight = WeightStrides::ohwi(c / groups, 3, 3);
  p.requantize = Requantize{};
  return p;
}

uint32_t constant(const KernelDispatch& d, uint32_t id) {
  for (auto [at, value] : d.specialization)
    if (at == id) return value;
  return 0;
}

TEST(Conv2dI8CoopmatPlanner, ChoosesTheCooperativeMatrixKernelWhereTheDeviceListsAFragment) {
  const Conv2dI8Problem p = conv3x3(2, 64, 28, 64, 1);
  DeviceTraits gpu;
  gpu.max_workgroup_invocations = 1024;
  gpu.max_shared_bytes = 49152;
  EXPECT_EQ(plan_conv2d_i8(p, gpu)->kernel, Kernel::kConv2dI8);  // no int8 fragment listed
  gpu.cooperative_matrix_i8 = 0b010;                             // 16x8x32 only
  auto d = plan_conv2d_i8(p, gpu);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kConv2dI8Coopmat);
  EXPECT_EQ(constant(*d, kI8CoopmatFragMConstant), 16u);
  EXPECT_EQ(constant(*d, kI8CoopmatFragNConstant), 8u);
  EXPECT_EQ(constant(*d, kI8CoopmatBnConstant), 64u);
  EXPECT_TRUE(testing::check_spec_constants(*d).ok()) << testing::check_spec_constants(*d).to_string();
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{(2 * 28 * 28 + 127) / 128, 1, 1}));
  EXPECT_EQ(d->push, plan_conv2d_i8(p, gpu, false)->push);  // the plain kernel's push constants
  gpu.cooperative_matrix_i8 = 0b111;                        // the first listed: 16x16x32
  EXPECT_EQ(constant(*plan_conv2d_i8(p, gpu), kI8CoopmatFragNConstant), 16u);
  // Forced fragments: listed or Unsupported.
  EXPECT_EQ(constant(*plan_conv2d_i8_coopmat(p, gpu, I8Fragment{8, 8}), kI8CoopmatFragMConstant), 8u);
  DeviceTraits only_16x16 = gpu;
  only_16x16.cooperative_matrix_i8 = 0b001;
  EXPECT_EQ(plan_conv2d_i8_coopmat(p, only_16x16, I8Fragment{16, 8}).status().code(), StatusCode::kUnsupported);
  // A forced variant is never the cooperative-matrix kernel.
  EXPECT_EQ(plan_conv2d_i8(p, gpu, false)->kernel, Kernel::kConv2dI8);
  EXPECT_EQ(plan_conv2d_i8(p, gpu, true)->kernel, Kernel::kConv2dI8Dot);
  // 130 channels: tiles of 128 columns, two of them.
  d = plan_conv2d_i8(conv3x3(2, 64, 28, 130, 1), gpu);
  EXPECT_EQ(constant(*d, kI8CoopmatBnConstant), 128u);
  EXPECT_EQ(d->groups[1], 2u);
  // Too small, a CPU, too little shared memory: the plain kernel; depthwise: its own.
  EXPECT_EQ(plan_conv2d_i8(conv3x3(1, 64, 8, 64, 1), gpu)->kernel, Kernel::kConv2dI8);       // M 64
  EXPECT_EQ(plan_conv2d_i8(conv3x3(2, 64, 28, 8, 1), gpu)->kernel, Kernel::kConv2dI8);       // 8 channels
  EXPECT_EQ(plan_conv2d_i8(conv3x3(2, 4, 28, 64, 1), gpu)->kernel, Kernel::kConv2dI8);       // K 36
  EXPECT_EQ(plan_conv2d_i8(conv3x3(2, 64, 28, 64, 64), gpu)->kernel, Kernel::kDepthwiseI8);  // depthwise
  DeviceTraits cpu = gpu;
  cpu.cpu = true;
  EXPECT_EQ(plan_conv2d_i8(p, cpu)->kernel, Kernel::kConv2dI8);
  DeviceTraits small = gpu;
  small.max_shared_bytes = 16384;
  EXPECT_EQ(plan_conv2d_i8(p, small)->kernel, Kernel::kConv2dI8);
  EXPECT_EQ(plan_conv2d_i8_coopmat(p, small).status().code(), StatusCode::kUnsupported);
  // A bad problem: the plain planner's errors.
  Conv2dI8Problem bad = p;
  bad.weight_zp = -129;
  EXPECT_EQ(plan_conv2d_i8_coopmat(bad, gpu).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace univk::kernels

namespace univk::kernels {
namespace {

// Depthwise convolutions with multiplier 1 and channels a multiple of 4 (kDepthwiseI8).
const I8Case kDepthwiseCases[] = {
    // n, c, h, w, oc, kh, kw, stride, pad, dilation, depthwise, in_zp, w_zp
    {2, 8, 9, 7, 8, 3, 3, 1, 1, 1, true, -5, 0},        // MobileNet's 3x3
    {1, 12, 11, 9, 12, 3, 3, 2, 1, 1, true, 7, -3},     // stride 2, both zero points
    {1, 16, 7, 8, 16, 5, 5, 1, 2, 2, true, -128, 127},  // 5x5, dilation 2
    {3, 4, 5, 6, 4, 3, 3, 1, 0, 1, true, 0, 0},         // no padding, M not a multiple of 4
};

TEST(DepthwiseI8Kernel, MatchesTheReference) {
  uint32_t seed = 3100;
  for (const I8Case& c : kDepthwiseCases) {
    expect_conv_i8(c, {}, {}, false, seed += 7, std::nullopt, true);
    for (const I8Epilogue& e : requantize_epilogues()) expect_conv_i8(c, e, {}, false, seed += 5, std::nullopt, true);
  }
  for (const I8Epilogue& e : residual_epilogues()) {
    for (const I8Options& o : residual_layouts()) {
      expect_conv_i8(kDepthwiseCases[1], e, o, false, seed += 3, std::nullopt, true);
    }
  }
}

TEST(DepthwiseI8Kernel, WordAndByteLoads) {
  const I8Case c = kDepthwiseCases[0];
  I8Epilogue e;
  e.requantize = e.per_channel = true;
  I8Options o;
  o.offsets = {8, 16, 3, 5, 2};
  EXPECT_EQ(expect_conv_i8(c, e, o, false, 3300, std::nullopt, true) & (kI8FlagWordsIn | kI8FlagWordsWeight),
            kI8FlagWordsIn | kI8FlagWordsWeight);
  o.added = {1, 0, 0, 0, 0};  // the input's binding starts off a word: byte loads there
  EXPECT_EQ(expect_conv_i8(c, e, o, false, 3301, std::nullopt, true) & (kI8FlagWordsIn | kI8FlagWordsWeight),
            kI8FlagWordsWeight);
  o.added = {};
  o.offsets = {8, 17, 3, 5, 2};  // the weight off a word
  EXPECT_EQ(expect_conv_i8(c, e, o, false, 3302, std::nullopt, true) & (kI8FlagWordsIn | kI8FlagWordsWeight),
            kI8FlagWordsIn);
  o.offsets = {};
  o.nchw_input = true;  // channels strided: byte loads of the input
  EXPECT_EQ(expect_conv_i8(c, e, o, false, 3303, std::nullopt, true) & kI8FlagWordsIn, 0u);
}

TEST(DepthwiseI8Planner, TakesMultiplierOneWithChannelsInQuads) {
  DeviceTraits gpu;
  Conv2dI8Problem p = conv3x3(2, 64, 14, 64, 64);
  EXPECT_TRUE(takes_depthwise_i8(p));
  auto d = plan_conv2d_i8(p, gpu);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kDepthwiseI8);
  EXPECT_EQ(constant(*d, kDwI8QuadsConstant), 16u);
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{(2 * 14 * 14 / 4 * 16 + 63) / 64, 1, 1}));
  EXPECT_TRUE(testing::check_spec_constants(*d).ok()) << testing::check_spec_constants(*d).to_string();
  EXPECT_EQ(plan_conv2d_i8(p, gpu, false)->kernel, Kernel::kConv2dI8);  // a forced variant
  EXPECT_EQ(plan_conv2d_i8(p, gpu, true)->kernel, Kernel::kConv2dI8Dot);
  // Channels not in quads, a multiplier of 2, a dense convolution: the plain kernel.
  EXPECT_EQ(plan_conv2d_i8(conv3x3(1, 6, 14, 6, 6), gpu)->kernel, Kernel::kConv2dI8);
  EXPECT_EQ(plan_conv2d_i8(conv3x3(1, 8, 14, 16, 8), gpu)->kernel, Kernel::kConv2dI8);
  EXPECT_FALSE(takes_depthwise_i8(conv3x3(1, 8, 14, 8, 1)));
  EXPECT_EQ(plan_depthwise_i8(conv3x3(1, 8, 14, 16, 8), gpu).status().code(), StatusCode::kUnsupported);
  // A grid past the device's: Unsupported from the depthwise planner, the plain kernel from
  // plan_conv2d_i8.
  DeviceTraits small = gpu;
  small.max_group_count[0] = 8;
  EXPECT_EQ(plan_depthwise_i8(p, small).status().code(), StatusCode::kUnsupported);
  // A bad problem: the plain planner's errors.
  Conv2dI8Problem bad = p;
  bad.input_zp = 200;
  EXPECT_EQ(plan_depthwise_i8(bad, gpu).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace univk::kernels
