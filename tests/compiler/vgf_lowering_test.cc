// VGF lowering: the payload decodes as a VGF file whose SPIR-V graph has the expected TOSA
// operators and boundary TRANSPOSEs, large constants land in the constants section, unsupported
// nodes are refused with a reason, and multi-node graphs whose values change layout (NCHW
// inputs, NHWC convolution results) compute what the PyTorch-semantics reference computes (the
// TOSA graph is evaluated on the TOSA reference by spirv::run_on_reference and compared
// with run_op on the IR).
// Single operators are checked on the CPU and on the VgfBackend by the conformance table
// (tests/conformance).
#include "univk/compiler/vgf_lowering.h"

#include <gtest/gtest.h>
#include <vulkan/vulkan_core.h>

#include <functional>
#include <map>

#include "univk/reference/kernels.h"
#include "univk/spirv/tosa_graph_reference.h"
#include "univk/vgf/vgf_file.h"
#include "univk_test.h"

namespace univk::compiler {
namespace {

using spirv::TosaOp;

using ::univk::testing::random_tensor;
using ::univk::testing::tensors_close;

// Evaluates the IR with the PyTorch-semantics reference kernels.
std::vector<HostTensor> run_graph(const Graph& g, const std::vector<HostTensor>& inputs) {
  std::vector<HostTensor> values(g.values().size());
  for (size_t i = 0; i < g.inputs().size(); ++i) values[g.inputs()[i]] = inputs[i];
  for (size_t v = 0; v < g.values().size(); ++v) {
    if (g.value(static_cast<ValueId>(v)).constant) values[v] = *g.value(static_cast<ValueId>(v)).constant;
  }
  for (const Node& n : g.nodes()) {
    std::vector<HostTensor> in;
    for (ValueId id : n.inputs) in.push_back(values[id]);
    auto out = reference::run_op(n.op, n.attrs, in);
    UNIVK_EXPECT_OK(out) << n.op;
    if (!out.ok()) return {};
    values[n.outputs[0]] = std::move((*out)[0]);
  }
  std::vector<HostTensor> outs;
  for (ValueId o : g.outputs()) outs.push_back(values[o]);
  return outs;
}

std::vector<NodeId> all_nodes(const Graph& g) {
  std::vector<NodeId> n(g.nodes().size());
  for (NodeId i = 0; i < n.size(); ++i) n[i] = i;
  return n;
}

// Lowers the whole graph, evaluates both sides on random inputs and compares.
void expect_lowering_matches(const Graph& g, float tolerance = 1e-5f) {
  const auto nodes = all_nodes(g);
  const SubgraphIO io = subgraph_io(g, nodes);
  auto tosa = lower_to_tosa(g, nodes, io);
  UNIVK_ASSERT_OK(tosa) << "\n" << g.describe();
  std::vector<HostTensor> inputs;
  uint32_t seed = 1;
  for (ValueId in : io.inputs) inputs.push_back(random_tensor(DType::kFloat32, g.value(in).shape, seed++, -1, 1));
  const auto expected = run_graph(g, inputs);
  UNIVK_ASSIGN_OR_FAIL(const std::vector<HostTensor> actual, spirv::run_on_reference(*tosa, inputs));
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(tensors_close(actual[i], expected[i], {tolerance, tolerance})) << g.describe();
  }
}

using ::univk::testing::attrs;

using Ints = std::vector<int64_t>;

// One node on input x of `shape` (plus constants made by `consts`), shape from the reference.
Graph single_op(const std::string& op, Attributes a, Shape shape,
                std::function<std::vector<ValueId>(Graph&, ValueId)> extra_inputs = {}) {
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, std::move(shape)).value();
  std::vector<ValueId> inputs = {x};
  if (extra_inputs) {
    auto more = extra_inputs(g, x);
    inputs.insert(inputs.end(), more.begin(), more.end());
  }
  auto y = g.add_node_inferred("y", op, std::move(a), inputs);
  UNIVK_EXPECT_OK(y);
  if (y.ok()) {
    UNIVK_EXPECT_OK(g.add_output(*y));
  }
  return g;
}

std::function<std::vector<ValueId>(Graph&, ValueId)> constants(std::vector<Shape> shapes) {
  return [shapes](Graph& g, ValueId) {
    std::vector<ValueId> ids;
    uint32_t seed = 100;
    for (const Shape& s : shapes) {
      ids.push_back(
          g.add_constant("c" + std::to_string(seed), random_tensor(DType::kFloat32, s, seed, 0.1, 1.0)).value());
      ++seed;
    }
    return ids;
  };
}

TEST(VgfLowering, ExamplePayloadDecodesWithBoundaryTransposes) {
  Graph g = single_op("avg_pool2d", attrs({{"kernel_size", Ints{2, 2}}}), Shape{1, 3, 8, 8});
  const auto nodes = all_nodes(g);
  const SubgraphIO io = subgraph_io(g, nodes);
  auto bytes = lower_to_vgf(g, nodes, io);
  UNIVK_ASSERT_OK(bytes);
  auto file = vgf::decode_vgf(*bytes);
  UNIVK_ASSERT_OK(file);
  EXPECT_EQ(file->vk_header_version, VK_HEADER_VERSION);
  ASSERT_EQ(file->modules.size(), 1u);
  ASSERT_EQ(file->segments.size(), 1u);
  EXPECT_EQ(file->modules[0].type, vgf::ModuleType::kGraph);
  ASSERT_EQ(file->inputs.size(), 1u);
  ASSERT_EQ(file->outputs.size(), 1u);
  EXPECT_EQ(file->resources[file->inputs[0].resource_index].shape, (Ints{1, 3, 8, 8}));  // NCHW interface
  EXPECT_EQ(file->resources[file->outputs[0].resource_index].shape, (Ints{1, 3, 4, 4}));
  auto tosa = spirv::read_tosa_graph(file->modules[0].spirv());
  UNIVK_ASSERT_OK(tosa);
  std::vector<TosaOp> ops;
  for (const auto& op : tosa->operations) ops.push_back(op.op);
  EXPECT_EQ(ops, (std::vector<TosaOp>{TosaOp::kTranspose, TosaOp::kAvgPool2d, TosaOp::kTranspose}));
  EXPECT_EQ(tosa->operations[0].attrs.get_ints("perms").value(), (Ints{0, 2, 3, 1}));
  EXPECT_EQ(tosa->operations[2].attrs.get_ints("perms").value(), (Ints{0, 3, 1, 2}));
}

TEST(VgfLowering, ElementwiseChainNeedsNoTranspose) {
  Graph g;
  const ValueId y = g.add_input("y", DType::kFloat32, Shape{1, 3, 4, 4}).value();
  const ValueId m = g.add_node_inferred("mul", "mul", {}, {y, y}).value();
  const ValueId a = g.add_node_inferred("add", "add", attrs({{"other", 0.25}}), {m}).value();
  UNIVK_ASSERT_OK(g.add_output(a));
  const auto nodes = all_nodes(g);
  auto tosa = lower_to_tosa(g, nodes, subgraph_io(g, nodes));
  UNIVK_ASSERT_OK(tosa);
  std::vector<TosaOp> ops;
  for (const auto& op : tosa->operations) ops.push_back(op.op);
  EXPECT_EQ(ops, (std::vector<TosaOp>{TosaOp::kMul, TosaOp::kAdd}));
  expect_lowering_matches(g);
}

TEST(VgfLowering, LargeConstantsBecomeVgfConstants) {
  Graph g = single_op("conv2d", attrs({{"padding", Ints{1, 1}}}), Shape{1, 3, 6, 6},
                      constants({Shape{4, 3, 3, 3}, Shape{4}}));
  const auto nodes = all_nodes(g);
  auto bytes = lower_to_vgf(g, nodes, subgraph_io(g, nodes));
  UNIVK_ASSERT_OK(bytes);
  auto file = vgf::decode_vgf(*bytes);
  UNIVK_ASSERT_OK(file);
  ASSERT_EQ(file->constants.size(), 1u);  // the 108-element weight; the 4-element bias is inline
  const vgf::Resource& r = file->resources[file->constants[0].resource_index];
  EXPECT_EQ(r.category, vgf::ResourceCategory::kConstant);
  EXPECT_EQ(r.shape, (Ints{4, 3, 3, 3}));  // OHWI
  EXPECT_EQ(file->constants[0].data().size(), 108u * 4u);
  auto tosa = spirv::read_tosa_graph(file->modules[0].spirv());
  UNIVK_ASSERT_OK(tosa);
  bool has_graph_constant = false;
  for (const auto& v : tosa->values) has_graph_constant |= v.kind == spirv::ValueKind::kGraphConstant;
  EXPECT_TRUE(has_graph_constant);
}

// TOSA has no grouped CONV2D: one per group over SLICEs of the input, weight and bias, then a
// CONCAT (the form the VgfBackend runs as one grouped kernel, grouped_conv.h).
TEST(VgfLowering, GroupedConvolutionIsOneConv2dPerGroupAndAConcat) {
  Graph g = single_op("conv2d", attrs({{"groups", int64_t{3}}, {"padding", int64_t{1}}, {"stride", int64_t{2}}}),
                      Shape{1, 6, 7, 5}, constants({Shape{9, 2, 3, 3}, Shape{9}}));
  UNIVK_ASSERT_OK(vgf_supports(g, g.node(0)));
  const auto nodes = all_nodes(g);
  UNIVK_ASSIGN_OR_FAIL(spirv::TosaGraph tosa, lower_to_tosa(g, nodes, subgraph_io(g, nodes)));
  std::map<TosaOp, int> count;
  for (const auto& op : tosa.operations) ++count[op.op];
  EXPECT_EQ(count[TosaOp::kConv2d], 3);
  EXPECT_EQ(count[TosaOp::kSlice], 9);
  EXPECT_EQ(count[TosaOp::kConcat], 1);
  expect_lowering_matches(g);
}

TEST(VgfLowering, UnsupportedConvolutionsAreRejectedWithAReason) {
  Graph h;
  const ValueId x = h.add_input("x", DType::kFloat32, Shape{1, 2, 5, 5}).value();
  const ValueId w = h.add_input("w", DType::kFloat32, Shape{2, 2, 3, 3}).value();
  UNIVK_ASSERT_OK(h.add_node_inferred("y", "conv2d", {}, {x, w}));
  EXPECT_NE(vgf_supports(h, h.node(0)).message().find("not a constant"), std::string::npos);
}

TEST(VgfLowering, ElementwiseAfterConvWorksInNhwc) {
  // conv output lives in NHWC; add of a [C,1,1] constant and of another NCHW input.
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 2, 5, 5}).value();
  const ValueId z = g.add_input("z", DType::kFloat32, Shape{1, 3, 5, 5}).value();
  const ValueId w = g.add_constant("w", random_tensor(DType::kFloat32, Shape{3, 2, 3, 3}, 7, -1, 1)).value();
  const ValueId b = g.add_constant("b", random_tensor(DType::kFloat32, Shape{3, 1, 1}, 8, -1, 1)).value();
  const ValueId c = g.add_node_inferred("conv", "conv2d", attrs({{"padding", Ints{1, 1}}}), {x, w}).value();
  const ValueId a = g.add_node_inferred("add", "add", {}, {c, b}).value();
  const ValueId r = g.add_node_inferred("relu", "relu", {}, {a}).value();
  const ValueId s = g.add_node_inferred("sum", "add", {}, {r, z}).value();
  UNIVK_ASSERT_OK(g.add_output(s));
  expect_lowering_matches(g);
}

TEST(VgfLowering, MeanOfAConvolutionResultReadsNhwc) {
  // mean over H,W of a conv output (NHWC inside), without keepdim
  Graph h;
  const ValueId x = h.add_input("x", DType::kFloat32, Shape{1, 2, 5, 5}).value();
  const ValueId w = h.add_constant("w", random_tensor(DType::kFloat32, Shape{3, 2, 1, 1}, 3, -1, 1)).value();
  const ValueId c = h.add_node_inferred("c", "conv2d", {}, {x, w}).value();
  UNIVK_ASSERT_OK(h.add_output(h.add_node_inferred("m", "mean", attrs({{"dim", Ints{2, 3}}}), {c}).value()));
  expect_lowering_matches(h);
}

TEST(VgfLowering, SliceAndCatOfConvolutionResults) {
  // slice and cat along channels of conv outputs (NHWC inside)
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 2, 4, 4}).value();
  const ValueId w = g.add_constant("w", random_tensor(DType::kFloat32, Shape{4, 2, 1, 1}, 5, -1, 1)).value();
  const ValueId c = g.add_node_inferred("c", "conv2d", {}, {x, w}).value();
  const ValueId s =
      g.add_node_inferred("s", "slice", attrs({{"dim", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{3}}}), {c})
          .value();
  const ValueId k = g.add_node_inferred("k", "cat", attrs({{"dim", int64_t{1}}}), {c, s}).value();
  UNIVK_ASSERT_OK(g.add_output(k));
  expect_lowering_matches(g);
}

TEST(VgfLowering, SoftmaxAndLayerNormOfConvolutionResults) {
  // softmax over channels and log_softmax over W of a conv output (NHWC inside: the reductions
  // run along the NHWC axis), and a layer_norm over [H, W] (natural layout).
  Graph g;
  const ValueId x = g.add_input("x", DType::kFloat32, Shape{1, 2, 5, 6}).value();
  const ValueId w = g.add_constant("w", random_tensor(DType::kFloat32, Shape{4, 2, 3, 3}, 5, -1, 1)).value();
  const ValueId c = g.add_node_inferred("c", "conv2d", attrs({{"padding", Ints{1, 1}}}), {x, w}).value();
  UNIVK_ASSERT_OK(g.add_output(g.add_node_inferred("s", "softmax", attrs({{"dim", int64_t{1}}}), {c}).value()));
  UNIVK_ASSERT_OK(g.add_output(g.add_node_inferred("l", "log_softmax", attrs({{"dim", int64_t{-1}}}), {c}).value()));
  const ValueId gamma = g.add_constant("gamma", random_tensor(DType::kFloat32, Shape{5, 6}, 6, 0.5, 1.5)).value();
  const ValueId beta = g.add_constant("beta", random_tensor(DType::kFloat32, Shape{5, 6}, 7, -1, 1)).value();
  UNIVK_ASSERT_OK(g.add_output(
      g.add_node_inferred("n", "layer_norm", attrs({{"normalized_shape", Ints{5, 6}}}), {c, gamma, beta}).value()));
  expect_lowering_matches(g);
}

TEST(VgfLowering, GeluTanhForm) {
  Graph g = single_op("gelu", attrs({{"approximate", std::string("tanh")}}), Shape{3, 7});
  expect_lowering_matches(g);
}

TEST(VgfLowering, UnknownOpsAreUnsupported) {
  Graph g = single_op("addmm", {}, Shape{2, 3}, [](Graph& graph, ValueId) {
    return std::vector<ValueId>{graph.add_input("m1", DType::kFloat32, Shape{2, 4}).value(),
                                graph.add_input("m2", DType::kFloat32, Shape{4, 3}).value()};
  });
  Status s = vgf_supports(g, g.node(0));
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("addmm"), std::string::npos);
}

// A quantized_conv2d of an int8 [1,2,4,4] input by a 3x2x1x1 int8 weight with `a`'s quantization
// attributes, as vgf_supports sees it.
Status quantized_conv_support(Attributes a, DType input_dtype = DType::kInt8) {
  Graph g;
  const ValueId x = g.add_input("x", input_dtype, Shape{1, 2, 4, 4}).value();
  const ValueId w = g.add_constant("w", random_tensor(DType::kInt8, Shape{3, 2, 1, 1}, 1, -5, 5)).value();
  g.add_node("qconv", "quantized_conv2d", std::move(a), {x, w}, DType::kInt8, Shape{1, 3, 4, 4}).value();
  return vgf_supports(g, g.node(0));
}

Attributes quantized_conv_attrs() {
  return attrs({{"input_scale", 0.1},
                {"input_zero_point", int64_t{0}},
                {"weight_scale", std::vector<double>{0.01, 0.02, 0.03}},
                {"output_scale", 0.2},
                {"output_zero_point", int64_t{-3}}});
}

TEST(VgfLowering, QuantizedOperatorsRefuseBadParameters) {
  UNIVK_EXPECT_OK(quantized_conv_support(quantized_conv_attrs()));
  struct Bad {
    const char* attr;
    AttrValue value;
    const char* message;
  };
  const Bad cases[] = {
      {"input_zero_point", int64_t{128}, "outside int8"},
      {"output_scale", 0.0, "output_scale"},
      {"weight_scale", std::vector<double>{0.01, 0.02}, "2 values for 3 output channels"},
      {"output_scale", 1e-12, "below 2^29"},  // input x weight / output scale too large for RESCALE
  };
  for (const Bad& b : cases) {
    Attributes a = quantized_conv_attrs();
    a.set(b.attr, b.value);
    Status s = quantized_conv_support(a);
    EXPECT_FALSE(s.ok()) << b.attr;
    EXPECT_NE(s.message().find(b.message), std::string::npos) << s.to_string();
  }
  Attributes missing = attrs({{"input_scale", 0.1}, {"input_zero_point", int64_t{0}}, {"weight_scale", 0.01}});
  Status s = quantized_conv_support(missing);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("output_"), std::string::npos) << s.to_string();
  Status fp32_input = quantized_conv_support(quantized_conv_attrs(), DType::kFloat32);
  EXPECT_EQ(fp32_input.code(), StatusCode::kUnsupported);
  EXPECT_NE(fp32_input.message().find("needs int8"), std::string::npos) << fp32_input.to_string();
}

}  // namespace
}  // namespace univk::compiler
