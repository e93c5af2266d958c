// int8 requantization fusion (fusion.h's int8 EpilogueChain): an int8 CONV2D or
// DEPTHWISE_CONV2D takes the CLAMP of its int32 result, the RESCALE to int8, the CLAMP of that
// and an int8 TABLE into the kernel library's int8 kernel. Each graph's dispatch count per
// execute and its result, bit-exact, against the TOSA reference of the unfused operators; a
// value read twice (a graph output too) ends the chain before its reader, with the same results.
#include <random>

#include "univk_test.h"
#include "vgf_test_util.h"

namespace univk::backends::vgf_test {
namespace {

std::vector<uint8_t> bytes_of(const HostTensor& t) {
  auto span = t.bytes();
  return std::vector<uint8_t>(span.begin(), span.end());
}

// Same-padded stride-1 3x3 convolution attributes with an input zero point (ints, for the graph
// of int8 tensors and for the reference alike).
Attributes conv_attrs() {
  Attributes a;
  a.set("pad", std::vector<int64_t>{1, 1, 1, 1});
  a.set("stride", std::vector<int64_t>{1, 1});
  a.set("dilation", std::vector<int64_t>{1, 1});
  a.set("acc_type", spirv::kAccInt32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", int64_t{-9});
  a.set("weight_zp", int64_t{0});
  return a;
}

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

}  // namespace
}  // namespace univk::backends::vgf_test
