// Random single-operator TOSA cases for the three-way cross-check (vgf_crosscheck_test: Arm's
// emulation layer, univk's lowering, univk's reference). One generator per operator variant
// (operator and element types), each drawing shapes and attributes within the operator's TOSA 1.0
// constraints (exact output sizes, pad < kernel for pools, RESCALE shift in [2, 62], RESIZE
// scale/offset/border ranges, ...) from a seeded generator, so a (variant, seed) pair always
// makes the same case. To cover a new operator of the SPIR-V writer, add a generator to the
// table in crosscheck_cases.cc; the test fails while an operator of spirv::supported_tosa_ops()
// has none.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "univk/spirv/tosa_graph.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/tensor.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {

struct CrossCheckCase {
  spirv::TosaOp op = spirv::TosaOp::kAdd;
  Attributes attrs;                  // SPIR-V convention (tosa_graph.h): zero points typed by element kind
  std::vector<HostTensor> inputs;    // the data operands, grammar order
  std::vector<bool> graph_constant;  // per input: an OpGraphConstantARM (weights, bias, table) or a graph input
  spirv::TosaTensorType output;
  // FFT2D / RFFT2D: the second (imaginary) result, a second graph output checked like the first.
  std::optional<spirv::TosaTensorType> output2;
  // Float outputs: allowed |got - want| <= atol + rtol * |want| against the reference, on
  // either path. Integer and bool outputs must be bit-exact.
  ::univk::testing::Tolerance tolerance;
};

struct CrossCheckGenerator {
  const char* variant;  // "CONV2D int8": unique, the test's name for the case
  spirv::TosaOp op;
  CrossCheckCase (*make)(std::mt19937& rng);
};

// Every generator, in the order the test runs them.
std::span<const CrossCheckGenerator> crosscheck_generators();

// The case of `generator` for `seed` (the generator is seeded from the variant name and seed).
CrossCheckCase make_crosscheck_case(const CrossCheckGenerator& generator, uint32_t seed);

// "CONV2D int8 seed 3: inputs int8[1,5,7,3] int8[4,3,3,3](constant) int32[4](constant) ->
// int32[1,5,7,4] {attributes}": everything needed to rebuild the case by hand.
std::string describe(const CrossCheckGenerator& generator, uint32_t seed, const CrossCheckCase& c);

// The reference's attributes for a case: zero points as ints, and output_type for CAST/RESCALE.
Attributes reference_attributes(const CrossCheckCase& c);

}  // namespace univk::backends::vgf_test
