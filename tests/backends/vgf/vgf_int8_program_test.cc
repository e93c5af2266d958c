// Quantized int8 graphs (the IR operators of a PyTorch-quantized CNN: quantize_per_tensor,
// quantized_conv2d with per-channel and per-tensor weight scales and fused ReLU, int8 max/avg
// pools, flatten, requantize, quantized_linear, quantized_add/mul, quantized_table, int8 cat,
// dequantize_per_tensor) compiled for the VgfBackend alone and
// run on the device: the int8 result and the dequantized fp32 result are bit-exact against the
// same TOSA graph evaluated on univk's TOSA reference kernels (spirv::run_on_reference).
// The end-to-end comparison with PyTorch's quantized model is tests/e2e/int8_test.py.
#include <gtest/gtest.h>

#include "univk/spirv/tosa_graph_reference.h"
#include "univk/compiler/compiler.h"
#include "univk/compiler/vgf_lowering.h"
#include "univk/runtime/program.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

using Ints = std::vector<int64_t>;
using ::univk::testing::attrs;
using ::univk::testing::random_tensor;

Attributes quant(double scale, int64_t zero_point) { return attrs({{"scale", scale}, {"zero_point", zero_point}}); }

// Quantized-op attributes: input and output parameters, weight scales, fused ReLU.
Attributes qattrs(Attributes a, double in_scale, int64_t in_zp, std::vector<double> weight_scales, double out_scale,
                  int64_t out_zp, bool relu) {
  a.set("input_scale", in_scale);
  a.set("input_zero_point", in_zp);
  a.set("weight_scale", std::move(weight_scales));
  a.set("output_scale", out_scale);
  a.set("output_zero_point", out_zp);
  a.set("relu", int64_t{relu ? 1 : 0});
  return a;
}

// x [1,3,10,10] -> quantize -> conv 3->8 (per-channel, relu) -> max_pool 2 -> add of itself
// requantized (relu) -> conv 8->6
// (per-tensor, stride 2) -> adaptive_avg_pool 1 -> flatten -> requantize -> linear 6->5 -> int8 output and
// its dequantized fp32 output.
compiler::Graph quantized_cnn() {
  compiler::Graph g;
  const auto x = g.add_input("x", DType::kFloat32, Shape{1, 3, 10, 10}).value();
  const auto q = g.add_node("q", "quantize_per_tensor", quant(0.02, 3), {x}, DType::kInt8, Shape{1, 3, 10, 10}).value();
  const auto w1 = g.add_constant("w1", random_tensor(DType::kInt8, Shape{8, 3, 3, 3}, 1, -127, 127)).value();
  const auto b1 = g.add_constant("b1", random_tensor(DType::kInt32, Shape{8}, 2, -2000, 2000)).value();
  std::vector<double> scales1;
  for (int c = 0; c < 8; ++c) scales1.push_back(0.002 + 0.0005 * c);
  const auto c1 =
      g.add_node("c1", "quantized_conv2d", qattrs(attrs({{"padding", Ints{1, 1}}}), 0.02, 3, scales1, 0.05, -100, true),
                 {q, w1, b1}, DType::kInt8, Shape{1, 8, 10, 10})
          .value();
  const auto p = g.add_node("p", "max_pool2d", attrs({{"kernel_size", Ints{2, 2}}, {"stride", Ints{2, 2}}}), {c1},
                            DType::kInt8, Shape{1, 8, 5, 5})
                     .value();
  // A second int8 view of p (other parameters), added back to p with a fused ReLU.
  const auto r = g.add_node("r", "requantize",
                            attrs({{"input_scale", 0.05},
                                   {"input_zero_point", int64_t{-100}},
                                   {"output_scale", 0.03},
                                   {"output_zero_point", int64_t{20}}}),
                            {p}, DType::kInt8, Shape{1, 8, 5, 5})
                     .value();
  const auto s = g.add_node("s", "quantized_add",
                            attrs({{"input_scale", 0.05},
                                   {"input_zero_point", int64_t{-100}},
                                   {"other_scale", 0.03},
                                   {"other_zero_point", int64_t{20}},
                                   {"output_scale", 0.09},
                                   {"output_zero_point", int64_t{-120}},
                                   {"relu", int64_t{1}}}),
                            {p, r}, DType::kInt8, Shape{1, 8, 5, 5})
                     .value();
  const auto w2 = g.add_constant("w2", random_tensor(DType::kInt8, Shape{6, 8, 3, 3}, 3, -127, 127)).value();
  const auto c2 =
      g.add_node("c2", "quantized_conv2d", qattrs(attrs({{"stride", Ints{2, 2}}}), 0.09, -120, {0.003}, 0.2, 7, false),
                 {s, w2}, DType::kInt8, Shape{1, 6, 2, 2})
          .value();
  const auto a = g.add_node("a", "adaptive_avg_pool2d", attrs({{"output_size", Ints{1, 1}}}), {c2}, DType::kInt8,
                            Shape{1, 6, 1, 1})
                     .value();
  const auto f0 =
      g.add_node("f0", "flatten", attrs({{"start_dim", int64_t{1}}}), {a}, DType::kInt8, Shape{1, 6}).value();
  const auto f = g.add_node("f", "requantize",
                            attrs({{"input_scale", 0.2},
                                   {"input_zero_point", int64_t{7}},
                                   {"output_scale", 0.15},
                                   {"output_zero_point", int64_t{-2}}}),
                            {f0}, DType::kInt8, Shape{1, 6})
                     .value();
  const auto w3 = g.add_constant("w3", random_tensor(DType::kInt8, Shape{5, 6}, 4, -127, 127)).value();
  const auto b3 = g.add_constant("b3", random_tensor(DType::kInt32, Shape{5}, 5, -500, 500)).value();
  const auto l = g.add_node("l", "quantized_linear", qattrs({}, 0.15, -2, {0.01}, 0.3, -5, false), {f, w3, b3},
                            DType::kInt8, Shape{1, 5})
                     .value();
  const auto y = g.add_node("y", "dequantize_per_tensor", quant(0.3, -5), {l}, DType::kFloat32, Shape{1, 5}).value();
  EXPECT_TRUE(g.add_output(l).ok());
  EXPECT_TRUE(g.add_output(y).ok());
  return g;
}

// x [2,4,6,6] -> quantize -> table (a function of one int8 value) -> mul by a requantized view of
// the input -> mul (relu) by the input's channel means [2,4,1,1] (broadcast, as a squeeze-and-
// excitation block) -> cat with the table's result along the channels -> the int8 result and its
// dequantized fp32 result.
compiler::Graph quantized_mul_cat_table() {
  compiler::Graph g;
  const Shape shape{2, 4, 6, 6};
  const auto x = g.add_input("x", DType::kFloat32, shape).value();
  const auto q = g.add_node("q", "quantize_per_tensor", quant(0.03, -5), {x}, DType::kInt8, shape).value();
  const auto table = g.add_constant("table", random_tensor(DType::kInt8, Shape{256}, 6, -128, 127)).value();
  const auto t = g.add_node("t", "quantized_table", {}, {q, table}, DType::kInt8, shape).value();
  const auto r = g.add_node("r", "requantize",
                            attrs({{"input_scale", 0.03},
                                   {"input_zero_point", int64_t{-5}},
                                   {"output_scale", 0.05},
                                   {"output_zero_point", int64_t{10}}}),
                            {q}, DType::kInt8, shape)
                     .value();
  const auto mul_attrs = [](double a, int64_t za, double b, int64_t zb, double o, int64_t zo, bool relu) {
    return attrs({{"input_scale", a},
                  {"input_zero_point", za},
                  {"other_scale", b},
                  {"other_zero_point", zb},
                  {"output_scale", o},
                  {"output_zero_point", zo},
                  {"relu", int64_t{relu ? 1 : 0}}});
  };
  const auto m =
      g.add_node("m", "quantized_mul", mul_attrs(0.02, 3, 0.05, 10, 0.04, -7, false), {t, r}, DType::kInt8, shape)
          .value();
  const auto p =
      g.add_node("p", "adaptive_avg_pool2d", attrs({{"output_size", Ints{1, 1}}}), {q}, DType::kInt8, Shape{2, 4, 1, 1})
          .value();
  const auto se =
      g.add_node("se", "quantized_mul", mul_attrs(0.04, -7, 0.03, -5, 0.02, -128, true), {m, p}, DType::kInt8, shape)
          .value();
  const auto c = g.add_node("c", "cat", attrs({{"dim", int64_t{1}}}), {se, t}, DType::kInt8, Shape{2, 8, 6, 6}).value();
  const auto y =
      g.add_node("y", "dequantize_per_tensor", quant(0.02, -128), {c}, DType::kFloat32, Shape{2, 8, 6, 6}).value();
  EXPECT_TRUE(g.add_output(c).ok());
  EXPECT_TRUE(g.add_output(y).ok());
  return g;
}

// Compiles `graph` for the VgfBackend alone (one delegate call) and checks every output against
// the graph's TOSA lowering run on the reference kernels, for three random inputs.
void expect_bit_exact(const compiler::Graph& graph, const Shape& input_shape) {
  std::vector<compiler::NodeId> nodes(graph.nodes().size());
  for (compiler::NodeId i = 0; i < nodes.size(); ++i) nodes[i] = i;
  UNIVK_ASSIGN_OR_FAIL(spirv::TosaGraph tosa,
                       compiler::lower_to_tosa(graph, nodes, compiler::subgraph_io(graph, nodes)));

  compiler::CompileOptions options;
  options.partition.order = {"VgfBackend"};
  options.partition.require_no_cpu_fallback = true;
  UNIVK_ASSIGN_OR_FAIL(auto compiled, compiler::compile_program(graph, options));
  UNIVK_ASSIGN_OR_FAIL(auto program, Program::load_bytes(std::move(compiled.bytes)));
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward"));
  ASSERT_EQ(method->delegate_calls().size(), 1u);

  for (uint32_t seed : {10u, 11u, 12u}) {
    const HostTensor x = random_tensor(DType::kFloat32, input_shape, seed, -2.5, 2.5);
    const std::vector<HostTensor> inputs = {x};
    UNIVK_ASSIGN_OR_FAIL(auto expected, spirv::run_on_reference(tosa, inputs));
    UNIVK_ASSIGN_OR_FAIL(auto actual, method->execute(inputs));
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      ASSERT_EQ(actual[i].dtype(), expected[i].dtype());
      ASSERT_EQ(actual[i].shape(), expected[i].shape());
      EXPECT_TRUE(std::equal(actual[i].bytes().begin(), actual[i].bytes().end(), expected[i].bytes().begin()))
          << "output " << i << " seed " << seed;
    }
  }
}

TEST(VgfInt8Program, QuantizedCnnIsBitExactAgainstTheTosaReference) {
  expect_bit_exact(quantized_cnn(), Shape{1, 3, 10, 10});
}

TEST(VgfInt8Program, QuantizedMulCatTableAreBitExactAgainstTheTosaReference) {
  expect_bit_exact(quantized_mul_cat_table(), Shape{2, 4, 6, 6});
}

}  // namespace
}  // namespace univk::runtime
