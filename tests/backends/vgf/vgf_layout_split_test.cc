// Memory-order iteration, binding-limit slicing and per_delegate output staging of the
// VgfBackend: plans (dispatch counts, linear mode, pool order) and results, each checked against
// univk::reference::run_tosa and, for split dispatches, against the unsplit run. The binding limit
// is forced down with the `max_binding_bytes` option so every case stays small.
#include "backends/vgf/dispatch_emitters.h"
#include "backends/vgf/vgf_delegate.h"
#include "vgf_plan_util.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

using backend::TensorInfo;
using backends::vgf::BindingLimit;
using backends::vgf::Dispatch;
using backends::vgf::Shader;
using backends::vgf::TensorView;

Attributes mul_attrs() {
  Attributes a;
  a.set("shift", int64_t{0});
  return a;
}

// Runs `g` unsplit and with max_binding_bytes=`limit`; both must match `want`, and each other
// exactly; the split run must take `dispatches` dispatches.
void check_split(const TosaGraph& g, const std::vector<HostTensor>& inputs, const HostTensor& want, uint64_t limit,
                 uint32_t dispatches, float tol, const std::string& what) {
  auto whole = run(g, inputs);
  UNIVK_ASSERT_OK(whole) << what;
  EXPECT_EQ(whole->dispatches, 1u) << what;
  EXPECT_TRUE(tensors_close(whole->out, want, {tol, tol})) << what + " unsplit";
  auto split = run(g, inputs, {{"max_binding_bytes", std::to_string(limit)}});
  UNIVK_ASSERT_OK(split) << what;
  EXPECT_EQ(split->dispatches, dispatches) << what;
  EXPECT_TRUE(tensors_close(split->out, want, {tol, tol})) << what + " split";
  EXPECT_TRUE(tensors_close(split->out, whole->out, {})) << what + " split vs unsplit";
}

// x*x + 0.25 between NCHW<->NHWC transposes, the example's tail.
TosaGraph transposed_square_plus_quarter(std::vector<int64_t> nchw) {
  TosaGraph g;
  const std::vector<int64_t> nhwc = {nchw[0], nchw[2], nchw[3], nchw[1]};
  const TosaTensorType t{DType::kFloat32, nhwc};
  ValueId x = g.add_input({DType::kFloat32, nchw}, 0, 0);
  ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), t);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, floats_bytes({0.25f}));
  ValueId sq = g.add_operation(TosaOp::kMul, {v, v}, mul_attrs(), t);
  ValueId a = g.add_operation(TosaOp::kAdd, {sq, c}, {}, t);
  g.add_output(g.add_operation(TosaOp::kTranspose, {a}, perms({0, 3, 1, 2}), {DType::kFloat32, nchw}), 0, 1);
  return g;
}

TEST(VgfLayout, TransposedElementwiseChainRunsLinear) {
  auto plan = plan_of(transposed_square_plus_quarter({2, 3, 5, 7}));
  UNIVK_ASSERT_OK(plan);
  ASSERT_EQ(plan->dispatches.size(), 1u);
  const Dispatch& k = plan->dispatches[0];
  EXPECT_EQ(spec_value(k, 0), 1u) << "MODE linear";
  EXPECT_EQ(k.outputs[0].shape, (std::vector<int64_t>{2 * 3 * 5 * 7}));
  EXPECT_EQ(k.inputs[0].strides, (std::vector<int64_t>{1}));
}

TEST(VgfLayout, CanonicalIterationKeepsBroadcastDims) {
  // NHWC views over NCHW memory [2,3,4,5]; the second input is per-channel.
  TensorView out;
  out.shape = {2, 4, 5, 3};
  out.strides = {60, 5, 1, 20};
  TensorView x = out;
  TensorView bias;
  bias.shape = {1, 1, 1, 3};
  bias.strides = {3, 3, 3, 1};
  auto views = backends::vgf::canonical_iteration(out, {x, bias});
  UNIVK_ASSERT_OK(views);
  // N and C merge for out and x but not for the bias (stride 0 then 1); H and W merge.
  EXPECT_EQ((*views)[0].shape, (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ((*views)[0].strides, (std::vector<int64_t>{60, 20, 1}));
  EXPECT_EQ((*views)[1].strides, (std::vector<int64_t>{60, 20, 1}));
  EXPECT_EQ((*views)[2].strides, (std::vector<int64_t>{0, 1, 0}));
}

TEST(VgfLayout, TransposedChainWithPerChannelInputMatchesReference) {
  TosaGraph g;
  const std::vector<int64_t> nchw = {3, 3, 4, 5};
  const TosaTensorType t{DType::kFloat32, {3, 4, 5, 3}};
  ValueId x = g.add_input({DType::kFloat32, nchw}, 0, 0);
  ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), t);
  ValueId bias = g.add_constant({DType::kFloat32, {1, 1, 1, 3}}, floats_bytes({0.5f, -1.f, 2.f}));
  ValueId a = g.add_operation(TosaOp::kAdd, {g.add_operation(TosaOp::kSigmoid, {v}, {}, t), bias}, {}, t);
  g.add_output(g.add_operation(TosaOp::kTranspose, {a}, perms({0, 3, 1, 2}), {DType::kFloat32, nchw}), 0, 1);
  HostTensor in = random_tensor(DType::kFloat32, Shape(nchw), 11);
  HostTensor b = HostTensor::from_floats(Shape({1, 1, 1, 3}), std::vector<float>{0.5f, -1.f, 2.f});
  HostTensor want = ref("TRANSPOSE", perms({0, 3, 1, 2}),
                        {ref("ADD", {}, {ref("SIGMOID", {}, {ref("TRANSPOSE", perms({0, 2, 3, 1}), {in})}), b})});
  // Canonical dims [3, 3, 20] (see above): one image is 240 bytes, so 2 fit in 480: 2 + 1.
  check_split(g, {in}, want, 480, 2, 1e-6f, "per-channel chain");
}

// TRANSPOSE -> pool -> TRANSPOSE over NCHW memory iterates (n, c, oy, ox); a plain NHWC pool
// iterates (n, oy, ox, c).
TEST(VgfLayout, PoolOrderFollowsOutputMemory) {
  for (bool nchw : {true, false}) {
    for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
      for (DType dtype : {DType::kFloat32, DType::kInt8}) {
        const bool int8 = dtype == DType::kInt8;
        TosaGraph g;
        Attributes pa = pool_attrs(op, {3, 3}, {2, 2}, {1, 1, 1, 0}, int8);
        ValueId x =
            g.add_input({dtype, nchw ? std::vector<int64_t>{2, 3, 9, 8} : std::vector<int64_t>{2, 9, 8, 3}}, 0, 0);
        ValueId in = nchw ? g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {dtype, {2, 9, 8, 3}}) : x;
        ValueId p = g.add_operation(op, {in}, pa, {dtype, {2, 5, 4, 3}});
        g.add_output(nchw ? g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {dtype, {2, 3, 5, 4}}) : p, 0,
                     1);
        const std::string what =
            std::string(spirv::tosa_op_name(op)) + (int8 ? " int8" : " fp32") + (nchw ? " NCHW" : " NHWC");
        auto plan = plan_of(g);
        UNIVK_ASSERT_OK(plan) << what;
        ASSERT_EQ(plan->dispatches.size(), 1u) << what;
        EXPECT_EQ(spec_value(plan->dispatches[0], int8 ? 1u : 2u), nchw ? 1u : 0u) << what;

        HostTensor x_host = random_tensor(dtype, Shape(g.values[x].type.shape), 21);
        const std::string name(spirv::tosa_op_name(op));
        HostTensor want = nchw ? ref("TRANSPOSE", perms({0, 3, 1, 2}),
                                     {ref(name, ref_pool_attrs(pa), {ref("TRANSPOSE", perms({0, 2, 3, 1}), {x_host})})})
                               : ref(name, ref_pool_attrs(pa), {x_host});
        auto got = run(g, {x_host});
        UNIVK_ASSERT_OK(got) << what;
        EXPECT_TRUE(tensors_close(got->out, want, {1e-6f, 1e-6f})) << what;
      }
    }
  }
}

// Pool geometries for the 4-outputs-per-invocation tests: an NCHW [3,3,H,W] input, optionally
// sliced along W (start `start`, width `w`), pooled to [3,3,OH,OW].
struct QuadCase {
  const char* name;
  int64_t h, w_total, start, w;
  std::vector<int64_t> kernel, stride, pad;
  uint32_t quad_x, quad_load, pair_x;  // expected specialization constants (NCHW output)
};

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t pad_lo, int64_t pad_hi) {
  return (in + pad_lo + pad_hi - k) / s + 1;
}

// NHWC [N,H,W,C] -> NCHW, any element size (a byte copy, so comparisons stay bitwise).
HostTensor nhwc_to_nchw(const HostTensor& t) {
  const auto d = t.shape().dims();
  HostTensor out(t.dtype(), Shape({d[0], d[3], d[1], d[2]}));
  const size_t es = dtype_size(t.dtype());
  const uint8_t* src = t.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t n = 0; n < d[0]; ++n)
    for (int64_t y = 0; y < d[1]; ++y)
      for (int64_t x = 0; x < d[2]; ++x)
        for (int64_t c = 0; c < d[3]; ++c)
          std::memcpy(dst + (((n * d[3] + c) * d[1] + y) * d[2] + x) * es,
                      src + (((n * d[1] + y) * d[2] + x) * d[3] + c) * es, es);
  return out;
}

// fp16 copy of `t` (fp32); `t` is rounded to the fp16 values so the fp32 reference sees them.
HostTensor to_half(HostTensor& t) {
  HostTensor h(DType::kFloat16, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    h.data<uint16_t>()[i] = float_to_half(t.data<float>()[i]);
    t.data<float>()[i] = half_to_float(h.data<uint16_t>()[i]);
  }
  return h;
}

// Output rows as wide as a multiple of 4 run 4 outputs per invocation (QUAD_X), with two
// 4-vector loads per input row for 4-aligned 2x2 stride-2 windows (QUAD_LOAD); other widths
// and offsets fall back. AVG/MAX x fp32/fp16 x no epilogue / SIGMOID*y+bias (y an NCHW graph
// input behind a TRANSPOSE: 4-vector loads; bias per channel: scalar loads), each against the reference and bitwise
// against the same graph with an NHWC output (W stride 3: one output per invocation, same math); the aligned 2x2 case
// with the epilogue also split along N and into row bands with max_binding_bytes (bitwise against the unsplit run,
// 4-wide in every slice).
TEST(VgfLayout, PoolsComputeFourOutputsPerInvocation) {
  using backends::vgf::kPoolEpilogueQuadConstant;
  using backends::vgf::kPoolPairXConstant;
  using backends::vgf::kPoolQuadLoadConstant;
  using backends::vgf::kPoolQuadXConstant;
  const std::vector<QuadCase> cases = {
      {"2x2 aligned", 6, 16, 0, 16, {2, 2}, {2, 2}, {0, 0, 0, 0}, 1, 1, 1},
      {"2x2 W offset 1", 6, 17, 1, 16, {2, 2}, {2, 2}, {0, 0, 0, 0}, 1, 0, 0},
      {"2x2 W offset 2", 6, 18, 2, 16, {2, 2}, {2, 2}, {0, 0, 0, 0}, 1, 0, 1},
      {"3x3 padded", 9, 16, 0, 16, {3, 3}, {2, 2}, {1, 1, 1, 0}, 1, 0, 0},
      {"OW 6", 6, 12, 0, 12, {2, 2}, {2, 2}, {0, 0, 0, 0}, 0, 0, 1},
  };
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    const bool f16 = dtype == DType::kFloat16;
    for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
      for (bool epilogue : {false, true}) {
        for (const QuadCase& qc : cases) {
          // The full matrix for the two main cases; the others once per dtype and op (the
          // validation layer makes every load slow).
          const bool main_case = qc.quad_load == 1 || qc.quad_x == 0;
          if (!main_case && epilogue != f16) continue;
          const std::string what = std::string(spirv::tosa_op_name(op)) + (f16 ? " fp16 " : " fp32 ") + qc.name +
                                   (epilogue ? " +epilogue" : "");
          const int64_t n = 3, c = 3;
          const int64_t oh = pooled_size(qc.h, qc.kernel[0], qc.stride[0], qc.pad[0], qc.pad[1]);
          const int64_t ow = pooled_size(qc.w, qc.kernel[1], qc.stride[1], qc.pad[2], qc.pad[3]);
          const Attributes pa = pool_attrs(op, qc.kernel, qc.stride, qc.pad);
          Attributes sa;
          sa.set("start", std::vector<int64_t>{0, 0, qc.start, 0});
          sa.set("size", std::vector<int64_t>{n, qc.h, qc.w, c});
          // A per-channel bias (W stride 0: scalar epilogue loads next to y's 4-vector loads).
          HostTensor bias32 = HostTensor::from_floats(Shape({1, 1, 1, c}), std::vector<float>{0.25f, -0.5f, 0.125f});
          const HostTensor bias = f16 ? to_half(bias32) : bias32;
          const std::vector<uint8_t> bias_bytes(bias.bytes().begin(), bias.bytes().end());
          // nchw_out: the TOSA result goes back to NCHW (4-wide); otherwise it stays NHWC.
          auto build = [&](bool nchw_out) {
            TosaGraph g;
            ValueId x = g.add_input({dtype, {n, c, qc.h, qc.w_total}}, 0, 0);
            ValueId v =
                g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {dtype, {n, qc.h, qc.w_total, c}});
            if (qc.w != qc.w_total) v = g.add_operation(TosaOp::kSlice, {v}, sa, {dtype, {n, qc.h, qc.w, c}});
            const TosaTensorType t{dtype, {n, oh, ow, c}};
            ValueId r = g.add_operation(op, {v}, pa, t);
            if (epilogue) {
              ValueId y = g.add_input({dtype, {n, c, oh, ow}}, 0, 1);
              ValueId yt = g.add_operation(TosaOp::kTranspose, {y}, perms({0, 2, 3, 1}), t);
              ValueId b = g.add_constant({dtype, {1, 1, 1, c}}, bias_bytes);
              r = g.add_operation(TosaOp::kSigmoid, {r}, {}, t);
              r = g.add_operation(TosaOp::kMul, {r, yt}, mul_attrs(), t);
              r = g.add_operation(TosaOp::kAdd, {r, b}, {}, t);
            }
            const uint32_t out_binding = epilogue ? 2 : 1;
            if (nchw_out) r = g.add_operation(TosaOp::kTranspose, {r}, perms({0, 3, 1, 2}), {dtype, {n, c, oh, ow}});
            g.add_output(r, 0, out_binding);
            return g;
          };
          const TosaGraph quad = build(true), single = build(false);
          auto pool_dispatch_of = [&](const backends::vgf::SegmentPlan& plan) -> const Dispatch* {
            for (const Dispatch& k : plan.dispatches)
              if (k.shader == Shader::kPoolF32 || k.shader == Shader::kPoolF16) return &k;
            ADD_FAILURE() << what << ": no pool dispatch";
            return nullptr;
          };
          auto quad_plan = plan_of(quad);
          auto single_plan = plan_of(single);
          ASSERT_TRUE(quad_plan.ok() && single_plan.ok()) << what;
          ASSERT_EQ(quad_plan->dispatches.size(), 1u)
              << what << ": the epilogue and both TRANSPOSEs fold into the pool";
          const Dispatch* qk = pool_dispatch_of(*quad_plan);
          const Dispatch* sk = pool_dispatch_of(*single_plan);
          ASSERT_TRUE(qk && sk) << what;
          EXPECT_EQ(spec_value(*qk, kPoolQuadXConstant), qc.quad_x) << what;
          EXPECT_EQ(spec_value(*qk, kPoolQuadLoadConstant), qc.quad_load) << what;
          EXPECT_EQ(spec_value(*qk, kPoolPairXConstant), qc.pair_x) << what;
          EXPECT_EQ(spec_value(*qk, kPoolEpilogueQuadConstant), epilogue ? qc.quad_x : 0u) << what << " (y only)";
          EXPECT_EQ(qk->work_items, static_cast<uint64_t>(n * c * oh * ow / (qc.quad_x ? 4 : 1))) << what;
          EXPECT_EQ(spec_value(*sk, kPoolQuadXConstant), 0u) << what << " (NHWC output)";
          EXPECT_EQ(spec_value(*sk, kPoolPairXConstant), qc.pair_x) << what << " (NHWC output)";

          HostTensor x32 = random_tensor(DType::kFloat32, Shape({n, c, qc.h, qc.w_total}), 101);
          HostTensor y32 = random_tensor(DType::kFloat32, Shape({n, c, oh, ow}), 102);
          std::vector<HostTensor> inputs = {f16 ? to_half(x32) : x32};
          if (epilogue) inputs.push_back(f16 ? to_half(y32) : y32);
          HostTensor want = ref("TRANSPOSE", perms({0, 2, 3, 1}), {x32});
          if (qc.w != qc.w_total) want = ref("SLICE", sa, {want});
          want = ref(std::string(spirv::tosa_op_name(op)), ref_pool_attrs(pa), {want});
          if (epilogue) {
            HostTensor s =
                ref("MUL", mul_attrs(), {ref("SIGMOID", {}, {want}), ref("TRANSPOSE", perms({0, 2, 3, 1}), {y32})});
            want = ref("ADD", {}, {s, bias32});
          }
          want = nhwc_to_nchw(want);
          const float tol = f16 ? 1e-3f : 1e-5f;

          auto q = run(quad, inputs);
          if (!q.ok() && q.status().code() == StatusCode::kIncompatible) GTEST_SKIP() << q.status().to_string();
          UNIVK_ASSERT_OK(q) << what;
          EXPECT_TRUE(tensors_close(widen(q->out), want, {tol, tol})) << what;
          auto one = run(single, inputs);
          UNIVK_ASSERT_OK(one) << what;
          EXPECT_TRUE(tensors_close(q->out, nhwc_to_nchw(one->out), {})) << what + " vs one output per invocation";

          // Slices: whole images (limit = one image's input), then row bands of one image (one
          // input row less; in NCHW memory a band still spans every channel plane).
          if (!epilogue || !main_case || qc.quad_x == 0) continue;
          const uint64_t row_bytes = static_cast<uint64_t>(qc.w_total) * dtype_size(dtype);
          const uint64_t image_bytes = static_cast<uint64_t>(c * qc.h) * row_bytes;
          for (uint64_t limit : {image_bytes, image_bytes - row_bytes}) {
            const std::string sliced = what + " max_binding_bytes " + std::to_string(limit);
            auto plan = plan_of(quad, BindingLimit{limit, 16});
            UNIVK_ASSERT_OK(plan) << sliced;
            EXPECT_GE(plan->dispatches.size(), limit == image_bytes ? 3u : 6u) << sliced;
            for (const Dispatch& k : plan->dispatches) EXPECT_EQ(spec_value(k, kPoolQuadXConstant), 1u) << sliced;
            auto split = run(quad, inputs, {{"max_binding_bytes", std::to_string(limit)}});
            UNIVK_ASSERT_OK(split) << sliced;
            EXPECT_EQ(split->dispatches, plan->dispatches.size()) << sliced;
            EXPECT_TRUE(tensors_close(split->out, q->out, {})) << sliced + " vs unsplit";
          }
        }
      }
    }
  }
}

// The recorder's fallbacks: record() over caller buffers where one binding starts one fp32
// element past a 16-byte boundary (lavapipe's minStorageBufferOffsetAlignment), so its base word
// is 1. That clears the vector access the binding needs (QUAD_X with 4x the invocations for the
// output, QUAD_LOAD and PAIR_X for the pool input, EPILOGUE_QUAD's bit for y); a wrong vector
// index would read or write the wrong elements. Results stay bitwise those of execute().
TEST(VgfLayout, RecordedPoolFallsBackForMisalignedBases) {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {2, 3, 6, 16}}, 0, 0);
  ValueId y = g.add_input({DType::kFloat32, {2, 3, 3, 8}}, 0, 1);
  const TosaTensorType t{DType::kFloat32, {2, 3, 8, 3}};
  ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {2, 6, 16, 3}});
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {v}, pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0}), t);
  ValueId s = g.add_operation(TosaOp::kSigmoid, {p}, {}, t);
  ValueId yt = g.add_operation(TosaOp::kTranspose, {y}, perms({0, 2, 3, 1}), t);
  ValueId m = g.add_operation(TosaOp::kMul, {s, yt}, mul_attrs(), t);
  g.add_output(g.add_operation(TosaOp::kTranspose, {m}, perms({0, 3, 1, 2}), {DType::kFloat32, {2, 3, 3, 8}}), 0, 2);
  auto plan = plan_of(g);
  UNIVK_ASSERT_OK(plan);
  ASSERT_EQ(plan->dispatches.size(), 1u);
  EXPECT_EQ(spec_value(plan->dispatches[0], backends::vgf::kPoolQuadXConstant), 1u);
  EXPECT_EQ(spec_value(plan->dispatches[0], backends::vgf::kPoolQuadLoadConstant), 1u);
  EXPECT_EQ(spec_value(plan->dispatches[0], backends::vgf::kPoolEpilogueQuadConstant), 1u);

  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  const std::vector<HostTensor> inputs = {random_tensor(DType::kFloat32, Shape({2, 3, 6, 16}), 111),
                                          random_tensor(DType::kFloat32, Shape({2, 3, 3, 8}), 112)};
  auto executed = loaded->delegate->execute(inputs);
  UNIVK_ASSERT_OK(executed);
  const HostTensor& want = (*executed)[0];
  ASSERT_GE(loaded->delegate->device()->properties().limits.minStorageBufferOffsetAlignment, 16u)
      << "the base words would stay 0";
  const std::vector<TensorInfo> infos = {{DType::kFloat32, Shape({2, 3, 6, 16})},
                                         {DType::kFloat32, Shape({2, 3, 3, 8})},
                                         {DType::kFloat32, Shape({2, 3, 3, 8})}};
  const char* names[] = {"x", "y", "output"};
  for (size_t shifted = 0; shifted < 3; ++shifted) {
    auto got = record_at_offsets(*loaded, inputs, infos, shifted, 4);
    UNIVK_ASSERT_OK(got) << names[shifted];
    EXPECT_EQ(loaded->delegate->stats().dispatches, 1u) << names[shifted];
    EXPECT_TRUE(tensors_close(*got, want, {})) << std::string(names[shifted]) + " one element past a 16-byte boundary";
  }
}

// 2x2 stride-2 windows over NCHW memory read each row's two taps with one load (PAIR_X), unless
// the input view starts at an odd element (a SLICE along W by 1). fp16 results are compared
// with the fp32 reference on the fp16 inputs.
TEST(VgfLayout, TwoByTwoPoolsLoadTapPairs) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
      for (int64_t start : {0, 1}) {
        const std::string what = std::string(spirv::tosa_op_name(op)) + (dtype == DType::kFloat16 ? " fp16" : " fp32") +
                                 " W slice at " + std::to_string(start);
        TosaGraph g;
        ValueId x = g.add_input({dtype, {2, 3, 6, 10}}, 0, 0);
        ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {dtype, {2, 6, 10, 3}});
        Attributes sa;
        sa.set("start", std::vector<int64_t>{0, 0, start, 0});
        sa.set("size", std::vector<int64_t>{2, 6, 8, 3});
        ValueId sl = g.add_operation(TosaOp::kSlice, {v}, sa, {dtype, {2, 6, 8, 3}});
        Attributes pa = pool_attrs(op, {2, 2}, {2, 2}, {0, 0, 0, 0});
        ValueId p = g.add_operation(op, {sl}, pa, {dtype, {2, 3, 4, 3}});
        g.add_output(g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {dtype, {2, 3, 3, 4}}), 0, 1);
        auto plan = plan_of(g);
        UNIVK_ASSERT_OK(plan) << what;
        ASSERT_EQ(plan->dispatches.size(), 1u) << what;
        EXPECT_EQ(spec_value(plan->dispatches[0], backends::vgf::kPoolPairXConstant), start == 0 ? 1u : 0u) << what;

        HostTensor in32 = random_tensor(DType::kFloat32, Shape({2, 3, 6, 10}), 91);
        HostTensor in = in32;
        if (dtype == DType::kFloat16) {
          in = HostTensor(DType::kFloat16, in32.shape());
          for (int64_t i = 0; i < in32.numel(); ++i) {
            in.data<uint16_t>()[i] = float_to_half(in32.data<float>()[i]);
            in32.data<float>()[i] = half_to_float(in.data<uint16_t>()[i]);
          }
        }
        HostTensor want = ref("TRANSPOSE", perms({0, 3, 1, 2}),
                              {ref(std::string(spirv::tosa_op_name(op)), ref_pool_attrs(pa),
                                   {ref("SLICE", sa, {ref("TRANSPOSE", perms({0, 2, 3, 1}), {in32})})})});
        auto loaded = load(single_graph_model(g));
        if (!loaded.ok() && loaded.status().code() == StatusCode::kIncompatible) {
          GTEST_SKIP() << "device lacks fp16 support: " << loaded.status().to_string();
        }
        UNIVK_ASSERT_OK(loaded) << what;
        auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
        UNIVK_ASSERT_OK(out) << what;
        HostTensor got = (*out)[0];
        if (dtype == DType::kFloat16) {
          HostTensor widened(DType::kFloat32, got.shape());
          for (int64_t i = 0; i < got.numel(); ++i) widened.data<float>()[i] = half_to_float(got.data<uint16_t>()[i]);
          got = widened;
        }
        const float tol = dtype == DType::kFloat16 ? 1e-3f : 1e-6f;
        EXPECT_TRUE(tensors_close(got, want, {tol, tol})) << what;
      }
    }
  }
}

// The H200 workload, as data only: a [16,64,1024,1024] fp32 input is 4294967296 bytes, one
// more than NVIDIA's maxStorageBufferRange, so the pool runs as two dispatches of 8 images, each
// with 4 outputs per invocation and two 4-vector loads per input row.
TEST(VgfSplit, FourGibPoolSplitsInTwoUnderNvidiaLimit) {
  const BindingLimit nvidia{4294967295u, 64};
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {16, 64, 1024, 1024}}, 0, 0);
  ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {16, 1024, 1024, 64}});
  const TosaTensorType t{DType::kFloat32, {16, 512, 512, 64}};
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {v}, pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0}), t);
  ValueId s = g.add_operation(TosaOp::kSigmoid, {p}, {}, t);
  g.add_output(g.add_operation(TosaOp::kTranspose, {s}, perms({0, 3, 1, 2}), {DType::kFloat32, {16, 64, 512, 512}}), 0,
               1);
  auto whole = plan_of(g);
  UNIVK_ASSERT_OK(whole);
  EXPECT_EQ(whole->dispatches.size(), 1u);
  auto plan = plan_of(g, nvidia);
  UNIVK_ASSERT_OK(plan);
  ASSERT_EQ(plan->dispatches.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Dispatch& k = plan->dispatches[i];
    EXPECT_EQ(k.label, "AVG_POOL2D+SIGMOID");
    EXPECT_EQ(k.inputs[0].shape[0], 8);
    EXPECT_EQ(k.inputs[0].offset, static_cast<int64_t>(i) * 8 * 64 * 1024 * 1024);
    EXPECT_EQ(k.outputs[0].offset, static_cast<int64_t>(i) * 8 * 64 * 512 * 512);
    EXPECT_EQ(spec_value(k, 2), 1u) << "NCHW order";
    EXPECT_EQ(spec_value(k, backends::vgf::kPoolPairXConstant), 1u) << "tap pairs";
    EXPECT_EQ(spec_value(k, backends::vgf::kPoolQuadXConstant), 1u) << "4 outputs per invocation";
    EXPECT_EQ(spec_value(k, backends::vgf::kPoolQuadLoadConstant), 1u) << "4-vector loads";
    EXPECT_EQ(k.work_items, uint64_t{8} * 64 * 512 * 512 / 4);
    EXPECT_LE(backends::vgf::view_binding_bytes(k.inputs[0], 0, 64), nvidia.max_bytes);
  }
}

TEST(VgfSplit, LinearChainSplitsIntoAlignedSlices) {
  const std::vector<int64_t> nchw = {5, 3, 4, 5};  // 300 elements
  TosaGraph g = transposed_square_plus_quarter(nchw);
  HostTensor in = random_tensor(DType::kFloat32, Shape(nchw), 31);
  HostTensor want =
      ref("ADD", {},
          {ref("MUL", mul_attrs(), {in, in}), HostTensor::from_floats(Shape({1, 1, 1, 1}), std::vector<float>{0.25f})});
  // 100 elements per binding: three slices of one packed dim.
  check_split(g, {in}, want, 400, 3, 1e-6f, "x*x+0.25");
}

TEST(VgfSplit, TransposedPoolSplitsAlongNUnevenly) {
  // NCHW [5,3,8,8]: one image is 768 bytes, so a 1536-byte limit gives slices of 2, 2 and 1.
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {5, 3, 8, 8}}, 0, 0);
  ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {5, 8, 8, 3}});
  Attributes pa = pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0});
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {v}, pa, {DType::kFloat32, {5, 4, 4, 3}});
  g.add_output(g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {DType::kFloat32, {5, 3, 4, 4}}), 0, 1);
  HostTensor in = random_tensor(DType::kFloat32, Shape({5, 3, 8, 8}), 41);
  HostTensor want = ref("TRANSPOSE", perms({0, 3, 1, 2}),
                        {ref("AVG_POOL2D", ref_pool_attrs(pa), {ref("TRANSPOSE", perms({0, 2, 3, 1}), {in})})});
  check_split(g, {in}, want, 1536, 3, 1e-6f, "NCHW avg pool");
}

TEST(VgfSplit, PoolWithEpilogueSplitsAlongN) {
  // NHWC [5,9,9,4] input: 1296 bytes per image; 2600 bytes hold 2 images.
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {5, 9, 9, 4}}, 0, 0);
  Attributes pa = pool_attrs(TosaOp::kAvgPool2d, {3, 3}, {2, 2}, {1, 1, 1, 1});
  const TosaTensorType t{DType::kFloat32, {5, 5, 5, 4}};
  ValueId bias = g.add_constant({DType::kFloat32, {1, 1, 1, 4}}, floats_bytes({0.1f, 0.2f, -0.3f, 0.4f}));
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {x}, pa, t);
  ValueId s = g.add_operation(TosaOp::kSigmoid, {p}, {}, t);
  g.add_output(g.add_operation(TosaOp::kAdd, {s, bias}, {}, t), 0, 1);
  HostTensor in = random_tensor(DType::kFloat32, Shape({5, 9, 9, 4}), 51);
  HostTensor b = HostTensor::from_floats(Shape({1, 1, 1, 4}), std::vector<float>{0.1f, 0.2f, -0.3f, 0.4f});
  HostTensor want = ref("ADD", {}, {ref("SIGMOID", {}, {ref("AVG_POOL2D", ref_pool_attrs(pa), {in})}), b});
  check_split(g, {in}, want, 2600, 3, 1e-5f, "pool + epilogue");
}

TEST(VgfSplit, PoolSplitsOneImageIntoRowBands) {
  // NHWC [2,16,16,3]: a band of r input rows is 192 r bytes, so 1024 bytes hold 5 input rows,
  // i.e. 2 output rows of a 3x3 stride-2 window: 4 bands per image (padding at both ends).
  for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
    TosaGraph g;
    ValueId x = g.add_input({DType::kFloat32, {2, 16, 16, 3}}, 0, 0);
    Attributes pa = pool_attrs(op, {3, 3}, {2, 2}, {1, 2, 1, 2});
    g.add_output(g.add_operation(op, {x}, pa, {DType::kFloat32, {2, 9, 9, 3}}), 0, 1);
    HostTensor in = random_tensor(DType::kFloat32, Shape({2, 16, 16, 3}), 61);
    HostTensor want = ref(std::string(spirv::tosa_op_name(op)), ref_pool_attrs(pa), {in});
    // 9 output rows in bands of 2 (the last one 1), per image.
    check_split(g, {in}, want, 1024, 10, 1e-6f, std::string(spirv::tosa_op_name(op)) + " row bands");
  }
}

// One operator over graph inputs, split along the batch: weights, bias and tables stay whole.
void check_batch_split(TosaOp op, const Attributes& attrs, const std::vector<HostTensor>& inputs,
                       std::vector<int64_t> out_shape, uint64_t limit, uint32_t dispatches, const std::string& what) {
  TosaGraph g;
  std::vector<ValueId> ins;
  for (size_t i = 0; i < inputs.size(); ++i)
    ins.push_back(g.add_input({inputs[i].dtype(), inputs[i].shape().dims()}, 0, static_cast<uint32_t>(i)));
  g.add_output(g.add_operation(op, ins, attrs, {DType::kFloat32, out_shape}), 0, static_cast<uint32_t>(inputs.size()));
  Attributes ref_attrs = attrs;
  for (const char* name : {"input_zp", "weight_zp", "a_zp", "b_zp"})
    if (ref_attrs.has(name)) ref_attrs.set(name, static_cast<int64_t>(ref_attrs.get_float(name).value()));
  check_split(g, inputs, ref(std::string(spirv::tosa_op_name(op)), ref_attrs, inputs), limit, dispatches, 1e-5f, what);
}

TEST(VgfSplit, ConvolutionAndMatmulSplitAlongTheBatch) {
  const Attributes conv = conv2d_attrs({1, 1, 1, 1}, {1, 1});
  // Output images of 576 bytes, 2 per 1200-byte binding: 2 + 2 + 1.
  check_batch_split(
      TosaOp::kConv2d, conv,
      {random_tensor(DType::kFloat32, Shape({5, 6, 6, 3}), 81), random_tensor(DType::kFloat32, Shape({4, 3, 3, 3}), 82),
       random_tensor(DType::kFloat32, Shape({4}), 83)},
      {5, 6, 6, 4}, 1200, 3, "CONV2D");
  check_batch_split(
      TosaOp::kDepthwiseConv2d, conv,
      {random_tensor(DType::kFloat32, Shape({5, 6, 6, 3}), 84), random_tensor(DType::kFloat32, Shape({3, 3, 3, 2}), 85),
       random_tensor(DType::kFloat32, Shape({6}), 86)},
      {5, 6, 6, 6}, 1800, 3, "DEPTHWISE_CONV2D");
  Attributes mm;
  mm.set("a_zp", 0.0);
  mm.set("b_zp", 0.0);
  // A is 48 bytes per batch: 2 per 100-byte binding.
  check_batch_split(
      TosaOp::kMatmul, mm,
      {random_tensor(DType::kFloat32, Shape({5, 3, 4}), 87), random_tensor(DType::kFloat32, Shape({5, 4, 2}), 88)},
      {5, 3, 2}, 100, 3, "MATMUL");
}

// A linear layer as the compiler writes it: MATMUL of x [1, M, K] by the constant weight
// [1, N, K] under a TRANSPOSE (a strided view), with K rows of the weight bytes apart.
TosaGraph linear_matmul(int64_t m, int64_t k, int64_t n, const HostTensor& w) {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, m, k}}, 0, 0);
  ValueId c = g.add_constant({DType::kFloat32, {1, n, k}},
                             floats_bytes(std::vector<float>(w.data<float>().begin(), w.data<float>().end())));
  ValueId b = g.add_operation(TosaOp::kTranspose, {c}, perms({0, 2, 1}), {DType::kFloat32, {1, k, n}});
  Attributes mm;
  mm.set("a_zp", 0.0);
  mm.set("b_zp", 0.0);
  g.add_output(g.add_operation(TosaOp::kMatmul, {x, b}, mm, {DType::kFloat32, {1, m, n}}), 0, 1);
  return g;
}

TEST(VgfSplit, MatmulWeightSplitsAlongItsColumns) {
  // The weight is 48 x 64 floats (12288 bytes): 4096-byte bindings hold 16 of its columns.
  const int64_t m = 4, k = 64, n = 48;
  const HostTensor w = random_tensor(DType::kFloat32, Shape({1, n, k}), 91);
  const HostTensor x = random_tensor(DType::kFloat32, Shape({1, m, k}), 92);
  HostTensor want(DType::kFloat32, Shape({1, m, n}));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t t = 0; t < k; ++t) sum += double(x.data<float>()[i * k + t]) * w.data<float>()[j * k + t];
      want.data<float>()[i * n + j] = static_cast<float>(sum);
    }
  }
  check_split(linear_matmul(m, k, n, w), {x}, want, 4096, 3, 1e-5f, "MATMUL columns");
  // One row of x (256 bytes) does not fit 200 bytes: the reduction is never split.
  auto loaded = load(single_graph_model(linear_matmul(m, k, n, w)), {{"max_binding_bytes", "200"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kUnsupported) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find("gemm A"), std::string::npos) << loaded.status().to_string();
}

TEST(VgfSplit, LimitThatCannotBeMetIsAClearError) {
  // NCHW memory: one output row band of the pool still spans every channel plane.
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, 3, 16, 16}}, 0, 0);
  ValueId v = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {1, 16, 16, 3}});
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {v}, pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0}),
                              {DType::kFloat32, {1, 8, 8, 3}});
  g.add_output(g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 3, 8, 8}}), 0, 1);
  auto loaded = load(single_graph_model(g), {{"max_binding_bytes", "1024"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kUnsupported) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find("exceeds the binding limit of 1024 bytes"), std::string::npos)
      << loaded.status().to_string();
  // A limit that would need more than 4096 slices is refused (quickly) rather than planned.
  auto plan = plan_of(transposed_square_plus_quarter({64, 64, 8, 8}), BindingLimit{16, 16});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kUnsupported) << plan.status().to_string();
}

TEST(VgfSplit, MaxBindingBytesMustBeAPositiveCount) {
  TosaGraph g = transposed_square_plus_quarter({1, 2, 2, 2});
  for (const char* bad : {"", "0", "-5", "12kB", "99999999999999999999999"}) {
    auto loaded = load(single_graph_model(g), {{"max_binding_bytes", bad}});
    ASSERT_FALSE(loaded.ok()) << bad;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << loaded.status().to_string();
  }
  auto staging = load(single_graph_model(g), {{"vgf_output_staging", "sometimes"}});
  EXPECT_EQ(staging.status().code(), StatusCode::kInvalidArgument) << staging.status().to_string();
  auto path = load(single_graph_model(g), {{"vgf_graph_path", "native"}});
  EXPECT_EQ(path.status().code(), StatusCode::kUnsupported) << path.status().to_string();
}

// Forced staging: outputs come back through a vkCmdCopyBuffer into HOST_CACHED memory, also
// for a strided output resource (copy_strided reads the staging copy).
TEST(VgfStaging, OutputsThroughStagingCopies) {
  for (bool strided : {false, true}) {
    TosaGraph g = transposed_square_plus_quarter({2, 3, 4, 5});
    ::univk::vgf::VgfFile model = single_graph_model(g);
    if (strided) model.resources[1].strides = {3 * 4 * 8 * 4, 4 * 8 * 4, 8 * 4, 4};  // rows padded to 8
    for (const char* mode : {"auto", "always"}) {
      const std::string what = std::string(strided ? "strided " : "packed ") + mode;
      auto loaded = load(model, {{"vgf_output_staging", mode}});
      UNIVK_ASSERT_OK(loaded) << what;
      HostTensor in = random_tensor(DType::kFloat32, Shape({2, 3, 4, 5}), 71);
      HostTensor want = ref(
          "ADD", {},
          {ref("MUL", mul_attrs(), {in, in}), HostTensor::from_floats(Shape({1, 1, 1, 1}), std::vector<float>{0.25f})});
      for (int repeat = 0; repeat < 2; ++repeat) {  // the recorded command buffer is resubmitted
        auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
        UNIVK_ASSERT_OK(out) << what;
        EXPECT_TRUE(tensors_close((*out)[0], want, {1e-6f, 1e-6f})) << what;
        in = random_tensor(DType::kFloat32, Shape({2, 3, 4, 5}), 72 + repeat);
        want = ref("ADD", {},
                   {ref("MUL", mul_attrs(), {in, in}),
                    HostTensor::from_floats(Shape({1, 1, 1, 1}), std::vector<float>{0.25f})});
      }
      auto* delegate = dynamic_cast<backends::vgf::VgfDelegate*>(loaded->delegate.get());
      ASSERT_NE(delegate, nullptr);
      // lavapipe's device-local host-visible memory is HOST_CACHED, so auto reads in place.
      if (std::string(mode) == "always") {
        EXPECT_EQ(delegate->staged_outputs(), 1u) << what;
      }
    }
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
