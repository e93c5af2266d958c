// Lowering of a partition of the graph IR to a VgfBackend payload:
//   graph nodes (PyTorch semantics, NCHW) -> TOSA 1.0 operators (NHWC, with TRANSPOSE at the
//   boundary) -> SPIR-V graph module (SPV_ARM_graph) -> VGF file (one GRAPH segment).
//
// The VGF's interface is the partition's (subgraph_io): model input i is resource i, binding i of
// set 0, in PyTorch's NCHW order and shape, or [N,H,W,C] where BoundaryLayouts says NHWC (see
// layouts.h); outputs follow at bindings n_inputs + j. Constants
// above 16 elements are graph constants stored in the VGF constants section (graph constant id
// == constant table index); smaller ones are inlined in the SPIR-V.
//
// Ownership: the functions borrow the graph and return new values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/compiler/graph.h"
#include "univk/compiler/layouts.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::compiler {

// ok when the VgfBackend lowering handles `node` (op, attribute values, dtypes, constant
// weights); otherwise Unsupported/InvalidArgument saying what is not handled.
Status vgf_supports(const Graph& graph, const Node& node);

// Every PyTorch op name the VgfBackend lowering takes (for some attributes and dtypes), sorted.
std::vector<std::string> vgf_lowered_ops();

// The TOSA graph of `nodes` (graph order) with the interface `io` in `layouts`; when
// `output_layouts` is given it receives the layout each output was written in.
Result<spirv::TosaGraph> lower_to_tosa(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io,
                                       const BoundaryLayouts& layouts = {},
                                       std::vector<TensorLayout>* output_layouts = nullptr);

// The VGF file (format 0.4.3) of `nodes` with the interface `io`, all natural.
Result<std::vector<uint8_t>> lower_to_vgf(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io);

struct VgfPartition {
  std::vector<uint8_t> bytes;                // the VGF file
  std::vector<TensorLayout> output_layouts;  // per io.outputs
};
// The VGF file of `nodes` with the interface `io` in `layouts`.
Result<VgfPartition> lower_to_vgf(const Graph& graph, std::span<const NodeId> nodes, const SubgraphIO& io,
                                  const BoundaryLayouts& layouts);

}  // namespace univk::compiler
