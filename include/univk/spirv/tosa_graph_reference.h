// A TOSA graph (as written in a VGF file, or as the VgfBackend lowering makes it of univk IR)
// evaluated on univk's TOSA reference kernels on the CPU, with no GPU: each operator runs
// through reference::run_tosa in order. The bit-exact oracle for graphs the VgfBackend runs, and
// the tests' way to tell a lowering bug from a backend bug.
//
// Thread-safety: a pure function of its arguments.
#pragma once

#include <span>
#include <vector>

#include "univk/base/status.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/tensor/tensor.h"

namespace univk::spirv {

// The graph's outputs for `inputs` (one per graph input, in order, each of the declared dtype
// and shape): graph inputs take `inputs`, constants their bytes, the operations run in order and
// each result must have its value's declared shape. Errors name the operator and its attributes.
Result<std::vector<HostTensor>> run_on_reference(const TosaGraph& g, std::span<const HostTensor> inputs);

}  // namespace univk::spirv
