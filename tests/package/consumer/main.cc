// An application built against an installed univk (find_package, pkg-config or
// add_subdirectory): loads a program and checks its output in both execution modes, and passes
// the input through a .npy file (univk/npy/npy.h) on the way.
//   consumer <model.uvk> <values.txt> <scratch.npy>     (values.txt from tests/package/make_program.cc)
// Exits 0 when every output matches, 1 otherwise; prints what differs.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "univk/base/version.h"
#include "univk/config.h"
#include "univk/npy/npy.h"
#include "univk/runtime/program.h"
#include "univk/vulkan/validation.h"

namespace {

// The numbers after `label` on its line of the values file.
std::vector<float> read_values(const std::string& path, const std::string& label) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first != label) continue;
    std::vector<float> values;
    for (float v; words >> v;) values.push_back(v);
    return values;
  }
  return {};
}

bool run(const univk::runtime::Program& program, univk::runtime::ExecutionMode mode, const std::vector<float>& input,
         const std::vector<float>& expected, const std::string& npy_path) {
  using namespace univk;
  runtime::LoadOptions options;
  options.mode = mode;
  options.require_no_cpu_fallback = true;
  auto method = program.load_method("forward", options);
  if (!method.ok()) {
    std::fprintf(stderr, "load_method: %s\n", method.status().to_string().c_str());
    return false;
  }
  const auto inputs = (*method)->input_infos();
  if (inputs.size() != 1 || static_cast<size_t>(inputs[0].shape.numel()) != input.size()) {
    std::fprintf(stderr, "the program's input does not match the values file\n");
    return false;
  }
  if (Status s = npy::write_npy(npy_path, HostTensor::from_floats(inputs[0].shape, input)); !s.ok()) {
    std::fprintf(stderr, "write_npy: %s\n", s.to_string().c_str());
    return false;
  }
  auto read = npy::read_npy(npy_path);
  if (!read.ok()) {
    std::fprintf(stderr, "read_npy: %s\n", read.status().to_string().c_str());
    return false;
  }
  const HostTensor x = std::move(read).value();
  auto outputs = (*method)->execute(std::span<const HostTensor>(&x, 1));
  if (!outputs.ok()) {
    std::fprintf(stderr, "execute: %s\n", outputs.status().to_string().c_str());
    return false;
  }
  if (outputs->size() != 1 || static_cast<size_t>((*outputs)[0].numel()) != expected.size()) {
    std::fprintf(stderr, "the program's output does not match the values file\n");
    return false;
  }
  std::span<const float> y = (*outputs)[0].data<float>();
  for (size_t i = 0; i < y.size(); ++i) {
    if (!(std::fabs(y[i] - expected[i]) <= 1e-5f + 1e-5f * std::fabs(expected[i]))) {
      std::fprintf(stderr, "%s: output %zu is %.9g, expected %.9g\n",
                   std::string(runtime::execution_mode_name(mode)).c_str(), i, y[i], expected[i]);
      return false;
    }
  }
  std::printf("%s: %zu outputs match\n", std::string(runtime::execution_mode_name((*method)->mode())).c_str(),
              y.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace univk;
  if (argc != 4) {
    std::fprintf(stderr, "usage: consumer <model.uvk> <values.txt> <scratch.npy>\n");
    return 2;
  }
  std::printf("univk %s (headers %s)\n", std::string(version_string()).c_str(), UNIVK_VERSION_STRING);
  const std::vector<float> input = read_values(argv[2], "input");
  const std::vector<float> expected = read_values(argv[2], "expected");
  if (input.empty() || expected.empty()) {
    std::fprintf(stderr, "%s: no input or expected values\n", argv[2]);
    return 1;
  }
  auto program = runtime::Program::load(argv[1]);
  if (!program.ok()) {
    std::fprintf(stderr, "Program::load: %s\n", program.status().to_string().c_str());
    return 1;
  }
  bool ok = true;
  for (runtime::ExecutionMode mode : {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused}) {
    ok = run(**program, mode, input, expected, argv[3]) && ok;
  }
  if (vulkan::validation_message_count() != 0) {
    std::fprintf(stderr, "the Vulkan validation layer reported %llu messages\n",
                 static_cast<unsigned long long>(vulkan::validation_message_count()));
    ok = false;
  }
  return ok ? 0 : 1;
}
