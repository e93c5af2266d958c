// int8 requantization fusion (fusion.h's int8 EpilogueChain): an int8 CONV2D or
// DEPTHWISE_CONV2D takes the CLAMP of its int32 result, the RESCALE to int8, the CLAMP of that
// and an int8 TABLE into the kernel library's int8 kernel. Each graph's dispatch count per
// execute and its result, bit-exact, against the TOSA reference of the unfused operators; a
// value read twice (a graph output too) ends the chain before its reader, with the same results.
// Then the residual add after the requantization (a quantized add: RESCALEs of both int8
// operands to int32, ADD, CLAMP, RESCALE to int8, CLAMP) joins the epilogue too, its skip tensor
// a graph input (NHWC or a transposed NCHW one) or a second convolution's result; a
// requantized result read twice or a skip of another shape leaves the add unfused.
#include <random>

#include "univk_test.h"
#include "vgf_test_util.h"

namespace univk::backends::vgf_test {
namespace {

// Same-padded stride-1 3x3 convolution attributes with an input zero point.
Attributes conv_attrs() { return conv2d_int8_attrs(-9, 0); }

Attributes int_clamp(int64_t lo, int64_t hi) {
  Attributes a;
  a.set("min_val", lo);
  a.set("max_val", hi);
  a.set("nan_mode", spirv::kNanPropagate);
  return a;
}

Attributes rescale_attrs(int64_t channels, bool for_reference) {
  std::mt19937 rng(channels);
  std::vector<int64_t> multiplier, shift;
  for (int64_t i = 0; i < channels; ++i) {
    multiplier.push_back(std::uniform_int_distribution<int64_t>(int64_t{1} << 30, INT32_MAX)(rng));
    shift.push_back(std::uniform_int_distribution<int64_t>(37, 41)(rng));
  }
  Attributes a;
  a.set("scale32", int64_t{1});
  a.set("rounding_mode", spirv::kRoundingDouble);
  a.set("per_channel", int64_t{channels > 1});
  a.set("input_unsigned", int64_t{0});
  a.set("output_unsigned", int64_t{0});
  a.set("multiplier", multiplier);
  a.set("shift", shift);
  a.set("input_zp", int64_t{0});
  a.set("output_zp", int64_t{-3});
  if (for_reference) a.set("output_type", std::string("int8"));
  return a;
}

struct Chain {
  bool depthwise = false;
  bool acc_clamp = false, rescale = true, out_clamp = false, table = false;
  bool per_channel = true;
  bool conv_is_output = false, rescale_is_output = false;  // also graph outputs: read twice
};

// Builds the chain over an int8 [1, 7, 9, 8] input, runs it and checks the result (every graph
// output) and the dispatch count.
void expect_chain(const Chain& c, uint32_t dispatches, const std::string& what) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kInt8, Shape({1, 7, 9, 8}), 1);
  const ValueId x = g.add_input({DType::kInt8, in.shape().dims()}, 0, 0);
  const int64_t oc = c.depthwise ? 8 : 12;
  const HostTensor w = random_tensor(DType::kInt8, c.depthwise ? Shape({3, 3, 8, 1}) : Shape({oc, 3, 3, 8}), 2);
  const HostTensor b = random_tensor(DType::kInt32, Shape({oc}), 3, -3000, 3000);
  const ValueId wv = g.add_constant({DType::kInt8, w.shape().dims()}, bytes_of(w));
  const ValueId bv = g.add_constant({DType::kInt32, b.shape().dims()}, bytes_of(b));
  const TosaOp op = c.depthwise ? TosaOp::kDepthwiseConv2d : TosaOp::kConv2d;
  const std::vector<int64_t> out_dims = {1, 7, 9, oc};
  ValueId v = g.add_operation(op, {x, wv, bv}, conv_attrs(), {DType::kInt32, out_dims});
  HostTensor want = ref(std::string(spirv::tosa_op_name(op)), conv_attrs(), {in, w, b});
  std::vector<HostTensor> outputs;
  auto add_output = [&](ValueId value, const HostTensor& expected) {
    g.add_output(value, 0, static_cast<uint32_t>(1 + outputs.size()));
    outputs.push_back(expected);
  };
  if (c.conv_is_output) add_output(v, want);
  if (c.acc_clamp) {
    v = g.add_operation(TosaOp::kClamp, {v}, int_clamp(0, INT32_MAX), {DType::kInt32, out_dims});
    want = ref("CLAMP", int_clamp(0, INT32_MAX), {want});
  }
  if (c.rescale) {
    const int64_t channels = c.per_channel ? oc : 1;
    v = g.add_operation(TosaOp::kRescale, {v}, rescale_attrs(channels, false), {DType::kInt8, out_dims});
    want = ref("RESCALE", rescale_attrs(channels, true), {want});
    if (c.rescale_is_output) add_output(v, want);
  }
  if (c.out_clamp) {
    v = g.add_operation(TosaOp::kClamp, {v}, int_clamp(-100, 90), {DType::kInt8, out_dims});
    want = ref("CLAMP", int_clamp(-100, 90), {want});
  }
  if (c.table) {
    const HostTensor table = random_tensor(DType::kInt8, Shape({256}), 4);
    const ValueId tv = g.add_constant({DType::kInt8, {256}}, bytes_of(table));
    v = g.add_operation(TosaOp::kTable, {v, tv}, {}, {DType::kInt8, out_dims});
    want = ref("TABLE", {}, {want, table});
  }
  add_output(v, want);

  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  ASSERT_EQ(out->size(), outputs.size()) << what;
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_TRUE(tensors_close((*out)[i], outputs[i], {0, 0})) << what << ", output " << i;
  }
  // The native path runs the whole graph as one data graph.
  const bool native = loaded->delegate->graph_path() == "native";
  EXPECT_EQ(loaded->delegate->stats().dispatches, native ? 1u : dispatches) << what;
}

TEST(VgfInt8Fusion, ConvolutionReluRescaleIsOneDispatch) {
  for (bool depthwise : {false, true}) {
    Chain c;
    c.depthwise = depthwise;
    c.acc_clamp = true;
    expect_chain(c, 1, depthwise ? "depthwise + relu + rescale" : "conv + relu + rescale");
  }
}

TEST(VgfInt8Fusion, RescaleClampAndTableJoinTheEpilogue) {
  Chain c;
  c.out_clamp = c.table = true;
  c.per_channel = false;
  expect_chain(c, 1, "conv + rescale (per tensor) + clamp + table");
  c.depthwise = true;
  c.acc_clamp = true;
  expect_chain(c, 1, "depthwise + relu + rescale + clamp + table");
}

TEST(VgfInt8Fusion, AccumulatorClampAloneKeepsInt32) {
  Chain c;
  c.acc_clamp = true;
  c.rescale = false;
  expect_chain(c, 1, "conv + relu, int32 result");
}

TEST(VgfInt8Fusion, ValuesReadTwiceEndTheChain) {
  Chain c;
  c.conv_is_output = true;
  expect_chain(c, 2, "conv (also an output), then rescale");
  c = Chain{};
  c.rescale_is_output = c.table = true;
  expect_chain(c, 2, "conv + rescale (also an output), then table");
}

// A per-tensor RESCALE of the residual add (`output_type` for the reference only).
Attributes residual_rescale(int64_t multiplier, int64_t shift, bool double_round, int64_t input_zp, int64_t output_zp,
                            const char* reference_type = nullptr) {
  Attributes a;
  a.set("scale32", int64_t{1});
  a.set("rounding_mode", double_round ? spirv::kRoundingDouble : spirv::kRoundingSingle);
  a.set("per_channel", int64_t{0});
  a.set("input_unsigned", int64_t{0});
  a.set("output_unsigned", int64_t{0});
  a.set("multiplier", std::vector<int64_t>{multiplier});
  a.set("shift", std::vector<int64_t>{shift});
  a.set("input_zp", input_zp);
  a.set("output_zp", output_zp);
  if (reference_type) a.set("output_type", std::string(reference_type));
  return a;
}

struct Int8Value {
  ValueId value;
  HostTensor reference;
};

constexpr int64_t kResidualChannels = 12;
const std::vector<int64_t> kResidualDims = {1, 7, 9, kResidualChannels};

// conv (3x3, 8 -> 12 channels) + CLAMP (relu) + RESCALE (per channel) of int8 [1, 7, 9, 8] `x`.
Int8Value add_requantized_conv(TosaGraph& g, ValueId x, const HostTensor& in, uint32_t seed) {
  const HostTensor w = random_tensor(DType::kInt8, Shape({kResidualChannels, 3, 3, 8}), seed);
  const HostTensor b = random_tensor(DType::kInt32, Shape({kResidualChannels}), seed + 1, -3000, 3000);
  const ValueId wv = g.add_constant({DType::kInt8, w.shape().dims()}, bytes_of(w));
  const ValueId bv = g.add_constant({DType::kInt32, b.shape().dims()}, bytes_of(b));
  ValueId v = g.add_operation(TosaOp::kConv2d, {x, wv, bv}, conv_attrs(), {DType::kInt32, kResidualDims});
  v = g.add_operation(TosaOp::kClamp, {v}, int_clamp(0, INT32_MAX), {DType::kInt32, kResidualDims});
  v = g.add_operation(TosaOp::kRescale, {v}, rescale_attrs(kResidualChannels, false), {DType::kInt8, kResidualDims});
  HostTensor want = ref("CONV2D", conv_attrs(), {in, w, b});
  want = ref("CLAMP", int_clamp(0, INT32_MAX), {want});
  return {v, ref("RESCALE", rescale_attrs(kResidualChannels, true), {want})};
}

struct ResidualOptions {
  bool sum_relu = false, out_clamp = false;
  bool skip_first = false;  // the skip is the ADD's first operand
};

// The quantized add of int8 `y` (zero point -3, as rescale_attrs) and `skip` (zero point 11),
// int32 operands with 20 bits of headroom, the sum back to int8 with zero point 6.
Int8Value add_residual(TosaGraph& g, const Int8Value& y, const Int8Value& skip, const ResidualOptions& o) {
  const std::vector<int64_t>& dims = g.values[y.value].type.shape;
  const TosaTensorType i32{DType::kInt32, dims}, i8{DType::kInt8, dims};
  const Attributes ya = residual_rescale(1518500250, 11, false, -3, 0),
                   yr = residual_rescale(1518500250, 11, false, -3, 0, "int32");
  const Attributes sa = residual_rescale(1288490189, 12, true, 11, 0),
                   sr = residual_rescale(1288490189, 12, true, 11, 0, "int32");
  const Attributes oa = residual_rescale(1717986918, 50, true, 0, 6),
                   orf = residual_rescale(1717986918, 50, true, 0, 6, "int8");
  const ValueId a = g.add_operation(TosaOp::kRescale, {y.value}, ya, i32);
  const ValueId b = g.add_operation(TosaOp::kRescale, {skip.value}, sa, i32);
  ValueId v =
      g.add_operation(TosaOp::kAdd, o.skip_first ? std::vector<ValueId>{b, a} : std::vector<ValueId>{a, b}, {}, i32);
  HostTensor want = ref("ADD", {}, {ref("RESCALE", yr, {y.reference}), ref("RESCALE", sr, {skip.reference})});
  if (o.sum_relu) {
    v = g.add_operation(TosaOp::kClamp, {v}, int_clamp(0, INT32_MAX), i32);
    want = ref("CLAMP", int_clamp(0, INT32_MAX), {want});
  }
  v = g.add_operation(TosaOp::kRescale, {v}, oa, i8);
  want = ref("RESCALE", orf, {want});
  if (o.out_clamp) {
    v = g.add_operation(TosaOp::kClamp, {v}, int_clamp(-50, 100), i8);
    want = ref("CLAMP", int_clamp(-50, 100), {want});
  }
  return {v, want};
}

// Runs `g` (outputs at bindings 1.. in `want` order) and checks results and dispatches.
void expect_int8_run(const TosaGraph& g, const std::vector<HostTensor>& inputs, const std::vector<HostTensor>& want,
                     uint32_t dispatches, const std::string& what) {
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  auto out = loaded->delegate->execute(inputs);
  UNIVK_ASSERT_OK(out);
  ASSERT_EQ(out->size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(tensors_close((*out)[i], want[i], {0, 0})) << what << ", output " << i;
  }
  const bool native = loaded->delegate->graph_path() == "native";
  EXPECT_EQ(loaded->delegate->stats().dispatches, native ? 1u : dispatches) << what;
}

TEST(VgfInt8Fusion, ResidualAddJoinsTheConvolution) {
  ResidualOptions plain, relu, clamped;
  relu.sum_relu = true, relu.skip_first = true;
  clamped.sum_relu = clamped.out_clamp = true;
  for (const ResidualOptions& o : {plain, relu, clamped}) {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kInt8, Shape({1, 7, 9, 8}), 21);
    const HostTensor skip = random_tensor(DType::kInt8, Shape(kResidualDims), 22);
    const ValueId x = g.add_input({DType::kInt8, in.shape().dims()}, 0, 0);
    const ValueId s = g.add_input({DType::kInt8, kResidualDims}, 0, 1);
    const Int8Value y = add_requantized_conv(g, x, in, 23);
    const Int8Value sum = add_residual(g, y, {s, skip}, o);
    g.add_output(sum.value, 0, 2);
    expect_int8_run(g, {in, skip}, {sum.reference}, 1, "conv + relu + rescale + quantized add");
  }
}

// The skip is an NCHW graph input seen through a TRANSPOSE: the kernel reads it through its
// own strides.
TEST(VgfInt8Fusion, ResidualReadsTheSkipThroughItsStrides) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kInt8, Shape({1, 7, 9, 8}), 31);
  const HostTensor skip_nchw = random_tensor(DType::kInt8, Shape({1, kResidualChannels, 7, 9}), 32);
  const ValueId x = g.add_input({DType::kInt8, in.shape().dims()}, 0, 0);
  const ValueId r = g.add_input({DType::kInt8, skip_nchw.shape().dims()}, 0, 1);
  Attributes perms;
  perms.set("perms", std::vector<int64_t>{0, 2, 3, 1});
  const ValueId s = g.add_operation(TosaOp::kTranspose, {r}, perms, {DType::kInt8, kResidualDims});
  const Int8Value y = add_requantized_conv(g, x, in, 33);
  ResidualOptions o;
  o.sum_relu = true;
  const Int8Value sum = add_residual(g, y, {s, ref("TRANSPOSE", perms, {skip_nchw})}, o);
  g.add_output(sum.value, 0, 2);
  expect_int8_run(g, {in, skip_nchw}, {sum.reference}, 1, "conv + quantized add of a transposed skip");
}

// ResNet's downsampling block: the first convolution takes the add, the second's requantized
// result as its skip.
TEST(VgfInt8Fusion, TwoConvolutionsIntoOneQuantizedAddAreTwoDispatches) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kInt8, Shape({1, 7, 9, 8}), 41);
  const ValueId x = g.add_input({DType::kInt8, in.shape().dims()}, 0, 0);
  const Int8Value a = add_requantized_conv(g, x, in, 42);
  const Int8Value b = add_requantized_conv(g, x, in, 44);
  ResidualOptions o;
  o.sum_relu = true;
  const Int8Value sum = add_residual(g, a, b, o);
  g.add_output(sum.value, 0, 1);
  expect_int8_run(g, {in}, {sum.reference}, 2, "conv, conv + quantized add");
}

// Unfused: the requantized result is also a graph output (the add's operators then run on
// their own: RESCALE, RESCALE, ADD + CLAMP, RESCALE), or the skip broadcasts ([1, 1, 1, C]).
TEST(VgfInt8Fusion, ResidualAddNotFusedWhenReadTwiceOrBroadcast) {
  {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kInt8, Shape({1, 7, 9, 8}), 51);
    const HostTensor skip = random_tensor(DType::kInt8, Shape(kResidualDims), 52);
    const ValueId x = g.add_input({DType::kInt8, in.shape().dims()}, 0, 0);
    const ValueId s = g.add_input({DType::kInt8, kResidualDims}, 0, 1);
    const Int8Value y = add_requantized_conv(g, x, in, 53);
    ResidualOptions o;
    o.sum_relu = true;
    const Int8Value sum = add_residual(g, y, {s, skip}, o);
    g.add_output(y.value, 0, 2);
    g.add_output(sum.value, 0, 3);
    expect_int8_run(g, {in, skip}, {y.reference, sum.reference}, 5, "conv + rescale (an output), quantized add");
  }
  {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kInt8, Shape({1, 7, 9, 8}), 54);
    const HostTensor skip = random_tensor(DType::kInt8, Shape({1, 1, 1, kResidualChannels}), 55);
    const ValueId x = g.add_input({DType::kInt8, in.shape().dims()}, 0, 0);
    const ValueId s = g.add_input({DType::kInt8, skip.shape().dims()}, 0, 1);
    const Int8Value y = add_requantized_conv(g, x, in, 56);
    const Attributes sa = residual_rescale(1288490189, 12, true, 11, 0);
    const Attributes sr = residual_rescale(1288490189, 12, true, 11, 0, "int32");
    const ValueId b = g.add_operation(TosaOp::kRescale, {s}, sa, {DType::kInt32, skip.shape().dims()});
    const ValueId a = g.add_operation(TosaOp::kRescale, {y.value}, residual_rescale(1518500250, 11, false, -3, 0),
                                      {DType::kInt32, kResidualDims});
    ValueId v = g.add_operation(TosaOp::kAdd, {a, b}, {}, {DType::kInt32, kResidualDims});
    v = g.add_operation(TosaOp::kRescale, {v}, residual_rescale(1717986918, 50, true, 0, 6),
                        {DType::kInt8, kResidualDims});
    g.add_output(v, 0, 2);
    HostTensor want = ref("ADD", {},
                          {ref("RESCALE", residual_rescale(1518500250, 11, false, -3, 0, "int32"), {y.reference}),
                           ref("RESCALE", sr, {skip})});
    want = ref("RESCALE", residual_rescale(1717986918, 50, true, 0, 6, "int8"), {want});
    expect_int8_run(g, {in, skip}, {want}, 5, "conv + rescale, quantized add of a broadcast skip");
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
