// Pools whose windows are too large to unroll (global pools, e.g. adaptive_avg_pool2d(x, 1)) run
// runtime-bounded tap loops: they compile in seconds and match the TOSA reference; small windows
// keep the unrolled fast paths (QUAD_X and friends).
#include <chrono>
#include <cstdio>

#include "vgf_plan_util.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

using backends::vgf::Dispatch;
using backends::vgf::Shader;

struct PoolCase {
  TosaOp op;
  DType dtype;
  std::vector<int64_t> in;  // NHWC
  std::vector<int64_t> kernel, stride, pad;
};

std::vector<int64_t> out_shape(const PoolCase& p) {
  return {p.in[0], (p.in[1] + p.pad[0] + p.pad[1] - p.kernel[0]) / p.stride[0] + 1,
          (p.in[2] + p.pad[2] + p.pad[3] - p.kernel[1]) / p.stride[1] + 1, p.in[3]};
}

TosaGraph pool_graph(const PoolCase& p) {
  TosaGraph g;
  ValueId x = g.add_input({p.dtype, p.in}, 0, 0);
  const bool int8 = p.dtype == DType::kInt8;
  g.add_output(g.add_operation(p.op, {x}, pool_attrs(p.op, p.kernel, p.stride, p.pad, int8), {p.dtype, out_shape(p)}),
               0, 1);
  return g;
}

std::string describe(const PoolCase& p) {
  return std::string(spirv::tosa_op_name(p.op)) + " " + std::string(dtype_name(p.dtype)) + " " +
         Shape(p.in).to_string() + " kernel " + Shape(p.kernel).to_string();
}

void run_against_reference(const PoolCase& p) {
  const std::string what = describe(p);
  const TosaGraph g = pool_graph(p);
  const auto start = std::chrono::steady_clock::now();
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded) << what;
  HostTensor in = random_tensor(p.dtype, Shape(p.in), 61);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out) << what;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: load and first run %.2f s\n", what.c_str(), seconds);
  const bool int8 = p.dtype == DType::kInt8;
  const Attributes attrs = ref_pool_attrs(pool_attrs(p.op, p.kernel, p.stride, p.pad, int8));
  HostTensor want = ref(std::string(spirv::tosa_op_name(p.op)), attrs, {in});
  // fp32 sums of 4096 taps in a different association than the reference's: a few ulps.
  EXPECT_TRUE(tensors_close((*out)[0], want, {1e-5f, 1e-5f})) << what;
}

TEST(VgfLargePool, GlobalPoolsOf64x64LoopAndMatchTheReference) {
  for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d})
    for (DType dtype : {DType::kFloat32, DType::kInt8})
      run_against_reference({op, dtype, {2, 64, 64, 5}, {64, 64}, {1, 1}, {0, 0, 0, 0}});
}

TEST(VgfLargePool, LargePaddedStridedWindowsLoopAndMatchTheReference) {
  // 9x7 windows (63 taps) at stride 3x2 with padding: the loops clip each window to the input.
  for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d})
    for (DType dtype : {DType::kFloat32, DType::kInt8})
      run_against_reference({op, dtype, {1, 19, 17, 3}, {9, 7}, {3, 2}, {4, 4, 3, 3}});
}

TEST(VgfLargePool, OnlyLargeWindowsLeaveTheUnrolledPath) {
  const PoolCase global{TosaOp::kAvgPool2d, DType::kFloat32, {1, 64, 64, 8}, {64, 64}, {1, 1}, {0, 0, 0, 0}};
  const PoolCase small{TosaOp::kAvgPool2d, DType::kFloat32, {1, 8, 16, 8}, {2, 2}, {2, 2}, {0, 0, 0, 0}};
  // NCHW memory (W stride 1) for the small pool so QUAD_X applies: transposes at both ends.
  TosaGraph nchw;
  ValueId x = nchw.add_input({DType::kFloat32, {1, 8, 8, 16}}, 0, 0);
  ValueId t = nchw.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {1, 8, 16, 8}});
  ValueId p = nchw.add_operation(TosaOp::kAvgPool2d, {t}, pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0}),
                                 {DType::kFloat32, {1, 4, 8, 8}});
  nchw.add_output(nchw.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 8, 4, 8}}), 0,
                  1);
  auto global_plan = plan_of(pool_graph(global));
  auto small_plan = plan_of(nchw);
  UNIVK_ASSERT_OK(global_plan);
  UNIVK_ASSERT_OK(small_plan);
  ASSERT_EQ(global_plan->dispatches.size(), 1u);
  ASSERT_EQ(small_plan->dispatches.size(), 1u);
  const Dispatch& g = global_plan->dispatches[0];
  const Dispatch& s = small_plan->dispatches[0];
  ASSERT_EQ(g.shader, Shader::kPoolF32);
  ASSERT_EQ(s.shader, Shader::kPoolF32);
  EXPECT_EQ(spec_value(g, 3), 0u) << "KERNEL_Y 0: runtime-bounded loops";
  EXPECT_EQ(spec_value(g, 4), 0u) << "KERNEL_X 0: runtime-bounded loops";
  EXPECT_EQ(spec_value(g, backends::vgf::kPoolQuadXConstant), 0u);
  EXPECT_EQ(spec_value(s, 3), 2u);
  EXPECT_EQ(spec_value(s, 4), 2u);
  EXPECT_EQ(spec_value(s, backends::vgf::kPoolQuadXConstant), 1u);
  EXPECT_EQ(spec_value(s, backends::vgf::kPoolPairXConstant), 1u);
  run_against_reference(small);
}

}  // namespace
}  // namespace univk::backends::vgf_test
