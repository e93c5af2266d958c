// The partition of a program's methods, as text and as Graphviz: which instruction runs on which
// backend (or on the CPU), with which operators, and which values cross the delegate boundaries.
#pragma once

#include <string>
#include <vector>

#include "delegates.h"
#include "univk/runtime/program_desc.h"

namespace univk::dump {

// One line per instruction, the columns of Python's Program.summary():
//   0: VgfBackend: AVG_POOL2D, SIGMOID (from avg_pool2d, sigmoid)
//   1: cpu: softmax (from softmax)
// The operators are those stored in the program (TOSA operators for VgfBackend, run_op names
// for VulkanBackend and CPU kernels); "(from ...)" names the PyTorch nodes the instruction runs
// when the program has that debug metadata. A program with more than one method gets a
// "method NAME:" line before each method's lines.
std::string partition_summary(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates);

// A Graphviz digraph: one cluster per instruction (labelled "index: backend", coloured by
// backend) holding its operators with their dataflow, and the method values passed between
// instructions (program inputs and outputs included) as the edges across cluster boundaries.
std::string partition_dot(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates);

}  // namespace univk::dump
