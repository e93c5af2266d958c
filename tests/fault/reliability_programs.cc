#include "reliability_programs.h"

#include <cmath>
#include <cstring>

#include "univk/config.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"
#if UNIVK_BUILD_VULKAN_BACKEND
#include "univk/backends/vulkan/compute_graph.h"
#endif
#if UNIVK_BUILD_COMPILER
#include "univk/compiler/compiler.h"
#endif

namespace univk::reliability {
namespace {

[[maybe_unused]] float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

[[maybe_unused]] std::vector<uint8_t> f32_bytes(std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

}  // namespace

HostTensor random_input(const Shape& shape, uint32_t seed) {
  return ::univk::testing::random_tensor(DType::kFloat32, shape, seed);
}

Status check_close(const HostTensor& got, const HostTensor& want) {
  const ::testing::AssertionResult close = ::univk::testing::tensors_close(got, want, {1e-4, 1e-4});
  if (!close) return internal_error(close.message());
  return ok_status();
}

Status run_and_check(runtime::Method& method, const TestProgram& program, uint32_t seed) {
  HostTensor input = random_input(program.input_shape, seed);
  UNIVK_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, method.execute({&input, 1}));
  if (outputs.size() != 1) return internal_error("expected 1 output, got " + std::to_string(outputs.size()));
  return check_close(outputs[0], program.expected(input));
}

Result<TestProgram> vulkan_program([[maybe_unused]] float scale, [[maybe_unused]] float bias) {
#if UNIVK_BUILD_VULKAN_BACKEND
  using backends::ComputeOp;
  using backends::ComputeValue;
  const Shape shape{1, 3, 8, 8};
  backends::ComputeGraph g;
  g.values = {ComputeValue{DType::kFloat32, shape, {}},
              ComputeValue{DType::kFloat32, shape, {}},
              ComputeValue{DType::kFloat32, Shape{1}, f32_bytes({scale})},
              ComputeValue{DType::kFloat32, shape, {}},
              ComputeValue{DType::kFloat32, Shape{1}, f32_bytes({bias})},
              ComputeValue{DType::kFloat32, shape, {}}};
  g.ops = {ComputeOp{"sigmoid", {}, {0}, {1}}, ComputeOp{"mul", {}, {1, 2}, {3}}, ComputeOp{"add", {}, {3, 4}, {5}}};
  g.inputs = {0};
  g.outputs = {5};
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> payload, backends::serialize_compute_graph(g));

  runtime::ProgramBuilder builder;
  uint32_t delegate = builder.add_delegate("VulkanBackend", payload);
  runtime::MethodBuilder& m = builder.add_method("forward");
  runtime::ValueId x = m.add_value(DType::kFloat32, shape);
  runtime::ValueId y = m.add_value(DType::kFloat32, shape);
  m.add_delegate_call(delegate, {x}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, builder.finish());
  UNIVK_ASSIGN_OR_RETURN(auto program, runtime::Program::load_bytes(std::move(bytes)));
  TestProgram t;
  t.name = "vulkan";
  t.program = std::move(program);
  t.input_shape = shape;
  t.expected = [scale, bias](const HostTensor& x) {
    HostTensor y(DType::kFloat32, x.shape());
    auto in = x.data<float>();
    auto out = y.data<float>();
    for (size_t i = 0; i < in.size(); ++i) out[i] = sigmoid(in[i]) * scale + bias;
    return y;
  };
  return t;
#else
  return unsupported("this build has no VulkanBackend");
#endif
}

Result<TestProgram> example_program() {
#if UNIVK_BUILD_COMPILER
  compiler::Graph g;
  UNIVK_ASSIGN_OR_RETURN(compiler::ValueId x, g.add_input("x", DType::kFloat32, Shape{1, 3, 8, 8}));
  Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  pool.set("stride", std::vector<int64_t>{2, 2});
  UNIVK_ASSIGN_OR_RETURN(compiler::ValueId p, g.add_node_inferred("avg_pool2d", "avg_pool2d", pool, {x}));
  UNIVK_ASSIGN_OR_RETURN(compiler::ValueId s, g.add_node_inferred("sigmoid", "sigmoid", {}, {p}));
  UNIVK_ASSIGN_OR_RETURN(compiler::ValueId sq, g.add_node_inferred("mul", "mul", {}, {s, s}));
  Attributes plus;
  plus.set("other", 0.25);
  UNIVK_ASSIGN_OR_RETURN(compiler::ValueId y, g.add_node_inferred("add", "add", plus, {sq}));
  UNIVK_RETURN_IF_ERROR(g.add_output(y));
  compiler::CompileOptions options;
  options.partition.order = {"VgfBackend", "VulkanBackend"};
  options.partition.pins["sigmoid"] = "VulkanBackend";
  UNIVK_ASSIGN_OR_RETURN(compiler::CompiledProgram compiled, compiler::compile_program(g, options));
  UNIVK_ASSIGN_OR_RETURN(auto program, runtime::Program::load_bytes(std::move(compiled.bytes)));
  TestProgram t;
  t.name = "example";
  t.program = std::move(program);
  t.input_shape = Shape{1, 3, 8, 8};
  t.expected = [](const HostTensor& x) {
    HostTensor y(DType::kFloat32, Shape{1, 3, 4, 4});
    auto in = x.data<float>();
    auto out = y.data<float>();
    for (int c = 0; c < 3; ++c) {
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          float sum = 0.f;
          for (int di = 0; di < 2; ++di) {
            for (int dj = 0; dj < 2; ++dj) sum += in[c * 64 + (2 * i + di) * 8 + 2 * j + dj];
          }
          float v = sigmoid(sum / 4.f);
          out[c * 16 + i * 4 + j] = v * v + 0.25f;
        }
      }
    }
    return y;
  };
  return t;
#else
  return unsupported("this build has no compiler (it needs both backends)");
#endif
}

Result<std::vector<TestProgram>> available() {
  std::vector<TestProgram> programs;
#if UNIVK_BUILD_VULKAN_BACKEND
  UNIVK_ASSIGN_OR_RETURN(TestProgram vulkan, vulkan_program(2.f, 0.5f));
  programs.push_back(std::move(vulkan));
#endif
#if UNIVK_BUILD_COMPILER
  UNIVK_ASSIGN_OR_RETURN(TestProgram example, example_program());
  programs.push_back(std::move(example));
#endif
  return programs;
}

}  // namespace univk::reliability
