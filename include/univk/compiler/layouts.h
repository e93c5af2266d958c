// Layouts of the tensors passed between delegate calls.
//
// Every IR value has PyTorch's dimension order ("natural", NCHW for rank 4). The VgfBackend's
// TOSA graphs compute in NHWC, so a rank-4 value that one VGF partition produces and another
// reads would cross the boundary as NCHW and pay a TRANSPOSE on each side. plan_layouts decides
// instead which boundary values travel in NHWC memory order (their program value then has the
// permuted shape [N, H, W, C]):
//  - program inputs and outputs, and values a CPU kernel reads, stay natural;
//  - a VulkanBackend partition runs in NHWC when every node is layout-agnostic (elementwise, see
//    layout_agnostic) and each of its boundary values may travel in NHWC; it then reads and
//    writes every boundary value in NHWC (constants are permuted at compile time);
//  - a rank-4 float32 value a VGF partition produces may travel in NHWC when every partition
//    that reads it is a VGF partition or an NHWC VulkanBackend partition. It must when one of its
//    readers is an NHWC VulkanBackend partition; otherwise it does exactly when the producer's
//    TOSA graph holds it in NHWC (so a value that ends natural, e.g. after a reshape, stays so).
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "univk/base/status.h"
#include "univk/compiler/graph.h"
#include "univk/compiler/partitioner.h"

namespace univk::compiler {

// The memory order of one boundary tensor.
enum class TensorLayout : uint8_t { kNatural, kNhwc };

// What the producing partition writes for one of its outputs.
enum class OutputLayout : uint8_t {
  kNatural,
  kNhwc,
  kNhwcIfProduced,  // NHWC when the producer's graph holds the value in NHWC, else natural
};

// The layouts of one partition's interface (subgraph_io order); empty vectors mean all natural.
struct BoundaryLayouts {
  std::vector<TensorLayout> inputs;
  std::vector<OutputLayout> outputs;
};

struct LayoutPlan {
  std::vector<bool> nhwc_partition;      // per partition: a VulkanBackend partition lowered in NHWC
  std::vector<OutputLayout> value_rule;  // per graph value: its producer's rule
};

// True when `node` computes the same values in any common dimension order of its operands: a
// unary or binary elementwise operator whose non-constant operands and result have rank 4
// (constants of lower rank are broadcast from the right, so they are brought to rank 4 first).
bool layout_agnostic(const Graph& graph, const Node& node);

LayoutPlan plan_layouts(const Graph& graph, const PartitionResult& partition);

}  // namespace univk::compiler
