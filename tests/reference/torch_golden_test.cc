// PyTorch operators against outputs computed by torch 1.13 (gen_golden.py -> golden_torch.inc).
#include "test_util.h"

namespace univk::reference::testing {
namespace {

struct GoldenTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
  // Empty tensors are built directly: HostTensor::from_floats memcpys from a null span.
  HostTensor make() const {
    return values.empty() ? HostTensor(DType::kFloat32, Shape(shape)) : tensor(Shape(shape), values);
  }
};

struct GoldenCase {
  const char* op;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<GoldenTensor> inputs;
  GoldenTensor output;
};

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden_torch.inc"
  };
  return cases;
}

TEST(TorchGolden, EveryCaseMatchesPyTorch) {
  ASSERT_FALSE(golden_cases().empty());
  for (size_t i = 0; i < golden_cases().size(); ++i) {
    const GoldenCase& c = golden_cases()[i];
    Attributes a;
    for (const auto& [k, v] : c.attrs) a.set(k, v);
    std::vector<HostTensor> inputs;
    for (const GoldenTensor& t : c.inputs) inputs.push_back(t.make());
    SCOPED_TRACE("case " + std::to_string(i) + ": " + c.op + " " + a.to_string());
    HostTensor got = run1(c.op, a, inputs);
    expect_near(got, c.output.make(), 1e-5f);
  }
}

}  // namespace
}  // namespace univk::reference::testing
