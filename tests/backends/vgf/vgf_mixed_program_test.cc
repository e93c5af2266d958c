// The main example across both backends on one shared device: VgfBackend (NCHW avg_pool2d),
// VulkanBackend (sigmoid), VgfBackend (x*x+0.25), and the same delegates with the VulkanBackend
// call first. The method merges all delegates' requirements before the device exists, so the
// order does not matter; every delegate must run on the same VkDevice/VkQueue, per_delegate
// and fused.
#include <cmath>

#include "example_vgfs.h"
#include "univk/backends/vulkan/compute_graph.h"
#include "univk/backends/vulkan/vulkan_backend.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

std::vector<uint8_t> sigmoid_graph(Shape shape) {
  ComputeGraph g;
  g.values = {{DType::kFloat32, shape, {}}, {DType::kFloat32, shape, {}}};
  g.ops = {{"sigmoid", {}, {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  auto bytes = serialize_compute_graph(g);
  UNIVK_EXPECT_OK(bytes);
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

float sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

// pool -> sigmoid -> square (vgf_first) or sigmoid -> pool -> square.
HostTensor expected(const HostTensor& in, bool vgf_first) {
  HostTensor out(DType::kFloat32, Shape({1, 3, 4, 4}));
  auto x = in.data<float>();
  auto y = out.data<float>();
  for (int c = 0; c < 3; ++c)
    for (int oy = 0; oy < 4; ++oy)
      for (int ox = 0; ox < 4; ++ox) {
        float sum = 0.f;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) {
            const float v = x[(c * 8 + oy * 2 + ky) * 8 + ox * 2 + kx];
            sum += vgf_first ? v : sigmoid(v);
          }
        const float v = vgf_first ? sigmoid(sum / 4.f) : sum / 4.f;
        y[(c * 4 + oy) * 4 + ox] = v * v + 0.25f;
      }
  return out;
}

void run_program(bool vgf_first) {
  runtime::ProgramBuilder b;
  const auto pool = pool_vgf(), square = square_vgf();
  auto& m = b.add_method("forward");
  auto x = m.add_value(DType::kFloat32, Shape({1, 3, 8, 8}));
  auto y = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
  if (vgf_first) {
    uint32_t d0 = b.add_delegate("VgfBackend", pool);
    uint32_t d1 = b.add_delegate("VulkanBackend", sigmoid_graph(Shape({1, 3, 4, 4})));
    uint32_t d2 = b.add_delegate("VgfBackend", square);
    auto p = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
    auto s = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
    m.add_delegate_call(d0, {x}, {p});
    m.add_delegate_call(d1, {p}, {s});
    m.add_delegate_call(d2, {s}, {y});
  } else {
    uint32_t d0 = b.add_delegate("VulkanBackend", sigmoid_graph(Shape({1, 3, 8, 8})));
    uint32_t d1 = b.add_delegate("VgfBackend", pool);
    uint32_t d2 = b.add_delegate("VgfBackend", square);
    auto s = m.add_value(DType::kFloat32, Shape({1, 3, 8, 8}));
    auto p = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
    m.add_delegate_call(d0, {x}, {s});
    m.add_delegate_call(d1, {s}, {p});
    m.add_delegate_call(d2, {p}, {y});
  }
  m.set_inputs({x});
  m.set_outputs({y});
  auto bytes = b.finish();
  UNIVK_ASSERT_OK(bytes);
  auto program = runtime::Program::load_bytes(*bytes);
  UNIVK_ASSERT_OK(program);
  HostTensor in = random_tensor(DType::kFloat32, Shape({1, 3, 8, 8}), 60);
  for (auto mode : {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused}) {
    vulkan::DeviceRegistry registry;  // fresh: the first delegate of this program creates the device
    runtime::LoadOptions options;
    options.registry = &registry;
    options.mode = mode;
    auto method = (*program)->load_method("forward", options);
    UNIVK_ASSERT_OK(method);
    auto out = (*method)->execute(std::span<const HostTensor>(&in, 1));
    UNIVK_ASSERT_OK(out);
    EXPECT_TRUE(tensors_close((*out)[0], expected(in, vgf_first), {1e-5f, 1e-5f}))
        << (vgf_first ? "vgf first" : "vulkan first");
    const auto calls = (*method)->delegate_calls();
    ASSERT_EQ(calls.size(), 3u);
    for (const auto& call : calls) {
      EXPECT_EQ(call.device, calls[0].device) << call.backend_id;
      EXPECT_EQ(call.queue, calls[0].queue) << call.backend_id;
    }
    EXPECT_EQ(registry.created_count(), 1u);
  }
}

TEST(VgfMixedProgram, VgfDelegateFirst) { run_program(true); }
TEST(VgfMixedProgram, VulkanDelegateFirst) { run_program(false); }

}  // namespace
}  // namespace univk::backends::vgf_test
