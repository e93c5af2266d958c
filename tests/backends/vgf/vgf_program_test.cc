// VgfBackend delegates inside a univk program: the main example's two VGF pieces
// (NCHW avg_pool2d; x*x+0.25) in one method, per_delegate and fused (record() into the
// method's command buffer over its device tensors), each checked against the TOSA reference.
#include "example_vgfs.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

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
  UNIVK_ASSERT_OK(bytes);
  auto program = runtime::Program::load_bytes(*bytes);
  UNIVK_ASSERT_OK(program);

  runtime::BackendRegistry backends;
  UNIVK_ASSERT_OK(backends.add(make_vgf_backend()));
  HostTensor in = random_tensor(DType::kFloat32, Shape({1, 3, 8, 8}), 50);
  for (auto mode : {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused}) {
    runtime::LoadOptions options;
    options.backends = &backends;
    options.mode = mode;
    auto method = (*program)->load_method("forward", options);
    UNIVK_ASSERT_OK(method);
    EXPECT_EQ((*method)->mode(), mode);
    for (int run = 0; run < 2; ++run) {
      auto out = (*method)->execute(std::span<const HostTensor>(&in, 1));
      UNIVK_ASSERT_OK(out);
      EXPECT_TRUE(tensors_close((*out)[0], expected(in), {1e-5f, 1e-5f}))
          << std::string(runtime::execution_mode_name(mode));
    }
    for (const auto& call : (*method)->delegate_calls()) EXPECT_EQ(call.stats.dispatches, 1u) << call.instruction;
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
