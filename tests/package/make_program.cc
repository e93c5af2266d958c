// Writes the program the package tests' consumer runs, and the values it checks:
//   make_program <out.uvk> <values.txt>
// The model, y = sigmoid(avg_pool2d(x, 2)) * sigmoid(...) + 0.25, runs as VgfBackend ->
// VulkanBackend -> VgfBackend (sigmoid pinned to the VulkanBackend). values.txt holds two lines,
// "input v0 v1 ..." and "expected v0 v1 ...", the expected output from the CPU reference kernels.
#include <cstdio>
#include <fstream>
#include <vector>

#include "univk/base/file_map.h"
#include "univk/compiler/compiler.h"
#include "univk/reference/kernels.h"

namespace {

int fail(const univk::Status& status) {
  std::fprintf(stderr, "make_program: %s\n", status.to_string().c_str());
  return 1;
}

void write_line(std::ofstream& out, const char* label, const univk::HostTensor& t) {
  out << label;
  for (float v : t.data<float>()) out << ' ' << v;
  out << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  using namespace univk;
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_program <out.uvk> <values.txt>\n");
    return 2;
  }
  compiler::Graph g;
  auto x = g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8});
  if (!x.ok()) return fail(x.status());
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  Attributes add;
  add.set("other", 0.25);
  auto p = g.add_node_inferred("avg_pool2d", "avg_pool2d", pool, {*x});
  if (!p.ok()) return fail(p.status());
  auto s = g.add_node_inferred("sigmoid", "sigmoid", {}, {*p});
  if (!s.ok()) return fail(s.status());
  auto m = g.add_node_inferred("mul", "mul", {}, {*s, *s});
  if (!m.ok()) return fail(m.status());
  auto a = g.add_node_inferred("add", "add", add, {*m});
  if (!a.ok()) return fail(a.status());
  if (Status st = g.add_output(*a); !st.ok()) return fail(st);

  compiler::CompileOptions options;
  options.partition.pins = {{"sigmoid", "VulkanBackend"}};
  auto compiled = compiler::compile_program(g, options);
  if (!compiled.ok()) return fail(compiled.status());
  if (Status st = write_file(argv[1], compiled->bytes); !st.ok()) return fail(st);

  // Inputs on a grid of exactly representable values; the reference runs node by node, each
  // node reading the previous node's result (mul reads it twice).
  HostTensor input(DType::kFloat32, Shape{1, 3, 8, 8});
  std::span<float> in = input.data<float>();
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int>(i % 13) - 6) * 0.375f;
  HostTensor v = input;
  for (const compiler::Node& n : g.nodes()) {
    auto out = reference::run_op(n.op, n.attrs, std::vector<HostTensor>(n.inputs.size(), v));
    if (!out.ok()) return fail(out.status());
    v = (*out)[0];
  }
  std::ofstream values(argv[2]);
  values.precision(9);
  write_line(values, "input", input);
  write_line(values, "expected", v);
  if (!values.flush()) {
    std::fprintf(stderr, "make_program: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
