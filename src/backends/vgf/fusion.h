// Fusion of a TOSA graph, two passes. Epilogue chains (first): a kernel-library operator (fp32
// CONV2D, DEPTHWISE_CONV2D, MATMUL) takes the ADD and CLAMP after it into its kernel's
// epilogue; an int8 CONV2D or DEPTHWISE_CONV2D the CLAMP of its int32 result, the RESCALE to
// int8, the CLAMP of that and an int8 TABLE (its requantization and activation), then a residual
// add of that int8 result and another int8 tensor (a quantized add: RESCALEs to int32, ADD,
// CLAMP, RESCALE to int8, CLAMP). Elementwise groups (then, over the
// operators left): chains of elementwise operators, optionally behind an AVG/MAX_POOL2D (the anchor), become one group
// that runs as one dispatch of an elementwise program (elementwise_program.h). A value joins its consumer's chain or
// group only when that consumer is its only reader, it is not a graph output, the shapes and storage types match (and,
// for a group, the program still fits the shader's input slots). Pure data.
#pragma once

#include <cstddef>
#include <cstdint>
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

// A kernel-library operator and the operators its epilogue takes, in the kernels' order
// act(acc + bias + residual): an fp32 ADD of the anchor's result and another value (`addend`,
// the residual of a convolution, which must have the output's shape, or the bias of a MATMUL,
// broadcast to its output), then an fp32 CLAMP of the result (the activation). An int8
// anchor's chain: an int32 CLAMP of the accumulator (`clamp`, bounds acc_lo/acc_hi), a RESCALE
// of it to int8, an int8 CLAMP of the RESCALE's result (bounds out_lo/out_hi), an int8 TABLE
// with a constant table (`table`, its table value `table_value`); each optional, the last two
// only after a RESCALE. Then, after a RESCALE, a residual add (kernels::Residual): a RESCALE of
// the chain's int8 value to int32 (`y_rescale`; `requantized` is that value), a RESCALE of
// another int8 value of its shape (`skip`, by `skip_rescale`, whose result only the ADD reads),
// their int32 ADD (`residual_add`), an optional int32 CLAMP of the sum (`sum_clamp`, bounds
// sum_lo/sum_hi), a RESCALE of it to int8 (`sum_rescale`) and an optional int8 CLAMP of that
// (`residual_clamp`, bounds residual_lo/residual_hi); all or none of the three RESCALEs and
// the ADD.
struct EpilogueChain {
  size_t anchor = 0;
  bool int8 = false;  // an int8 anchor's chain
  std::optional<size_t> add;
  spirv::ValueId addend = 0;
  std::optional<size_t> clamp;
  float lo = 0.0f, hi = 0.0f;  // the CLAMP's bounds
  int32_t acc_lo = INT32_MIN, acc_hi = INT32_MAX;
  std::optional<size_t> rescale, rescale_clamp, table;
  int32_t out_lo = -128, out_hi = 127;
  spirv::ValueId table_value = 0;
  std::optional<size_t> y_rescale, skip_rescale, residual_add, sum_clamp, sum_rescale, residual_clamp;
  spirv::ValueId requantized = 0, skip = 0;
  int32_t sum_lo = INT32_MIN, sum_hi = INT32_MAX;
  int32_t residual_lo = -128, residual_hi = 127;
  spirv::ValueId output = 0;  // the chain's last value
  size_t last_op() const {
    for (const auto& op :
         {residual_clamp, sum_rescale, sum_clamp, residual_add, table, rescale_clamp, rescale, clamp, add})
      if (op) return *op;
    return anchor;
  }
  // The residual add's operations, in graph order.
  std::vector<size_t> residual_ops() const;
  // The chain without its residual add (ending at `requantized`).
  EpilogueChain without_residual() const;
};

struct EpiloguePlan {
  std::vector<EpilogueChain> chains;               // only those that take at least one operator
  std::vector<std::optional<size_t>> chain_of_op;  // per operation: its chain, if any
};

// `consumers[v]`: the operations reading value v; `is_output[v]`: v is a graph output;
// `grouped_anchor[i]`: operation i is the CONCAT of a grouped convolution (grouped_conv.h),
// which anchors a chain as a convolution does.
EpiloguePlan form_epilogue_chains(const spirv::TosaGraph& graph, const std::vector<std::vector<size_t>>& consumers,
                                  const std::vector<bool>& is_output, const std::vector<bool>& grouped_anchor);

// Elementwise groups over the operations that no epilogue chain took (`taken[i]`).
FusionPlan form_fusion_groups(const spirv::TosaGraph& graph, const std::vector<std::vector<size_t>>& consumers,
                              const std::vector<bool>& is_output, const std::vector<bool>& taken);

// The program of a group, with scalar constants as immediates where the program has room
// (`immediates`) or all through input slots; fills `inputs` with the values read through input
// slots (slot 0 is the pool input when the group has an anchor). nullopt when it does not fit.
std::optional<EwProgram> fusion_group_program(const spirv::TosaGraph& graph, const FusionGroup& group,
                                              std::vector<spirv::ValueId>* inputs, bool immediates);

}  // namespace univk::backends::vgf
