// Checks of a whole Graph that compile_program runs before partitioning, so that a graph the
// runtime could not execute is refused at compile time with an error naming the value or node.
// Pure data; the caller owns the graph.
#pragma once

#include "univk/base/status.h"
#include "univk/compiler/graph.h"

namespace univk::compiler::detail {

// InvalidArgument when
//  - an input, constant or node result has a zero-size shape (a dim of 0): no backend and no
//    program value supports empty tensors;
//  - a node's declared result shape differs from the shape its op computes from its inputs
//    (reference::infer_op_shape), or the op's rule refuses its input shapes or attributes.
// Nodes whose op has no shape rule are left to the partitioner, which refuses ops nobody runs.
Status check_graph(const Graph& graph);

}  // namespace univk::compiler::detail
