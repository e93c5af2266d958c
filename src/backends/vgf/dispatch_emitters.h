// Emitters: turn one lowered operation (or fused group) over resolved TensorViews into
// Dispatches with their parameter words and specialization constants (layouts documented in
// each shader under shaders/). Pure data. One file per family: copy_emitters.cc,
// elementwise_emitters.cc, pool_emitters.cc, compute_emitters.cc; shared helpers in
// emitter_internal.h.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "elementwise_program.h"
#include "dispatch_plan.h"
#include "univk/base/status.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::backends::vgf {

// InvalidArgument unless the declared output shape is the one the operator's rule (univk_ops'
// tosa_ops.h) computes.
Status check_declared_output(const char* op, const Shape& computed, const TensorView& output);

// The iteration space of an elementwise dispatch or plain copy in memory order. Returns the
// output's view first, then each input's, all with one shape (inputs broadcast through stride
// 0): dims ordered by descending output stride, size-1 dims dropped, and neighbouring dims
// merged where they are contiguous for every view. An NCHW tensor seen through an NHWC
// TRANSPOSE, read and written in place, comes back as one packed dim.
Result<std::vector<TensorView>> canonical_iteration(const TensorView& output, const std::vector<TensorView>& inputs);

// Every emitter below returns several dispatches when a view would exceed `limit` (the binding
// limit of one descriptor): the work is split along its outermost iteration dim into slices
// (views with offsets), and Unsupported names the sizes when even one row does not fit.

// Fused elementwise program over `inputs` (program input slots 0..3), broadcasting each input
// to the output shape, over the canonical iteration space (linear MODE when one packed dim
// is left for every operand).
// `dtype`: fp32, fp16 or int32 (the program's storage type).
Result<std::vector<Dispatch>> emit_elementwise(DType dtype, const std::vector<TensorView>& inputs,
                                               const TensorView& output, const EwProgram& program,
                                               const BindingLimit& limit);
// AVG/MAX_POOL2D (fp32/fp16 with epilogue, int8 without): inputs[0] is the pool input,
// inputs[1..3] the epilogue inputs (slots 1..3). Iterates (n, c, oy, ox) when the output's W
// stride is below its C stride (NCHW memory), else (n, oy, ox, c). Splits along N, then OH.
Result<std::vector<Dispatch>> emit_pool(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                                        const TensorView& output, const EwProgram& epilogue, const BindingLimit& limit);
// Element-for-element copy between two views of the same shape.
Result<std::vector<Dispatch>> emit_copy(const TensorView& input, const TensorView& output, const BindingLimit& limit);
// CONV2D, DEPTHWISE_CONV2D, MATMUL, REDUCE_SUM/MAX, ARGMAX, CAST, RESCALE, TABLE
// (compute_emitters.cc), one dispatch over the given views (emit_dispatches splits CONV2D,
// DEPTHWISE_CONV2D and MATMUL along the batch, CAST and TABLE along dim 0).
Result<std::vector<Dispatch>> emit_compute(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                                           const TensorView& output);
// A grouped convolution (grouped_conv.h) as one kernel-library dispatch with `groups`: `group`
// is one of its CONV2D operations (attributes and window), `inputs` the whole input
// [N,H,W,G*Cg], weight [G*OCg,KH,KW,Cg] and bias [G*OCg], `output` the whole [N,OH,OW,G*OCg].
Result<std::vector<Dispatch>> emit_grouped_conv(const spirv::TosaOperation& group, int64_t groups,
                                                const std::vector<TensorView>& inputs, const TensorView& output);
// What a kernel-library dispatch's epilogue takes over from the operators after it
// (fusion.h's EpilogueChain): an addend (a convolution's residual or a MATMUL's bias) and a
// clamp {lo, hi} as its activation; for an int8 convolution, a clamp of its int32 accumulator
// and the requantization to int8 (kernels::Requantize, offset 0) with its multipliers and
// shifts (`requantize_params`, an int32 view), writing `requantized_output` (the int8 view the
// dispatch then writes; the convolution was emitted over that view typed int32), with a
// residual add (Requantize::residual) of `skip` (an int8 view of the output's shape).
struct KernelEpilogue {
  std::optional<TensorView> addend;
  std::optional<std::pair<float, float>> clamp;
  std::optional<std::pair<int32_t, int32_t>> int_clamp;
  std::optional<kernels::Requantize> requantize;
  std::optional<TensorView> requantize_params;
  std::optional<TensorView> requantized_output;
  std::optional<TensorView> skip;
};

// A RESCALE's attributes, checked against its input and output types (emit_rescale's rules).
struct RescaleParams {
  bool double_round = false, per_channel = false, input_unsigned = false, output_unsigned = false;
  int64_t input_zp = 0, output_zp = 0;
  std::vector<int64_t> multiplier, shift;  // one each, or one per channel (the last dim)
};
Result<RescaleParams> rescale_params(const spirv::TosaOperation& op, const TensorView& in, const TensorView& out);
// Applies `epilogue` to `k`, one kernel-library dispatch of CONV2D, DEPTHWISE_CONV2D or
// MATMUL (emit_compute's, unsplit), and returns true; false, leaving `k` unchanged, when the
// kernel cannot take it: a convolution's residual must have the output's shape and strides
// (the kernels read it through the output's), a MATMUL's bias must broadcast to the output;
// an int8 convolution takes only the int clamp and the requantization (with its params and
// int8 output view, and a residual's skip view, input 4).
// The dispatch is then labelled by its caller and planned for the device again.
bool fuse_kernel_epilogue(Dispatch& k, const KernelEpilogue& epilogue);
// SCATTER (32-bit values, int32 indices): a copy of values_in into `output`, then one dispatch
// writing the indexed rows of input (fp_profile_emitters.cc).
Result<std::vector<Dispatch>> emit_scatter(const std::vector<TensorView>& inputs, const TensorView& output,
                                           const BindingLimit& limit);
// CONV3D (fp32, weight [OC,KD,KH,KW,IC]) as one direct-convolution dispatch.
Result<Dispatch> emit_conv3d(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                             const TensorView& output);
// FFT2D (inputs real, imaginary) and RFFT2D (input real), fp32: one direct-DFT dispatch writing
// both results (outputs[0] real, outputs[1] imaginary).
Result<Dispatch> emit_dft(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                          const std::vector<TensorView>& outputs);
// Every operation that is not part of a fused group.
Result<std::vector<Dispatch>> emit_dispatches(const spirv::TosaOperation& op, const std::vector<TensorView>& inputs,
                                              const TensorView& output, const BindingLimit& limit);
// Unsupported naming the largest view's binding bytes and the limit (`what`: the operator).
Status binding_limit_error(const std::vector<TensorView>& views, const BindingLimit& limit, const std::string& what);

}  // namespace univk::backends::vgf
