// Grouped convolutions written as TOSA 1.0 operators (TOSA has no grouped CONV2D): one fp32
// CONV2D per group over a SLICE of one input's channels, its weight and bias SLICEs of one
// [G*OCg, KH, KW, Cg] weight and one [G*OCg] bias, every result read once by one CONCAT along
// the channels in group order (the compiler's form, src/compiler/tosa_lowering_conv.cc). The
// VgfBackend runs such a pattern as ONE kernel-library convolution with `groups`, the CONCAT
// acting as the kernel's anchor (its epilogue takes the ADD and CLAMP after it). Pure data.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "univk/spirv/tosa_graph.h"

namespace univk::backends::vgf {

struct GroupedConv {
  size_t concat = 0;          // the CONCAT operation
  std::vector<size_t> convs;  // its CONV2D operations, in group order
  // The whole values the groups slice: input [N,H,W,G*Cg], weight [G*OCg,KH,KW,Cg], bias [G*OCg].
  spirv::ValueId input = 0, weight = 0, bias = 0;
};

struct GroupedConvPlan {
  std::vector<GroupedConv> convs;
  std::vector<std::optional<size_t>> of_op;  // per operation: the grouped conv it is the CONCAT or a CONV2D of
  bool is_concat(size_t op) const { return of_op[op] && convs[*of_op[op]].concat == op; }
};

// `consumers[v]`: the operations reading value v; `is_output[v]`: v is a graph output.
GroupedConvPlan find_grouped_convs(const spirv::TosaGraph& graph, const std::vector<std::vector<size_t>>& consumers,
                                   const std::vector<bool>& is_output);

}  // namespace univk::backends::vgf
