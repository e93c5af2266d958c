// The compiler's entry point: partition a Graph across backends, lower each partition to its
// backend's payload and write a univk program (.uvk) with one method.
//
//   univk::compiler::Graph g;                       // built by hand or by the Python exporter
//   univk::compiler::CompileOptions options;
//   options.partition.order = {"VgfBackend", "VulkanBackend"};
//   options.partition.pins["sigmoid"] = "VulkanBackend";
//   UNIVK_ASSIGN_OR_RETURN(auto compiled, univk::compiler::compile_program(g, options));
//   UNIVK_RETURN_IF_ERROR(univk::write_file("model.uvk", compiled.bytes));
//
// Ownership: compile_program borrows the graph and returns new bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/compiler/graph.h"
#include "univk/compiler/partitioner.h"
#include "univk/runtime/program_desc.h"

namespace univk::compiler {

// The backends the compiler lowers to: VgfBackend (vgf_supports) and VulkanBackend
// (vulkan_supports).
std::vector<BackendClaim> builtin_claims();

struct CompileOptions {
  PartitionOptions partition;
  std::string method_name = "forward";
  // Debug metadata: node name -> where the source model defines it (the exporter passes the
  // PyTorch module and source line). Every instruction records the names of the nodes it runs,
  // with these locations, in the program (runtime::MethodDesc::sources).
  std::map<std::string, std::string> node_locations;
  // Metadata: program input/output value name -> the quantization of that int8 value (models
  // exported with quantized IO), recorded in the program (runtime::ValueDesc::quantization).
  std::map<std::string, runtime::QuantizationDesc> io_quantization;
};

// One instruction of the compiled method, for reports ("VgfBackend: avg_pool2d").
struct CompiledCall {
  std::string backend;             // backend id, or kCpuBackend for a CPU kernel call
  std::vector<std::string> nodes;  // node names, in order
  size_t payload_bytes = 0;
};

struct CompiledProgram {
  std::vector<uint8_t> bytes;  // the .uvk file
  PartitionResult partition;
  std::vector<CompiledCall> calls;  // in method order
};

// Before partitioning, the graph is checked (InvalidArgument naming the value or node): no
// zero-size tensors, and every node's declared result shape is the one its op computes.
Result<CompiledProgram> compile_program(const Graph& graph, const CompileOptions& options = {});

}  // namespace univk::compiler
