// Epilogue fusion (fusion.h's EpilogueChain): CONV2D, DEPTHWISE_CONV2D and MATMUL take the
// ADD (residual or bias) and CLAMP (relu6, relu) after them into their kernel's epilogue, and
// the NCHW<->NHWC TRANSPOSEs at the boundary fold into their strides. Each graph's dispatch
// count per execute, each result against the TOSA reference of the unfused operators; the
// cases the kernels cannot take fall back to the unfused dispatches, with the same results.
#include "univk_test.h"
#include "vgf_test_util.h"

namespace univk::backends::vgf_test {
namespace {

Attributes matmul_attrs(bool for_reference) {
  Attributes a;
  if (for_reference) {
    a.set("a_zp", int64_t{0});
    a.set("b_zp", int64_t{0});
  } else {
    a.set("a_zp", 0.0);
    a.set("b_zp", 0.0);
  }
  return a;
}

// Runs `g` on `inputs`; checks its one output against `want` and the dispatch count. Winograd
// (vgf_winograd_test.cc) is off: the counts are those of the implicit GEMM's one dispatch per
// convolution, which the epilogue fusion is about.
void expect_run(const TosaGraph& g, const std::vector<HostTensor>& inputs, const HostTensor& want, uint32_t dispatches,
                const std::string& what) {
  auto loaded = load(single_graph_model(g), {{"winograd", "off"}});
  UNIVK_ASSERT_OK(loaded);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(inputs));
  UNIVK_ASSERT_OK(out);
  EXPECT_TRUE(tensors_close((*out)[0], want, {1e-5f, 1e-5f})) << what;
  // The native path (vgf_backend_epilogue_fusion_native) runs the whole graph as one data graph.
  const bool native = loaded->delegate->graph_path() == "native";
  EXPECT_EQ(loaded->delegate->stats().dispatches, native ? 1u : dispatches) << what;
}

struct Conv {
  ValueId value;
  HostTensor reference;
};

// A 3x3 same-padded convolution of `x` (NHWC, c -> oc channels) with constant weights.
Conv add_conv(TosaGraph& g, ValueId x, const HostTensor& in, int64_t oc, bool depthwise, uint32_t seed) {
  const auto& s = in.shape().dims();
  const int64_t c = s[3];
  const HostTensor w = depthwise ? random_tensor(DType::kFloat32, Shape({3, 3, c, 1}), seed)
                                 : random_tensor(DType::kFloat32, Shape({oc, 3, 3, c}), seed);
  const HostTensor b = random_tensor(DType::kFloat32, Shape({depthwise ? c : oc}), seed + 1);
  const ValueId wv = g.add_constant({DType::kFloat32, w.shape().dims()}, bytes_of(w));
  const ValueId bv = g.add_constant({DType::kFloat32, b.shape().dims()}, bytes_of(b));
  const TosaOp op = depthwise ? TosaOp::kDepthwiseConv2d : TosaOp::kConv2d;
  const TosaTensorType t{DType::kFloat32, {s[0], s[1], s[2], depthwise ? c : oc}};
  return {g.add_operation(op, {x, wv, bv}, conv2d_attrs({1, 1, 1, 1}, {1, 1}), t),
          ref(std::string(spirv::tosa_op_name(op)), conv2d_attrs({1, 1, 1, 1}, {1, 1}, /*for_reference=*/true),
              {in, w, b})};
}

TEST(VgfEpilogueFusion, ConvolutionWithRelu6IsOneDispatch) {
  for (bool depthwise : {false, true}) {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kFloat32, Shape({2, 7, 9, 8}), 1);
    const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
    const Conv conv = add_conv(g, x, in, 12, depthwise, 2);
    const TosaTensorType t{DType::kFloat32, conv.reference.shape().dims()};
    const ValueId y = g.add_operation(TosaOp::kClamp, {conv.value}, clamp_attrs(0, 6), t);
    g.add_output(y, 0, 1);
    expect_run(g, {in}, ref("CLAMP", clamp_attrs(0, 6), {conv.reference}), 1,
               depthwise ? "depthwise + relu6" : "conv + relu6");
  }
}

TEST(VgfEpilogueFusion, ConvolutionWithResidualAndReluIsOneDispatch) {
  for (bool depthwise : {false, true}) {
    TosaGraph g;
    const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 6, 5, 8}), 3);
    const HostTensor skip = random_tensor(DType::kFloat32, Shape({1, 6, 5, 8}), 4);
    const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
    const ValueId r = g.add_input({DType::kFloat32, skip.shape().dims()}, 0, 1);
    const Conv conv = add_conv(g, x, in, 8, depthwise, 5);
    const TosaTensorType t{DType::kFloat32, {1, 6, 5, 8}};
    // The residual on either side of the ADD.
    const ValueId sum = depthwise ? g.add_operation(TosaOp::kAdd, {r, conv.value}, {}, t)
                                  : g.add_operation(TosaOp::kAdd, {conv.value, r}, {}, t);
    const ValueId y = g.add_operation(TosaOp::kClamp, {sum}, clamp_attrs(0, INFINITY), t);
    g.add_output(y, 0, 2);
    const HostTensor want = ref("CLAMP", clamp_attrs(0, INFINITY), {ref("ADD", {}, {conv.reference, skip})});
    expect_run(g, {in, skip}, want, 1, depthwise ? "depthwise + add + relu" : "conv + add + relu");
  }
}

// The residual is an NCHW graph input seen through a TRANSPOSE: its strides are not the
// output's, so the ADD and CLAMP run as one elementwise dispatch after the convolution.
TEST(VgfEpilogueFusion, ResidualWithOtherStridesFallsBack) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 6, 5, 8}), 6);
  const HostTensor skip_nchw = random_tensor(DType::kFloat32, Shape({1, 8, 6, 5}), 7);
  const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
  const ValueId r = g.add_input({DType::kFloat32, skip_nchw.shape().dims()}, 0, 1);
  const TosaTensorType t{DType::kFloat32, {1, 6, 5, 8}};
  const ValueId skip = g.add_operation(TosaOp::kTranspose, {r}, perms({0, 2, 3, 1}), t);
  const Conv conv = add_conv(g, x, in, 8, false, 8);
  const ValueId sum = g.add_operation(TosaOp::kAdd, {conv.value, skip}, {}, t);
  const ValueId y = g.add_operation(TosaOp::kClamp, {sum}, clamp_attrs(0, 6), t);
  g.add_output(y, 0, 2);
  const HostTensor skip_nhwc = ref("TRANSPOSE", perms({0, 2, 3, 1}), {skip_nchw});
  const HostTensor want = ref("CLAMP", clamp_attrs(0, 6), {ref("ADD", {}, {conv.reference, skip_nhwc})});
  expect_run(g, {in, skip_nchw}, want, 2, "conv, then add + relu6");
}

// ResNet's downsampling block: two convolutions into one ADD. The first takes the ADD (the
// second's result as residual) and the CLAMP; the second runs on its own.
TEST(VgfEpilogueFusion, TwoConvolutionsIntoOneAddAreTwoDispatches) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 5, 6, 4}), 9);
  const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
  const Conv a = add_conv(g, x, in, 8, false, 10);
  const Conv b = add_conv(g, x, in, 8, false, 12);
  const TosaTensorType t{DType::kFloat32, {1, 5, 6, 8}};
  const ValueId sum = g.add_operation(TosaOp::kAdd, {a.value, b.value}, {}, t);
  const ValueId y = g.add_operation(TosaOp::kClamp, {sum}, clamp_attrs(0, INFINITY), t);
  g.add_output(y, 0, 1);
  const HostTensor want = ref("CLAMP", clamp_attrs(0, INFINITY), {ref("ADD", {}, {a.reference, b.reference})});
  expect_run(g, {in}, want, 2, "conv, conv + add + relu");
}

// A convolution whose result is also a graph output keeps it: nothing is fused.
TEST(VgfEpilogueFusion, ConvolutionReadTwiceIsNotFused) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 4, 4, 4}), 14);
  const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
  const Conv conv = add_conv(g, x, in, 4, true, 15);
  const TosaTensorType t{DType::kFloat32, {1, 4, 4, 4}};
  const ValueId y = g.add_operation(TosaOp::kClamp, {conv.value}, clamp_attrs(0, 6), t);
  g.add_output(y, 0, 1);
  g.add_output(conv.value, 0, 2);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  EXPECT_TRUE(tensors_close((*out)[0], ref("CLAMP", clamp_attrs(0, 6), {conv.reference}), {1e-5f, 1e-5f}));
  EXPECT_TRUE(tensors_close((*out)[1], conv.reference, {1e-5f, 1e-5f}));
  EXPECT_EQ(loaded->delegate->stats().dispatches, loaded->delegate->graph_path() == "native" ? 1u : 2u);
}

// A classifier head: MATMUL + ADD of a broadcast bias is one GEMM with the bias in its epilogue.
TEST(VgfEpilogueFusion, MatmulWithBroadcastBiasIsOneDispatch) {
  TosaGraph g;
  const HostTensor a = random_tensor(DType::kFloat32, Shape({2, 3, 16}), 16);
  const HostTensor b = random_tensor(DType::kFloat32, Shape({2, 16, 10}), 17);
  const HostTensor bias = random_tensor(DType::kFloat32, Shape({1, 1, 10}), 18);
  const ValueId av = g.add_input({DType::kFloat32, {2, 3, 16}}, 0, 0);
  const ValueId bv = g.add_input({DType::kFloat32, {2, 16, 10}}, 0, 1);
  const ValueId cv = g.add_constant({DType::kFloat32, {1, 1, 10}}, bytes_of(bias));
  const TosaTensorType t{DType::kFloat32, {2, 3, 10}};
  const ValueId mm = g.add_operation(TosaOp::kMatmul, {av, bv}, matmul_attrs(false), t);
  const ValueId y = g.add_operation(TosaOp::kAdd, {mm, cv}, {}, t);
  g.add_output(y, 0, 2);
  const HostTensor want = ref("ADD", {}, {ref("MATMUL", matmul_attrs(true), {a, b}), bias});
  expect_run(g, {a, b}, want, 1, "matmul + bias");
}

Attributes reshape_attrs(std::vector<int64_t> shape) {
  Attributes a;
  a.set("shape", shape);
  return a;
}

// The exporter's classifier head: AVG_POOL2D to 1x1, TRANSPOSE and RESHAPEs to [1,1,C] (views:
// only size-1 dims move), MATMUL + bias, RESHAPE to the [1,N] graph output (the GEMM writes the
// output resource directly): two dispatches.
TEST(VgfEpilogueFusion, ClassifierHeadIsPoolAndOneGemm) {
  TosaGraph g;
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 2, 2, 16}), 30);
  const HostTensor w = random_tensor(DType::kFloat32, Shape({1, 16, 10}), 31);
  const HostTensor bias = random_tensor(DType::kFloat32, Shape({1, 1, 10}), 32);
  const ValueId x = g.add_input({DType::kFloat32, {1, 2, 2, 16}}, 0, 0);
  const Attributes pa = pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0});
  const ValueId pooled = g.add_operation(TosaOp::kAvgPool2d, {x}, pa, {DType::kFloat32, {1, 1, 1, 16}});
  const ValueId nchw =
      g.add_operation(TosaOp::kTranspose, {pooled}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 16, 1, 1}});
  const ValueId flat = g.add_operation(TosaOp::kReshape, {nchw}, reshape_attrs({1, 16}), {DType::kFloat32, {1, 16}});
  const ValueId a = g.add_operation(TosaOp::kReshape, {flat}, reshape_attrs({1, 1, 16}), {DType::kFloat32, {1, 1, 16}});
  const ValueId wv = g.add_constant({DType::kFloat32, {1, 16, 10}}, bytes_of(w));
  const ValueId bv = g.add_constant({DType::kFloat32, {1, 1, 10}}, bytes_of(bias));
  const TosaTensorType t{DType::kFloat32, {1, 1, 10}};
  const ValueId mm = g.add_operation(TosaOp::kMatmul, {a, wv}, matmul_attrs(false), t);
  const ValueId sum = g.add_operation(TosaOp::kAdd, {mm, bv}, {}, t);
  const ValueId y = g.add_operation(TosaOp::kReshape, {sum}, reshape_attrs({1, 10}), {DType::kFloat32, {1, 10}});
  g.add_output(y, 0, 1);
  const HostTensor pooled_ref = ref("AVG_POOL2D", ref_pool_attrs(pa), {in});
  const HostTensor a_ref = ref("RESHAPE", reshape_attrs({1, 1, 16}), {pooled_ref});
  const HostTensor logits = ref("ADD", {}, {ref("MATMUL", matmul_attrs(true), {a_ref, w}), bias});
  expect_run(g, {in}, ref("RESHAPE", reshape_attrs({1, 10}), {logits}), 2, "classifier head");
}

// A whole NCHW block as the exporter writes it: TRANSPOSE in, conv + relu6, depthwise + relu6,
// conv + residual, TRANSPOSE out: three dispatches, the boundary transposes folded into the
// first convolution's input strides and the last one's output strides.
TEST(VgfEpilogueFusion, NchwBlockIsOneDispatchPerConvolution) {
  TosaGraph g;
  const HostTensor in_nchw = random_tensor(DType::kFloat32, Shape({1, 8, 6, 7}), 20);
  const HostTensor in = ref("TRANSPOSE", perms({0, 2, 3, 1}), {in_nchw});
  const ValueId x_nchw = g.add_input({DType::kFloat32, {1, 8, 6, 7}}, 0, 0);
  const TosaTensorType t8{DType::kFloat32, {1, 6, 7, 8}}, t16{DType::kFloat32, {1, 6, 7, 16}};
  const ValueId x = g.add_operation(TosaOp::kTranspose, {x_nchw}, perms({0, 2, 3, 1}), t8);
  const Conv expand = add_conv(g, x, in, 16, false, 21);
  const ValueId e = g.add_operation(TosaOp::kClamp, {expand.value}, clamp_attrs(0, 6), t16);
  const HostTensor e_ref = ref("CLAMP", clamp_attrs(0, 6), {expand.reference});
  const Conv dw = add_conv(g, e, e_ref, 16, true, 23);
  const ValueId d = g.add_operation(TosaOp::kClamp, {dw.value}, clamp_attrs(0, 6), t16);
  const HostTensor d_ref = ref("CLAMP", clamp_attrs(0, 6), {dw.reference});
  const Conv project = add_conv(g, d, d_ref, 8, false, 25);
  const ValueId sum = g.add_operation(TosaOp::kAdd, {project.value, x}, {}, t8);
  const ValueId y = g.add_operation(TosaOp::kTranspose, {sum}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 8, 6, 7}});
  g.add_output(y, 0, 1);
  const HostTensor want = ref("TRANSPOSE", perms({0, 3, 1, 2}), {ref("ADD", {}, {project.reference, in})});
  expect_run(g, {in_nchw}, want, 3, "NCHW inverted residual block");
}

}  // namespace
}  // namespace univk::backends::vgf_test
