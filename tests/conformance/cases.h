// The conformance table: every PyTorch-level operator case (op, attributes, input dtypes,
// shapes and value ranges), written once and run on every backend that claims it
// (conformance_test.cc), against univk::reference::run_op; the quantized int8 operators, which
// have no PyTorch-semantics reference kernel, against univk's TOSA reference kernels run on
// the op's TOSA lowering (bit-exact, as tests/e2e/int8_test.py checks whole models).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "univk/tensor/attributes.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"
#include "univk_test.h"

namespace univk::conformance {

// One tensor operand of a case.
struct Operand {
  Shape shape;
  bool constant = false;  // a graph constant (weights, parameters) instead of a graph input
  testing::ValueRange range{-2.0, 2.0};
  DType dtype = DType::kFloat32;
};

struct OpCase {
  std::string op;    // a univk::reference::run_op name, e.g. "conv2d"
  std::string name;  // unique within the op, [A-Za-z0-9_]: "stride2_pad1_groups2"
  Attributes attrs;
  std::vector<Operand> inputs;  // in run_op order
  // The result's dtype and shape for an op without a run_op kernel (the quantized ones): its
  // oracle is then the TOSA reference on its TOSA lowering.
  std::optional<Operand> result;
};

// Test parameters print as "op/name".
inline void PrintTo(const OpCase& c, std::ostream* os) { *os << c.op << "/" << c.name; }

// Every case, grouped by op (the order of the op families in cases.cc).
const std::vector<OpCase>& all_cases();

// The allowed error per op and output dtype: |got - want| <= atol + rtol * |want| (floats);
// integer and bool results are exact. Nullopt when the table has no row (a test failure: every
// case's op and dtype need one).
std::optional<testing::Tolerance> tolerance_for(const std::string& op, DType dtype);

}  // namespace univk::conformance
