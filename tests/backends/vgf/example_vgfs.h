// The main example's two VGF pieces, built with the TOSA graph writer, shared by the program
// tests: NCHW [1,3,8,8] -> avg_pool2d(2, stride 2) -> NCHW [1,3,4,4], and NCHW [1,3,4,4] ->
// x*x + 0.25, each with NCHW<->NHWC transposes at the boundary.
#pragma once

#include "vgf_test_util.h"

namespace univk::backends::vgf_test {

inline std::vector<uint8_t> pool_vgf() {
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, 3, 8, 8}}, 0, 0);
  ValueId t = g.add_operation(TosaOp::kTranspose, {x}, perms({0, 2, 3, 1}), {DType::kFloat32, {1, 8, 8, 3}});
  ValueId p = g.add_operation(TosaOp::kAvgPool2d, {t}, pool_attrs(TosaOp::kAvgPool2d, {2, 2}, {2, 2}, {0, 0, 0, 0}),
                              {DType::kFloat32, {1, 4, 4, 3}});
  ValueId y = g.add_operation(TosaOp::kTranspose, {p}, perms({0, 3, 1, 2}), {DType::kFloat32, {1, 3, 4, 4}});
  g.add_output(y, 0, 1);
  return encode(single_graph_model(g));
}

inline std::vector<uint8_t> square_vgf() {
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

}  // namespace univk::backends::vgf_test
