// The README's example chain as a compiler graph, and its expected output from univk's
// reference kernels, for runtime tests that compile it with different partitions:
//   x -> avg_pool2d(2) -> sigmoid -> s*s + 0.25
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "univk/compiler/graph.h"
#include "univk/reference/kernels.h"

namespace univk::testing {

inline compiler::Graph example_chain_graph(const Shape& input_shape) {
  compiler::Graph g;
  const compiler::ValueId x = g.add_input("x", DType::kFloat32, input_shape).value();
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  compiler::ValueId v = g.add_node_inferred("avg_pool2d", "avg_pool2d", pool, {x}).value();
  const compiler::ValueId s = g.add_node_inferred("sigmoid", "sigmoid", {}, {v}).value();
  v = g.add_node_inferred("mul", "mul", {}, {s, s}).value();
  Attributes add;
  add.set("other", 0.25);
  v = g.add_node_inferred("add", "add", add, {v}).value();
  EXPECT_TRUE(g.add_output(v).ok());
  return g;
}

inline HostTensor example_chain_reference(const HostTensor& x) {
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  pool.set("stride", std::vector<int64_t>{2, 2});
  auto run = [](const char* op, const Attributes& a, std::vector<HostTensor> in) {
    auto out = reference::run_op(op, a, in);
    EXPECT_TRUE(out.ok()) << op << ": " << out.status().to_string();
    return out.ok() ? (*out)[0] : HostTensor();
  };
  const HostTensor s = run("sigmoid", {}, {run("avg_pool2d", pool, {x})});
  Attributes add;
  add.set("other", 0.25);
  return run("add", add, {run("mul", {}, {s, s})});
}

}  // namespace univk::testing
