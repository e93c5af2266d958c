// write_tosa_graph -> read_tosa_graph keeps every operator, attribute, type, constant and
// binding, for each supported operator and for a chain of several.
#include <gtest/gtest.h>

#include "tosa_test_graphs.h"
#include "univk_test.h"

namespace univk::spirv {
namespace {

void expect_same_graph(const TosaGraph& a, const TosaGraph& b) {
  EXPECT_EQ(a.entry_point, b.entry_point);
  ASSERT_EQ(a.operations.size(), b.operations.size());
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  auto same_value = [&](ValueId x, ValueId y) {
    const TosaValue& u = a.values[x];
    const TosaValue& v = b.values[y];
    EXPECT_EQ(u.kind, v.kind);
    EXPECT_EQ(u.type, v.type) << to_string(u.type) << " vs " << to_string(v.type);
    if (u.kind == ValueKind::kConstant) {
      EXPECT_EQ(u.data, v.data);
    }
    if (u.kind == ValueKind::kGraphConstant) {
      EXPECT_EQ(u.graph_constant_id, v.graph_constant_id);
    }
    if (u.kind == ValueKind::kOperation) {
      EXPECT_EQ(u.producer, v.producer);
    }
  };
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    same_value(a.inputs[i].value, b.inputs[i].value);
    EXPECT_EQ(a.inputs[i].descriptor_set, b.inputs[i].descriptor_set);
    EXPECT_EQ(a.inputs[i].binding, b.inputs[i].binding);
  }
  for (size_t i = 0; i < a.operations.size(); ++i) {
    const TosaOperation& x = a.operations[i];
    const TosaOperation& y = b.operations[i];
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.attrs.to_string(), y.attrs.to_string()) << tosa_op_name(x.op);
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (size_t k = 0; k < x.inputs.size(); ++k) same_value(x.inputs[k], y.inputs[k]);
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    for (size_t k = 0; k < x.outputs.size(); ++k) same_value(x.outputs[k], y.outputs[k]);
  }
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    same_value(a.outputs[i].value, b.outputs[i].value);
    EXPECT_EQ(a.outputs[i].descriptor_set, b.outputs[i].descriptor_set);
    EXPECT_EQ(a.outputs[i].binding, b.outputs[i].binding);
  }
}

TEST(TosaOps, NamesAndOpcodes) {
  EXPECT_EQ(tosa_op_name(TosaOp::kAvgPool2d), "AVG_POOL2D");
  EXPECT_EQ(tosa_op_name(TosaOp::kRescale), "RESCALE");
  EXPECT_EQ(tosa_op_from_name("DEPTHWISE_CONV2D"), TosaOp::kDepthwiseConv2d);
  EXPECT_FALSE(tosa_op_from_name("conv2d").has_value());
  EXPECT_EQ(static_cast<uint32_t>(TosaOp::kMul), 27u);
  EXPECT_EQ(static_cast<uint32_t>(TosaOp::kTable), 30u);
  EXPECT_EQ(static_cast<uint32_t>(TosaOp::kCast), 64u);
  for (uint32_t i = 0; i < kTosaOpCount; ++i) {
    const auto op = static_cast<TosaOp>(i);
    EXPECT_EQ(tosa_op_from_name(tosa_op_name(op)), op);
  }
  // + EQUAL, GREATER(_EQUAL), LOGICAL_AND/OR/NOT, SELECT, GATHER; TRANSPOSE_CONV2D; REVERSE,
  // SCATTER, CONV3D, FFT2D, RFFT2D; the integer bit operators, INTDIV, CLZ, LOGICAL_XOR,
  // CEIL/FLOOR/SIN/COS, REDUCE_MIN/PRODUCT/ALL/ANY: the whole TOSA 1.0 operator set.
  EXPECT_EQ(supported_tosa_ops().size(), 66u);
}

class TosaRoundTrip : public ::testing::TestWithParam<TosaOp> {};

TEST_P(TosaRoundTrip, Operator) {
  const TosaGraph g = testing::graph_for(GetParam());
  ASSERT_EQ(g.operations.size(), 1u) << "no test graph for " << tosa_op_name(GetParam());
  auto words = write_tosa_graph(g);
  UNIVK_ASSERT_OK(words);
  EXPECT_EQ((*words)[2], 0x75560001u);  // generator: univk's tool id 0x7556, layout version 1
  auto back = read_tosa_graph(*words);
  UNIVK_ASSERT_OK(back);
  expect_same_graph(g, *back);
  // Writing what was read gives the same module.
  auto again = write_tosa_graph(*back);
  UNIVK_ASSERT_OK(again);
  EXPECT_EQ(*words, *again);
}

INSTANTIATE_TEST_SUITE_P(AllSupported, TosaRoundTrip, ::testing::ValuesIn(supported_tosa_ops()),
                         [](const ::testing::TestParamInfo<TosaOp>& info) {
                           return std::string(tosa_op_name(info.param));
                         });

TEST(TosaRoundTripChain, ElementwiseChainWithSharedValues) {
  TosaGraph g;
  g.entry_point = "graph_partition_0";
  const TosaTensorType t{DType::kFloat32, {1, 3, 8, 8}};
  ValueId x = g.add_input(t, 1, 4);
  Attributes mul;
  mul.set("shift", int64_t{0});
  ValueId sq = g.add_operation(TosaOp::kMul, {x, x}, mul, t);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, testing::f32_bytes({0.25f}));
  ValueId sum = g.add_operation(TosaOp::kAdd, {sq, c}, {}, t);
  ValueId sig = g.add_operation(TosaOp::kSigmoid, {sum}, {}, t);
  g.add_output(sig, 1, 5);
  g.add_output(sq, 2, 0);
  auto words = write_tosa_graph(g);
  UNIVK_ASSERT_OK(words);
  auto back = read_tosa_graph(*words);
  UNIVK_ASSERT_OK(back);
  expect_same_graph(g, *back);
  EXPECT_EQ(back->operations[0].inputs[0], back->operations[0].inputs[1]);
}

// FFT2D's two results: an OpTypeStruct result taken apart by OpCompositeExtract, each member a
// value of its own that later operators read.
TEST(TosaRoundTripChain, MultiResultOperatorFeedsLaterOperators) {
  TosaGraph g;
  const TosaTensorType t{DType::kFloat32, {1, 4, 4}};
  ValueId re = g.add_input(t, 0, 0);
  ValueId im = g.add_input(t, 0, 1);
  Attributes fft;
  fft.set("inverse", int64_t{0});
  fft.set("local_bound", int64_t{0});
  std::vector<ValueId> y = g.add_operation(TosaOp::kFft2d, {re, im}, fft, std::vector<TosaTensorType>{t, t});
  ASSERT_EQ(y.size(), 2u);
  ValueId sum = g.add_operation(TosaOp::kAdd, {y[1], y[0]}, {}, t);
  g.add_output(sum, 0, 2);
  auto words = write_tosa_graph(g);
  UNIVK_ASSERT_OK(words);
  auto back = read_tosa_graph(*words);
  UNIVK_ASSERT_OK(back);
  expect_same_graph(g, *back);
  EXPECT_EQ(back->operations[1].inputs[0], back->operations[0].outputs[1]);
  EXPECT_EQ(back->operations[1].inputs[1], back->operations[0].outputs[0]);
}

TEST(TosaWriter, RejectsBadGraphs) {
  TosaGraph g = testing::graph_for(TosaOp::kAvgPool2d);
  g.operations[0].attrs = Attributes();
  auto r = write_tosa_graph(g);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("kernel"), std::string::npos) << r.status().message();

  g = testing::graph_for(TosaOp::kAdd);
  g.operations[0].inputs.pop_back();
  r = write_tosa_graph(g);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("inputs"), std::string::npos) << r.status().message();

  g = testing::graph_for(TosaOp::kAdd);
  g.operations[0].op = static_cast<TosaOp>(kTosaOpCount);  // outside the instruction set
  r = write_tosa_graph(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);

  // A two-result operator written with one result.
  g = testing::graph_for(TosaOp::kRfft2d);
  g.operations[0].outputs.pop_back();
  r = write_tosa_graph(g);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outputs, expected 2"), std::string::npos) << r.status().message();

  g = testing::graph_for(TosaOp::kSigmoid);
  g.outputs.clear();
  EXPECT_FALSE(write_tosa_graph(g).ok());

  // An operation that reads the result of a later one.
  TosaGraph cyc;
  const TosaTensorType t{DType::kFloat32, {4}};
  ValueId x = cyc.add_input(t, 0, 0);
  cyc.add_operation(TosaOp::kAdd, {x, 2}, {}, t);  // value 2 is the EXP result below
  ValueId y = cyc.add_operation(TosaOp::kExp, {x}, {}, t);
  cyc.add_output(y, 0, 1);
  r = write_tosa_graph(cyc);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("before it is computed"), std::string::npos) << r.status().message();

  TosaGraph wrong_bytes;
  ValueId in = wrong_bytes.add_input(t, 0, 0);
  ValueId k = wrong_bytes.add_constant(t, {1, 2, 3});
  wrong_bytes.add_output(wrong_bytes.add_operation(TosaOp::kAdd, {in, k}, {}, t), 0, 1);
  EXPECT_FALSE(write_tosa_graph(wrong_bytes).ok());
}

}  // namespace
}  // namespace univk::spirv
