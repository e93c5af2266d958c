// Programs built in-test for the fault-injection and stress tests, each with its expected output
// computed on the CPU, so every run of every thread can be verified.
//
//   vulkan_program(scale, bias)   VulkanBackend alone: y = sigmoid(x) * scale + bias, x [1,3,8,8]
//   example_program()             the README example, compiled by univk::compiler:
//                                 avg_pool2d (VgfBackend) -> sigmoid (VulkanBackend)
//                                 -> x*x+0.25 (VgfBackend), [1,3,8,8] -> [1,3,4,4]
// Which of them exist depends on the build (backends and compiler are options); available()
// lists those this build can make.
//
// Ownership: a TestProgram holds a shared Program; methods loaded from it keep it alive.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/runtime/program.h"
#include "univk/tensor/tensor.h"

namespace univk::reliability {

struct TestProgram {
  std::string name;
  std::shared_ptr<runtime::Program> program;
  Shape input_shape;
  std::function<HostTensor(const HostTensor&)> expected;  // the output for one input
};

Result<TestProgram> vulkan_program(float scale, float bias);
Result<TestProgram> example_program();
// Every program this build can make (each call builds them anew).
Result<std::vector<TestProgram>> available();

// Uniform values in [-2, 2), deterministic per seed.
HostTensor random_input(const Shape& shape, uint32_t seed);
// ok when shapes match and |got - want| <= 1e-4 + 1e-4*|want| everywhere; else Internal naming
// the first differing element.
Status check_close(const HostTensor& got, const HostTensor& want);
// Executes `method` on `input` and checks the single output against `expected`.
Status run_and_check(runtime::Method& method, const TestProgram& program, uint32_t seed);

}  // namespace univk::reliability
