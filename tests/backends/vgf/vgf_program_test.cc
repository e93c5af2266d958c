// VgfBackend delegates inside a univk program: the main example's two VGF pieces
// (NCHW avg_pool2d; x*x+0.25) in one method, per_delegate and fused (record() into the
// method's command buffer over its device tensors), each checked against the TOSA reference.
#include "vgf_test_util.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"

namespace univk::backends::vgf_test {
namespace {

Attributes perms(std::vector<int64_t> p) {
  Attributes a;
  a.set("perms", p);
  return a;
}

// NCHW [1,3,8,8] -> avg_pool2d(2, stride 2) -> NCHW [1,3,4,4], with boundary transposes.
std::vector<uint8_t> pool_vgf() {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, 3, 8, 8}}, 0, 0);
  ValueId t = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {1, 8, 8, 3}});
  Attributes a;
  a.set("kernel", std::vector<int64_t>{2, 2});
  a.set("stride", std::vector<int64_t>{2, 2});
  a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  a.set("acc_type", spirv::kAccFp32);
  a.set("input_zp", 0.0);
  a.set("output_zp", 0.0);
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {t}, a, {DType::kFloat32, {1, 4, 4, 3}});
  ValueId y = g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 3, 4, 4}});
  g.add_output(y, 0, 1);
  return encode(single_graph_model(g));
}

// NCHW [1,3,4,4] -> x*x + 0.25.
std::vector<uint8_t> square_vgf() {
  TosaGraph g;
  const TosaTensorType nchw{DType::kFloat32, {1, 3, 4, 4}}, nhwc{DType::kFloat32, {1, 4, 4, 3}};
  ValueId x = g.add_input(nchw, 0, 0);
  ValueId t = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), nhwc);
  Attributes mul;
  mul.set("shift", int64_t{0});
  ValueId sq = g.add_operation(TosaOp::kMul, {t, t}, mul, nhwc);
  ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, floats_bytes({0.25f}));
  ValueId s = g.add_operation(TosaOp::kAdd, {sq, c}, {}, nhwc);
  ValueId y = g.add_operation(TosaOp::kTranspose, {s}, perms({0, 3, 1, 2}), nchw);
  g.add_output(y, 0, 1);
  return encode(single_graph_model(g));
}

HostTensor expected(const HostTensor& in) {
  HostTensor out(DType::kFloat32, Shape({1, 3, 4, 4}));
  auto x = in.data<float>();
  auto y = out.data<float>();
  for (int c = 0; c < 3; ++c)
    for (int oy = 0; oy < 4; ++oy)
      for (int ox = 0; ox < 4; ++ox) {
        float sum = 0.f;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) sum += x[(c * 8 + oy * 2 + ky) * 8 + ox * 2 + kx];
        const float avg = sum / 4.f;
        y[(c * 4 + oy) * 4 + ox] = avg * avg + 0.25f;
      }
  return out;
}

TEST(VgfProgram, TwoVgfDelegatesPerDelegateAndFused) {
  runtime::ProgramBuilder b;
  const auto pool = pool_vgf(), square = square_vgf();
  uint32_t d0 = b.add_delegate("VgfBackend", pool);
  uint32_t d1 = b.add_delegate("VgfBackend", square);
  auto& m = b.add_method("forward");
  auto x = m.add_value(DType::kFloat32, Shape({1, 3, 8, 8}));
  auto p = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
  auto y = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
  m.add_delegate_call(d0, {x}, {p});
  m.add_delegate_call(d1, {p}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  auto bytes = b.finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto program = runtime::Program::load_bytes(*bytes);
  ASSERT_TRUE(program.ok()) << program.status().to_string();

  runtime::BackendRegistry backends;
  ASSERT_TRUE(backends.add(make_vgf_backend()).ok());
  HostTensor in = random_tensor(DType::kFloat32, Shape({1, 3, 8, 8}), 50);
  for (auto mode : {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused}) {
    runtime::LoadOptions options;
    options.backends = &backends;
    options.mode = mode;
    auto method = (*program)->load_method("forward", options);
    ASSERT_TRUE(method.ok()) << method.status().to_string();
    EXPECT_EQ((*method)->mode(), mode);
    for (int run = 0; run < 2; ++run) {
      auto out = (*method)->execute(std::span<const HostTensor>(&in, 1));
      ASSERT_TRUE(out.ok()) << out.status().to_string();
      expect_close((*out)[0], expected(in), 1e-5f, std::string(runtime::execution_mode_name(mode)));
    }
    for (const auto& call : (*method)->delegate_calls()) EXPECT_EQ(call.stats.dispatches, 1u) << call.instruction;
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
