// A whole graph run on univk's TOSA reference kernels: the graph lowered to TOSA as the
// VgfBackend receives it (lower_to_tosa, all nodes, natural layouts) and evaluated by
// spirv::run_on_reference on the CPU. The bit-exact oracle for graphs the VgfBackend runs,
// quantized int8 graphs above all (the Python binding univk._univk.tosa_reference).
//
// Thread-safety: a pure function of its arguments.
#pragma once

#include <span>
#include <vector>

#include "univk/base/status.h"
#include "univk/compiler/graph.h"
#include "univk/tensor/tensor.h"

namespace univk::compiler {

// The graph's outputs for `inputs` (one per graph input, in order). Unsupported when a node has
// no TOSA lowering; errors name the TOSA operator that failed.
Result<std::vector<HostTensor>> run_on_tosa_reference(const Graph& graph, std::span<const HostTensor> inputs);

}  // namespace univk::compiler
