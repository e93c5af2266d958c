// Fusion and layout folding: the dispatch count per execute for the main example's pieces, each
// result checked against the TOSA reference.
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

Attributes mul_attrs() {
  Attributes a;
  a.set("shift", int64_t{0});
  return a;
}

HostTensor scalar_tensor(float v, size_t rank) {
  return HostTensor::from_floats(Shape(std::vector<int64_t>(rank, 1)), std::vector<float>{v});
}

TEST(VgfFusion, SquarePlusQuarterIsOneDispatch) {
  TosaGraph g;
  const TosaTensorType t{DType::kFloat32, {1, 3, 4, 4}};
  ValueId x = g.add_input(t, 0, 0);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, floats_bytes({0.25f}));
  ValueId sq = g.add_operation(TosaOp::kMul, {x, x}, mul_attrs(), t);
  ValueId y = g.add_operation(TosaOp::kAdd, {sq, c}, {}, t);
  g.add_output(y, 0, 1);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  HostTensor in = random_tensor(DType::kFloat32, Shape(t.shape), 1);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  HostTensor want = ref("ADD", {}, {ref("MUL", mul_attrs(), {in, in}), scalar_tensor(0.25f, 4)});
  EXPECT_TRUE(tensors_close((*out)[0], want, {1e-6f, 1e-6f})) << "x*x+0.25";
  const auto stats = loaded->delegate->stats();
  EXPECT_EQ(stats.dispatches, 1u);
  EXPECT_EQ(stats.bytes_uploaded, in.byte_size());
  EXPECT_EQ(stats.bytes_downloaded, want.byte_size());
}

TEST(VgfFusion, FiveOpChainWithBroadcastConstantIsOneDispatch) {
  TosaGraph g;
  const TosaTensorType t{DType::kFloat32, {2, 5, 7, 3}};
  ValueId x = g.add_input(t, 0, 0);
  ValueId scale = g.add_constant({DType::kFloat32, {1, 1, 1, 3}}, floats_bytes({0.5f, -1.5f, 2.0f}));
  Attributes clamp;
  clamp.set("min_val", -0.75);
  clamp.set("max_val", 0.8);
  clamp.set("nan_mode", spirv::kNanPropagate);
  ValueId s = g.add_operation(TosaOp::kSigmoid, {x}, {}, t);
  ValueId m = g.add_operation(TosaOp::kMul, {s, scale}, mul_attrs(), t);
  ValueId a = g.add_operation(TosaOp::kSub, {m, x}, {}, t);
  ValueId th = g.add_operation(TosaOp::kTanh, {a}, {}, t);
  ValueId y = g.add_operation(TosaOp::kClamp, {th}, clamp, t);
  g.add_output(y, 0, 1);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  HostTensor in = random_tensor(DType::kFloat32, Shape(t.shape), 2);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  HostTensor sc = HostTensor::from_floats(Shape({1, 1, 1, 3}), std::vector<float>{0.5f, -1.5f, 2.0f});
  HostTensor want =
      ref("CLAMP", clamp,
          {ref("TANH", {}, {ref("SUB", {}, {ref("MUL", mul_attrs(), {ref("SIGMOID", {}, {in}), sc}), in})})});
  EXPECT_TRUE(tensors_close((*out)[0], want, {1e-5f, 1e-5f})) << "5-op chain";
  EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
}

// NCHW model boundary: TRANSPOSE -> AVG_POOL2D -> TRANSPOSE runs as one dispatch.
TEST(VgfFusion, TransposedAvgPoolIsOneDispatch) {
  for (auto [pad, stride] :
       {std::pair<std::vector<int64_t>, int64_t>{{0, 0, 0, 0}, 2}, {{1, 1, 1, 1}, 2}, {{1, 0, 0, 1}, 1}}) {
    TosaGraph g;
    ValueId x = g.add_input({DType::kFloat32, {1, 3, 8, 8}}, 0, 0);
    ValueId nhwc = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {1, 8, 8, 3}});
    const int64_t oh = (8 + pad[0] + pad[1] - 2) / stride + 1, ow = (8 + pad[2] + pad[3] - 2) / stride + 1;
    Attributes pa = pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {stride, stride}, pad);
    ValueId p = g.add_operation(TosaOp::kAvgPool2d, {nhwc}, pa, {DType::kFloat32, {1, oh, ow, 3}});
    ValueId y = g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 3, oh, ow}});
    g.add_output(y, 0, 1);
    auto loaded = load(single_graph_model(g));
    UNIVK_ASSERT_OK(loaded);
    HostTensor in = random_tensor(DType::kFloat32, Shape({1, 3, 8, 8}), 3);
    auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
    UNIVK_ASSERT_OK(out);
    HostTensor want = ref("TRANSPOSE", perms({0, 3, 1, 2}),
                          {ref("AVG_POOL2D", ref_pool_attrs(pa), {ref("TRANSPOSE", perms({0, 2, 3, 1}), {in})})});
    EXPECT_TRUE(tensors_close((*out)[0], want, {1e-6f, 1e-6f})) << "transposed avg_pool";
    EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
  }
}

// AVG_POOL2D followed by two elementwise operators: the elementwise ops run as the pool's epilogue.
TEST(VgfFusion, AvgPoolWithTwoElementwiseOpsIsOneDispatch) {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {2, 9, 9, 4}}, 0, 0);
  Attributes pa = pool_attrs(TosaOp::kAvgPool2d, {3, 3}, {2, 2}, {1, 1, 1, 1});
  const TosaTensorType t{DType::kFloat32, {2, 5, 5, 4}};
  ValueId bias = g.add_constant({DType::kFloat32, {1, 1, 1, 4}}, floats_bytes({0.1f, 0.2f, -0.3f, 0.4f}));
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {x}, pa, t);
  ValueId s = g.add_operation(TosaOp::kSigmoid, {p}, {}, t);
  ValueId y = g.add_operation(TosaOp::kAdd, {s, bias}, {}, t);
  g.add_output(y, 0, 1);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  HostTensor in = random_tensor(DType::kFloat32, Shape({2, 9, 9, 4}), 4);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  HostTensor b = HostTensor::from_floats(Shape({1, 1, 1, 4}), std::vector<float>{0.1f, 0.2f, -0.3f, 0.4f});
  HostTensor want = ref("ADD", {}, {ref("SIGMOID", {}, {ref("AVG_POOL2D", ref_pool_attrs(pa), {in})}), b});
  EXPECT_TRUE(tensors_close((*out)[0], want, {1e-5f, 1e-5f})) << "pool + epilogue";
  EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
}

// NCHW elementwise chain between boundary transposes: folded, one dispatch.
TEST(VgfFusion, TransposedElementwiseChainIsOneDispatch) {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, 3, 4, 5}}, 0, 0);
  const TosaTensorType t{DType::kFloat32, {1, 4, 5, 3}};
  ValueId nhwc = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), t);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, floats_bytes({0.25f}));
  ValueId sq = g.add_operation(TosaOp::kMul, {nhwc, nhwc}, mul_attrs(), t);
  ValueId a = g.add_operation(TosaOp::kAdd, {sq, c}, {}, t);
  ValueId y = g.add_operation(TosaOp::kTranspose, {a}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 3, 4, 5}});
  g.add_output(y, 0, 1);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  HostTensor in = random_tensor(DType::kFloat32, Shape({1, 3, 4, 5}), 5);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  HostTensor want = ref("ADD", {}, {ref("MUL", mul_attrs(), {in, in}), scalar_tensor(0.25f, 4)});
  EXPECT_TRUE(tensors_close((*out)[0], want, {1e-6f, 1e-6f})) << "transposed chain";
  EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
}

}  // namespace
}  // namespace univk::backends::vgf_test
