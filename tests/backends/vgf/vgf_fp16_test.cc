// fp16 graphs (where the device supports shaderFloat16 and 16-bit storage): the fused
// elementwise program and pool dispatches store fp16 and compute in fp32; CAST converts fp32<->fp16.
// Expected values come from the fp32 reference on the fp16 inputs, rounded to fp16.
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

HostTensor to_half(const HostTensor& f) {
  HostTensor h(DType::kFloat16, f.shape());
  for (int64_t i = 0; i < f.numel(); ++i) h.data<uint16_t>()[i] = float_to_half(f.data<float>()[i]);
  return h;
}

HostTensor to_float(const HostTensor& h) {
  HostTensor f(DType::kFloat32, h.shape());
  for (int64_t i = 0; i < h.numel(); ++i) f.data<float>()[i] = half_to_float(h.data<uint16_t>()[i]);
  return f;
}

// Loads the model, or skips the test when the device has no fp16 support.
#define LOAD_OR_SKIP(var, model)                                               \
  auto var = load(model);                                                      \
  if (!var.ok() && var.status().code() == StatusCode::kIncompatible)           \
    GTEST_SKIP() << "device lacks fp16 support: " << var.status().to_string(); \
  ASSERT_TRUE(var.ok()) << var.status().to_string()

TEST(VgfFp16, PoolThenSquarePlusQuarterIsOneDispatch) {
  const TosaTensorType in_t{DType::kFloat16, {1, 6, 6, 4}}, t{DType::kFloat16, {1, 3, 3, 4}};
  TosaGraph g;
  ValueId x = g.add_input(in_t, 0, 0);
  const Attributes pa = pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0});
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {x}, pa, t);
  Attributes mul;
  mul.set("shift", int64_t{0});
  ValueId sq = g.add_operation(TosaOp::kMul, {p, p}, mul, t);
  const uint16_t quarter = float_to_half(0.25f);
  ValueId c = g.add_constant({DType::kFloat16, {1, 1, 1, 1}},
                             {static_cast<uint8_t>(quarter & 0xff), static_cast<uint8_t>(quarter >> 8)});
  g.add_output(g.add_operation(TosaOp::kAdd, {sq, c}, {}, t), 0, 1);
  LOAD_OR_SKIP(loaded, single_graph_model(g));
  HostTensor in = to_half(random_tensor(DType::kFloat32, Shape(in_t.shape), 70));
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  HostTensor pooled = ref("AVG_POOL2D", ref_pool_attrs(pa), {to_float(in)});
  HostTensor want = pooled;
  for (float& v : want.data<float>()) v = v * v + 0.25f;
  EXPECT_TRUE(tensors_close(to_float((*out)[0]), want, {2e-3f, 2e-3f})) << "fp16 pool + x*x+0.25";
  EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
}

TEST(VgfFp16, CastBothWays) {
  const Shape s({3, 5});
  for (bool to16 : {true, false}) {
    TosaGraph g;
    ValueId x = g.add_input({to16 ? DType::kFloat32 : DType::kFloat16, s.dims()}, 0, 0);
    g.add_output(g.add_operation(TosaOp::kCast, {x}, {}, {to16 ? DType::kFloat16 : DType::kFloat32, s.dims()}), 0, 1);
    LOAD_OR_SKIP(loaded, single_graph_model(g));
    HostTensor f = random_tensor(DType::kFloat32, s, 71, -100.f, 100.f);
    HostTensor in = to16 ? f : to_half(f);
    auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
    UNIVK_ASSERT_OK(out);
    EXPECT_TRUE(tensors_close((*out)[0], to16 ? to_half(f) : to_float(in), {})) << (to16 ? "fp32->fp16" : "fp16->fp32");
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
