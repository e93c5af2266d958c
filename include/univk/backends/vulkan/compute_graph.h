// The VulkanBackend payload: a serialized compute graph of PyTorch-semantics tensor operators.
//
// The compiler builds a ComputeGraph (values, operators in execution order, graph inputs and
// outputs), serializes it with serialize_compute_graph() and stores the bytes as the payload of
// a "VulkanBackend" delegate. The backend parses the bytes with parse_compute_graph(), which
// treats them as untrusted: every offset, index, dtype and size is checked.
//
// Op names and attribute names are those of univk::reference::run_op (docs/OPERATORS.md), e.g.
// "conv2d" {stride, padding, dilation, groups}, "add" {alpha, other, scalar_first}. Operator
// inputs are value ids in run_op order; optional tensors (conv2d bias, ...) are left out.
//
// Ownership: a ComputeGraph owns everything in it (constant bytes included). Nothing here
// touches Vulkan: the compiler links this without a device.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"

namespace univk::backends {

// The dtype and shape of one tensor.
struct ComputeTensorType {
  DType dtype = DType::kFloat32;
  Shape shape;
};

struct ComputeValue {
  DType dtype = DType::kFloat32;
  Shape shape;
  // Constant data (row-major, numel * dtype_size bytes) or empty for graph inputs and operator
  // results. A constant of zero elements is not a constant: it has no bytes to hold.
  std::vector<uint8_t> constant;
  bool is_constant() const { return !constant.empty(); }
};

struct ComputeOp {
  std::string name;  // run_op name, e.g. "conv2d"
  Attributes attrs;
  std::vector<uint32_t> inputs;   // value ids
  std::vector<uint32_t> outputs;  // value ids (every supported op has exactly one)
};

// Operators run in the order of `ops`; each op's inputs must be graph inputs, constants or
// outputs of earlier ops, and every value is produced at most once.
struct ComputeGraph {
  std::vector<ComputeValue> values;
  std::vector<ComputeOp> ops;
  std::vector<uint32_t> inputs;   // value ids, in the DelegateCall's input order
  std::vector<uint32_t> outputs;  // value ids, in the DelegateCall's output order
};

// Checks the structure (ids in range, topological order, single producer, constant sizes,
// inputs are not constants or op results, outputs are defined). Operator semantics (attributes,
// shapes) are checked by the backend at init.
Status validate_compute_graph(const ComputeGraph& graph);

// FlatBuffers bytes (schema src/backends/vulkan/compute_graph.fbs, file identifier "UVKG").
// Validates the graph first.
Result<std::vector<uint8_t>> serialize_compute_graph(const ComputeGraph& graph);
// Verifies the FlatBuffer and every index and size, then validate_compute_graph.
// InvalidArgument naming the field on any problem; never reads out of bounds.
Result<ComputeGraph> parse_compute_graph(std::span<const uint8_t> bytes);

// What the partitioner asks: does the VulkanBackend run `op` with these attributes on inputs of
// these types? ok, or Unsupported/InvalidArgument with the reason (unknown op, non-fp32 dtype,
// bad attribute, shape limits). On success `output` (when given) receives the result type.
Status vulkan_backend_check(std::string_view op, const Attributes& attrs, std::span<const ComputeTensorType> inputs,
                            ComputeTensorType* output = nullptr);
bool vulkan_backend_supports(std::string_view op, const Attributes& attrs, std::span<const ComputeTensorType> inputs);
// Every op name the backend knows, sorted.
std::vector<std::string> vulkan_backend_ops();

}  // namespace univk::backends
