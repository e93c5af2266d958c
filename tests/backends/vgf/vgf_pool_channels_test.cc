// Channels-last pools compute 4 channels per invocation (QUAD_C, pool.glsl): one 4-vector load
// per tap and one store, epilogue inputs as 4-vectors where their channels are contiguous and as
// 4 scalar loads where not. Plans (the constant, the invocation count) and results against
// univk::reference::run_tosa; the recorder's fallback for a misaligned base bitwise against the
// delegate's own run.
#include "vgf_plan_util.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

using backend::TensorInfo;
using backends::vgf::kPoolEpilogueQuadConstant;
using backends::vgf::kPoolQuadCConstant;
using backends::vgf::kPoolQuadXConstant;

struct ChannelCase {
  const char* name;
  int64_t c;
  std::vector<int64_t> kernel, stride, pad;
  uint32_t quad_c;  // expected
};

Attributes relu6_attrs() {
  Attributes a;
  a.set("min_val", 0.0);
  a.set("max_val", 6.0);
  a.set("nan_mode", spirv::kNanPropagate);
  return a;
}

Attributes mul_attrs() {
  Attributes a;
  a.set("shift", int64_t{0});
  return a;
}

// NHWC x [2,7,9,C] pooled, optionally followed by relu6(pool + y) * scale, where y is an NHWC
// graph input (channels contiguous: a 4-vector per invocation) or an NCHW one behind a
// TRANSPOSE (4 scalar loads), and scale a per-channel constant [1,1,1,C].
TosaGraph pool_graph(TosaOp op, DType dtype, const ChannelCase& cc, int64_t oh, int64_t ow, bool epilogue, bool y_nchw,
                     const std::vector<uint8_t>& scale_bytes) {
  TosaGraph g;
  const int64_t n = 2, c = cc.c;
  ValueId x = g.add_input({dtype, {n, 7, 9, c}}, 0, 0);
  const TosaTensorType t{dtype, {n, oh, ow, c}};
  ValueId r = g.add_operation(op, {x}, pool_attrs(op, cc.kernel, cc.stride, cc.pad), t);
  if (epilogue) {
    ValueId y =
        g.add_input({dtype, y_nchw ? std::vector<int64_t>{n, c, oh, ow} : std::vector<int64_t>{n, oh, ow, c}}, 0, 1);
    if (y_nchw) y = g.add_operation(TosaOp::kTranspose, {y}, perms({0, 2, 3, 1}), t);
    ValueId scale = g.add_constant({dtype, {1, 1, 1, c}}, scale_bytes);
    r = g.add_operation(TosaOp::kAdd, {r, y}, {}, t);
    r = g.add_operation(TosaOp::kClamp, {r}, relu6_attrs(), t);
    r = g.add_operation(TosaOp::kMul, {r, scale}, mul_attrs(), t);
  }
  g.add_output(r, 0, epilogue ? 2 : 1);
  return g;
}

int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t lo, int64_t hi) { return (in + lo + hi - k) / s + 1; }

TEST(VgfPoolChannels, ChannelsLastPoolsComputeFourChannelsPerInvocation) {
  const std::vector<ChannelCase> cases = {
      {"3x3 s2 padded, C 8", 8, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1},
      {"2x2 s2, C 12", 12, {2, 2}, {2, 2}, {0, 1, 0, 1}, 1},
      {"3x3 s2 padded, C 6", 6, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0},
  };
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    const bool f16 = dtype == DType::kFloat16;
    for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
      for (const ChannelCase& cc : cases) {
        for (int variant = 0; variant < 3; ++variant) {  // no epilogue, y NHWC, y NCHW
          const bool epilogue = variant > 0, y_nchw = variant == 2;
          const std::string what = std::string(spirv::tosa_op_name(op)) + (f16 ? " fp16 " : " fp32 ") + cc.name +
                                   (epilogue ? (y_nchw ? " +epilogue, y NCHW" : " +epilogue, y NHWC") : "");
          const int64_t n = 2, c = cc.c;
          const int64_t oh = pooled(7, cc.kernel[0], cc.stride[0], cc.pad[0], cc.pad[1]);
          const int64_t ow = pooled(9, cc.kernel[1], cc.stride[1], cc.pad[2], cc.pad[3]);
          HostTensor scale = random_tensor(dtype, Shape({1, 1, 1, c}), 203);
          const std::vector<uint8_t> scale_bytes(scale.bytes().begin(), scale.bytes().end());
          const TosaGraph g = pool_graph(op, dtype, cc, oh, ow, epilogue, y_nchw, scale_bytes);

          auto plan = plan_of(g);
          UNIVK_ASSERT_OK(plan) << what;
          ASSERT_EQ(plan->dispatches.size(), 1u) << what << ": the epilogue folds into the pool";
          const auto& k = plan->dispatches[0];
          EXPECT_EQ(spec_value(k, kPoolQuadCConstant), cc.quad_c) << what;
          EXPECT_EQ(spec_value(k, kPoolQuadXConstant), 0u) << what;
          // Bit 0: y (4-vector only when NHWC); bit 1: the per-channel scale.
          const uint32_t want_bits = epilogue && cc.quad_c ? (y_nchw ? 0b10u : 0b11u) : 0u;
          EXPECT_EQ(spec_value(k, kPoolEpilogueQuadConstant), want_bits) << what;
          EXPECT_EQ(k.work_items, static_cast<uint64_t>(n * oh * ow * c / (cc.quad_c ? 4 : 1))) << what;

          const HostTensor x = random_tensor(dtype, Shape({n, 7, 9, c}), 201);
          const HostTensor y = random_tensor(
              dtype, Shape(y_nchw ? std::vector<int64_t>{n, c, oh, ow} : std::vector<int64_t>{n, oh, ow, c}), 202);
          std::vector<HostTensor> inputs = {x};
          if (epilogue) inputs.push_back(y);
          Attributes ref_pa = ref_pool_attrs(pool_attrs(op, cc.kernel, cc.stride, cc.pad));
          HostTensor want = ref(std::string(spirv::tosa_op_name(op)), ref_pa, {widen(x)});
          if (epilogue) {
            HostTensor yw = y_nchw ? ref("TRANSPOSE", perms({0, 2, 3, 1}), {widen(y)}) : widen(y);
            want = ref("MUL", mul_attrs(), {ref("CLAMP", relu6_attrs(), {ref("ADD", {}, {want, yw})}), widen(scale)});
          }
          auto got = run(g, inputs);
          if (!got.ok() && got.status().code() == StatusCode::kIncompatible) GTEST_SKIP() << got.status().to_string();
          UNIVK_ASSERT_OK(got) << what;
          const float tol = f16 ? 2e-3f : 1e-6f;
          EXPECT_TRUE(tensors_close(widen(got->out), want, {tol, tol})) << what;
        }
      }
    }
  }
}

// The recorder clears QUAD_C (4x the invocations) when the output's or the input's base word is
// not a multiple of 4, and an epilogue input's 4-vector bit when its base is not; results stay
// bitwise those of the delegate's own run.
TEST(VgfPoolChannels, RecordedChannelsLastPoolFallsBackForMisalignedBases) {
  const ChannelCase cc{"3x3 s2 padded, C 8", 8, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1};
  HostTensor scale = random_tensor(DType::kFloat32, Shape({1, 1, 1, 8}), 213);
  const std::vector<uint8_t> scale_bytes(scale.bytes().begin(), scale.bytes().end());
  const TosaGraph g = pool_graph(TosaOp::kMaxPool2d, DType::kFloat32, cc, 4, 5, true, false, scale_bytes);
  auto plan = plan_of(g);
  UNIVK_ASSERT_OK(plan);
  ASSERT_EQ(plan->dispatches.size(), 1u);
  EXPECT_EQ(spec_value(plan->dispatches[0], kPoolQuadCConstant), 1u);

  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  const std::vector<HostTensor> inputs = {random_tensor(DType::kFloat32, Shape({2, 7, 9, 8}), 211),
                                          random_tensor(DType::kFloat32, Shape({2, 4, 5, 8}), 212)};
  auto executed = loaded->delegate->execute(inputs);
  UNIVK_ASSERT_OK(executed);
  ASSERT_GE(loaded->delegate->device()->properties().limits.minStorageBufferOffsetAlignment, 16u)
      << "the base words would stay 0";
  const std::vector<TensorInfo> infos = {{DType::kFloat32, Shape({2, 7, 9, 8})},
                                         {DType::kFloat32, Shape({2, 4, 5, 8})},
                                         {DType::kFloat32, Shape({2, 4, 5, 8})}};
  const char* names[] = {"x", "y", "output"};
  for (size_t shifted = 0; shifted < 3; ++shifted) {
    auto got = record_at_offsets(*loaded, inputs, infos, shifted, 4);
    UNIVK_ASSERT_OK(got) << names[shifted];
    EXPECT_TRUE(tensors_close(*got, (*executed)[0], {})) << std::string(names[shifted]) + " one element past 16 bytes";
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
