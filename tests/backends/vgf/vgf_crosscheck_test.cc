// The three-way cross-check of the native path (label vgf_native): random single-operator cases
// of every TOSA operator univk's SPIR-V writer supports (crosscheck_cases.h), each run by Arm's
// emulation layer (vgf_graph_path=native: a VK_ARM_data_graph pipeline), by univk's lowering to
// compute shaders (vgf_graph_path=lowered, same device) and by univk's reference
// (reference::run_tosa). Both paths must match the reference within the case's tolerance
// (integer outputs bit-exact); a failure says which of the three stands apart.
//
// Seeds: CI runs kCiSeeds. UNIVK_CROSSCHECK_CASES=N runs seeds 1..N of every variant, and
// UNIVK_CROSSCHECK_SEED=S the one seed S (to rebuild a reported case); --gtest_filter picks
// variants (CrossCheck/VgfCrossCheck.*/CONV2D_int8).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "crosscheck_cases.h"
#include "external_data.h"
#include "vgf_test_util.h"

namespace univk::backends::vgf_test {
namespace {

constexpr uint32_t kCiSeeds[] = {1};

std::vector<uint32_t> seeds() {
  if (const char* one = std::getenv("UNIVK_CROSSCHECK_SEED"))
    return {static_cast<uint32_t>(std::strtoul(one, nullptr, 10))};
  if (const char* count = std::getenv("UNIVK_CROSSCHECK_CASES")) {
    std::vector<uint32_t> all(std::max<unsigned long>(1, std::strtoul(count, nullptr, 10)));
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint32_t>(i + 1);
    return all;
  }
  return {std::begin(kCiSeeds), std::end(kCiSeeds)};
}

// The case as a VGF: data inputs bound in order, graph constants with ids 0.. in the constant
// section (as the exporter writes weights), one output (two for FFT2D / RFFT2D).
::univk::vgf::VgfFile case_model(const CrossCheckCase& c) {
  TosaGraph g;
  std::vector<ValueId> operands;
  uint32_t binding = 0, constant_id = 0;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const TosaTensorType type{c.inputs[i].dtype(), c.inputs[i].shape().dims()};
    operands.push_back(c.graph_constant[i] ? g.add_graph_constant(type, constant_id++)
                                           : g.add_input(type, 0, binding++));
  }
  if (c.output2) {
    const std::vector<ValueId> y =
        g.add_operation(c.op, operands, c.attrs, std::vector<TosaTensorType>{c.output, *c.output2});
    g.add_output(y[0], 0, binding);
    g.add_output(y[1], 0, binding + 1);
  } else {
    g.add_output(g.add_operation(c.op, operands, c.attrs, c.output), 0, binding);
  }
  ::univk::vgf::VgfFile file = single_graph_model(g);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.graph_constant[i]) add_graph_constants(file, {&c.inputs[i]});
  }
  return file;
}

// Runs `file` on the emulation layer's device with vgf_graph_path=`path`.
Result<std::vector<HostTensor>> run_path(const ::univk::vgf::VgfFile& file, const std::vector<HostTensor>& inputs,
                                         const std::string& path) {
  const std::vector<uint8_t> payload = encode(file);
  UNIVK_ASSIGN_OR_RETURN(auto prepared, make_vgf_backend()->prepare(spec_for(file, payload)));
  UNIVK_ASSIGN_OR_RETURN(auto device, DeviceCache::get().device_for(prepared->requirements(), emulation_config()));
  UNIVK_ASSIGN_OR_RETURN(auto delegate, prepared->init(device, {{"vgf_graph_path", path}}));
  if (delegate->graph_path() != path)
    return internal_error("the delegate took the " + std::string(delegate->graph_path()) + " path");
  UNIVK_RETURN_IF_ERROR(delegate->prepare_execute());
  return delegate->execute(inputs);
}

double max_abs_error(const HostTensor& got, const HostTensor& want) {
  double worst = 0.0;
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) return INFINITY;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(static_cast<size_t>(i)), w = want.element_as_double(static_cast<size_t>(i));
    if (std::isnan(g) != std::isnan(w)) return INFINITY;
    if (!std::isnan(w)) worst = std::max(worst, std::fabs(g - w));
  }
  return worst;
}

class VgfCrossCheck : public ::testing::TestWithParam<size_t> {};

TEST_P(VgfCrossCheck, EmulationLayerLoweringAndReferenceAgree) {
  UNIVK_REQUIRE_EXTERNAL_FILE(emulation_layer_dir());
  const CrossCheckGenerator& generator = crosscheck_generators()[GetParam()];
  double worst_native = 0.0, worst_lowered = 0.0;
  for (uint32_t seed : seeds()) {
    const CrossCheckCase c = make_crosscheck_case(generator, seed);
    const std::string what = describe(generator, seed, c);
    SCOPED_TRACE(what);
    auto want = reference::run_tosa(spirv::tosa_op_name(c.op), reference_attributes(c), c.inputs);
    UNIVK_ASSERT_OK(want) << "the reference refuses a case drawn within the spec: " << what;
    const size_t results = c.output2 ? 2 : 1;
    ASSERT_EQ(want->size(), results) << "the reference's result count";
    ASSERT_EQ((*want)[0].shape(), Shape(c.output.shape)) << "the generator's output shape";
    std::vector<HostTensor> graph_inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i)
      if (!c.graph_constant[i]) graph_inputs.push_back(c.inputs[i]);
    const ::univk::vgf::VgfFile file = case_model(c);
    auto lowered = run_path(file, graph_inputs, "lowered");
    auto native = run_path(file, graph_inputs, "native");
    UNIVK_ASSERT_OK(lowered) << "lowered";
    UNIVK_ASSERT_OK(native) << "native (emulation layer)";
    ASSERT_EQ(lowered->size(), results);
    ASSERT_EQ(native->size(), results);
    for (size_t r = 0; r < results; ++r) {
      const HostTensor &low = (*lowered)[r], &nat = (*native)[r], &ref = (*want)[r];
      const auto lowered_ok = tensors_close(low, ref, c.tolerance);
      const auto native_ok = tensors_close(nat, ref, c.tolerance);
      if (!lowered_ok || !native_ok) {
        const bool paths_agree = tensors_close(nat, low, c.tolerance);
        const char* odd_one = !native_ok && !lowered_ok
                                  ? (paths_agree ? "the reference (both paths agree)" : "all three")
                              : !native_ok ? "the emulation layer (native)"
                                           : "univk's lowering";
        ADD_FAILURE() << "disagreement on result " << r << "; standing apart: " << odd_one
                      << "\n  lowered vs reference: " << (lowered_ok ? "ok" : lowered_ok.message())
                      << "\n  native vs reference: " << (native_ok ? "ok" : native_ok.message())
                      << "\n  case: " << what;
      }
      worst_lowered = std::max(worst_lowered, max_abs_error(low, ref));
      worst_native = std::max(worst_native, max_abs_error(nat, ref));
    }
  }
  std::printf("%-24s %zu seeds, max |error| vs reference: native %.3g, lowered %.3g\n", generator.variant,
              seeds().size(), worst_native, worst_lowered);
}

std::string variant_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string name;
  for (const char* p = crosscheck_generators()[info.param].variant; *p != '\0'; ++p) {
    if (std::isalnum(static_cast<unsigned char>(*p))) {
      name += *p;
    } else if (*p == '>') {
      name += "to_";
    } else if (*p != '-') {
      name += '_';
    }
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(CrossCheck, VgfCrossCheck, ::testing::Range<size_t>(0, crosscheck_generators().size()),
                         variant_name);

// Every operator the SPIR-V writer takes is cross-checked: a new one needs a generator in
// crosscheck_cases.cc.
TEST(VgfCrossCheckCoverage, EveryWrittenOperatorHasAGenerator) {
  for (spirv::TosaOp op : spirv::supported_tosa_ops()) {
    bool found = false;
    for (const CrossCheckGenerator& g : crosscheck_generators()) found = found || g.op == op;
    EXPECT_TRUE(found) << spirv::tosa_op_name(op) << " has no generator in tests/backends/vgf/crosscheck_cases.cc";
  }
}

// The generators are deterministic and stay within what the reference accepts.
TEST(VgfCrossCheckCoverage, CasesAreReproducibleAndValid) {
  for (const CrossCheckGenerator& g : crosscheck_generators()) {
    for (uint32_t seed = 1; seed <= 20; ++seed) {
      const CrossCheckCase a = make_crosscheck_case(g, seed), b = make_crosscheck_case(g, seed);
      EXPECT_EQ(describe(g, seed, a), describe(g, seed, b));
      auto want = reference::run_tosa(spirv::tosa_op_name(a.op), reference_attributes(a), a.inputs);
      UNIVK_EXPECT_OK(want) << describe(g, seed, a);
      if (want.ok()) {
        EXPECT_EQ((*want)[0].shape(), Shape(a.output.shape)) << describe(g, seed, a);
      }
    }
  }
}

}  // namespace
}  // namespace univk::backends::vgf_test
