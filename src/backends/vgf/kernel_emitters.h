// Kernel emitters: turn one lowered operation (or fused group) over resolved TensorViews into
// Kernels with their parameter words and specialization constants (layouts documented in
// each shader under shaders/). Pure data.
#pragma once

#include <vector>

#include "elementwise_program.h"
#include "kernel_plan.h"
#include "univk/base/status.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::backends::vgf {

Status check_perms(const std::vector<int64_t>& perms, size_t rank);

// Fused elementwise program over `inputs` (program input slots 0..3), broadcasting each input
// to the output shape.
// `dtype`: fp32, fp16 or int32 (the program's storage type).
Result<Kernel> emit_elementwise(DType dtype, const std::vector<TensorView>& inputs, const TensorView& output,
                                const EwProgram& program);
// AVG/MAX_POOL2D (fp32/fp16 with epilogue, int8 without): inputs[0] is the pool input, inputs[1..3] the epilogue inputs (slots 1..3).
Result<Kernel> emit_pool(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                         const TensorView& output, const EwProgram& epilogue);
// Element-for-element copy between two views of the same shape.
Result<Kernel> emit_copy(const TensorView& input, const TensorView& output);
// CONV2D, DEPTHWISE_CONV2D, MATMUL, REDUCE_SUM/MAX, ARGMAX (compute_emitters.cc).
Result<std::vector<Kernel>> emit_compute(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                                         const TensorView& output);
// Every operation that is not part of a fused group.
Result<std::vector<Kernel>> emit_kernels(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                                         const TensorView& output);

}  // namespace univk::backends::vgf
