// The `precision` option of the VulkanBackend: fp16 rounds the library kernels' operands
// (activations and weights) to fp16, accumulating in fp32, checked against the reference on
// rounded operands; fp32 (the default) stays exact; delegates of the two precisions on one
// device do not share a prepared graph; other values are refused.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "fp16_rounding.h"
#include "univk/reference/kernels.h"

namespace univk::backends::testing {
namespace {

using ::univk::testing::rounded_to_fp16;

HostTensor ref(const char* op, const Attributes& a, std::vector<HostTensor> in) {
  auto r = reference::run_op(op, a, in);
  UNIVK_EXPECT_OK(r) << op;
  return r.ok() ? (*r)[0] : HostTensor();
}

// x [2, 16, 7, 6] -> conv2d 3x3 pad 1 (const w [8, 16, 3, 3], const b) -> [2, 8, 7, 6], and
// a [3, 40] @ y [40, 24] (two graph inputs) -> [3, 24].
struct Case {
  ComputeGraph graph;
  Attributes conv;
  HostTensor w, b, x, a, y;
};

Case make_case() {
  Case c;
  c.w = random_tensor(DType::kFloat32, Shape{8, 16, 3, 3}, 21);
  c.b = random_tensor(DType::kFloat32, Shape{8}, 22);
  c.x = random_tensor(DType::kFloat32, Shape{2, 16, 7, 6}, 23);
  c.a = random_tensor(DType::kFloat32, Shape{3, 40}, 24);
  c.y = random_tensor(DType::kFloat32, Shape{40, 24}, 25);
  c.conv.set("padding", std::vector<int64_t>{1, 1});
  c.graph.values = {value_of(c.x, false),
                    value_of(c.w, true),
                    value_of(c.b, true),
                    value_of(HostTensor(DType::kFloat32, Shape{2, 8, 7, 6}), false),
                    value_of(c.a, false),
                    value_of(c.y, false),
                    value_of(HostTensor(DType::kFloat32, Shape{3, 24}), false)};
  c.graph.ops = {{"conv2d", c.conv, {0, 1, 2}, {3}}, {"matmul", {}, {4, 5}, {6}}};
  c.graph.inputs = {0, 4, 5};
  c.graph.outputs = {3, 6};
  return c;
}

// The outputs of `c` with operands as given (the bias is an addend, not an operand).
std::vector<HostTensor> expected(const Case& c, bool fp16) {
  auto r = [&](const HostTensor& t) { return fp16 ? rounded_to_fp16(t) : t; };
  return {ref("conv2d", c.conv, {r(c.x), r(c.w), c.b}), ref("matmul", {}, {r(c.a), r(c.y)})};
}

void expect_outputs(const std::vector<HostTensor>& got, const Case& c, bool fp16, const std::string& what) {
  const std::vector<HostTensor> want = expected(c, fp16), other = expected(c, !fp16);
  ASSERT_EQ(got.size(), 2u) << what;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(tensors_close(got[i], want[i], {1e-4, 1e-4})) << what << " output " << i;
    // Random fp32 operands lose bits in fp16 (output errors near 1e-3, against near 1e-6 for
    // another summation order): each mode is far from the other's reference.
    EXPECT_FALSE(tensors_close(got[i], other[i], {2e-5, 0})) << what << " output " << i;
  }
}

TEST(VulkanPrecision, Fp16RoundsTheKernelsOperands) {
  const Case c = make_case();
  for (const char* precision : {"fp32", "fp16"}) {
    auto r = run_graph(c.graph, {c.x, c.a, c.y}, {{"precision", precision}});
    UNIVK_ASSERT_OK(r) << precision;
    expect_outputs(r->outputs, c, std::string(precision) == "fp16", precision);
  }
  // Without the option: fp32.
  auto r = run_graph(c.graph, {c.x, c.a, c.y});
  UNIVK_ASSERT_OK(r);
  expect_outputs(r->outputs, c, false, "default");
  // With split operands (max_binding_bytes): every piece rounds.
  r = run_graph(c.graph, {c.x, c.a, c.y}, {{"precision", "fp16"}, {"max_binding_bytes", "4096"}});
  UNIVK_ASSERT_OK(r);
  EXPECT_GT(r->stats.dispatches, 2u);
  expect_outputs(r->outputs, c, true, "fp16, split");
}

TEST(VulkanPrecision, DelegatesOfEachPrecisionDoNotShareAPreparedGraph) {
  const Case c = make_case();
  auto payload = serialize_compute_graph(c.graph);
  UNIVK_ASSERT_OK(payload);
  backend::DelegateSpec spec;
  spec.backend_id = kVulkanBackendId;
  spec.payload = *payload;
  for (uint32_t id : c.graph.inputs) spec.inputs.push_back({c.graph.values[id].dtype, c.graph.values[id].shape});
  for (uint32_t id : c.graph.outputs) spec.outputs.push_back({c.graph.values[id].dtype, c.graph.values[id].shape});
  auto prepared = make_vulkan_backend()->prepare(spec);
  UNIVK_ASSERT_OK(prepared);
  // Both alive at once on the one device.
  auto fp32 = (*prepared)->init(shared_device(), {{"precision", "fp32"}});
  UNIVK_ASSERT_OK(fp32);
  auto fp16 = (*prepared)->init(shared_device(), {{"precision", "fp16"}});
  UNIVK_ASSERT_OK(fp16);
  for (bool is_fp16 : {true, false}) {
    backend::Delegate& d = is_fp16 ? **fp16 : **fp32;
    const std::string what = is_fp16 ? "fp16" : "fp32";
    UNIVK_ASSERT_OK(d.prepare_execute()) << what;
    const std::vector<HostTensor> inputs = {c.x, c.a, c.y};
    auto got = d.execute(inputs);
    UNIVK_ASSERT_OK(got) << what;
    expect_outputs(*got, c, is_fp16, what);
  }
}

TEST(VulkanPrecision, UnknownPrecisionIsRefused) {
  const Case c = make_case();
  auto r = run_graph(c.graph, {c.x, c.a, c.y}, {{"precision", "fp8"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
  EXPECT_NE(r.status().message().find("precision 'fp8'"), std::string::npos) << r.status().to_string();
}

}  // namespace
}  // namespace univk::backends::testing
