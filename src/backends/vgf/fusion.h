// Elementwise fusion of a TOSA graph: chains of elementwise operators, optionally behind an
// AVG/MAX_POOL2D (the anchor), become one group that runs as one dispatch of an elementwise
// program (elementwise_program.h). A value joins its consumer's group only when that consumer is
// its only reader, it is not a graph output, the shapes and storage types match and the program
// still fits the shader's input slots. Pure data.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "elementwise_program.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/tensor/dtype.h"

namespace univk::backends::vgf {

struct FusionGroup {
  std::optional<size_t> anchor;  // pool operation index
  std::vector<size_t> ops;       // elementwise operations, topological order
  spirv::ValueId output = 0;
  bool is_int = false;
  DType dtype = DType::kFloat32;  // storage type of every value in the group
};

struct FusionPlan {
  std::vector<FusionGroup> groups;
  std::vector<std::optional<size_t>> group_of_op;  // per operation: its group, if any
};

// `consumers[v]`: the operations reading value v; `is_output[v]`: v is a graph output.
FusionPlan form_fusion_groups(const spirv::TosaGraph& graph, const std::vector<std::vector<size_t>>& consumers,
                              const std::vector<bool>& is_output);

// The program of a group, with scalar constants as immediates where the program has room
// (`immediates`) or all through input slots; fills `inputs` with the values read through input
// slots (slot 0 is the pool input when the group has an anchor). nullopt when it does not fit.
std::optional<EwProgram> fusion_group_program(const spirv::TosaGraph& graph, const FusionGroup& group,
                                              std::vector<spirv::ValueId>* inputs, bool immediates);

}  // namespace univk::backends::vgf
