// Internal: lowering of graph IR nodes (PyTorch semantics, NCHW) to TOSA 1.0 operators (NHWC).
//
// Layout: every IR value may exist in the TOSA graph in two layouts, "natural" (PyTorch's
// dimension order) and, for rank-4 values, NHWC. Layout-sensitive operators (pools,
// convolutions) read NHWC; shape operators (reshape, permute, matmul) read natural values; the
// others work in whichever layout their operands already have. A TRANSPOSE is added, once per
// value and layout, only where a value is needed in a layout it does not exist in yet. Partition
// inputs and outputs come in the layout the caller gives (layouts.h); a natural one next to an
// NHWC operator costs an explicit TRANSPOSE at the VGF boundary.
//
// Constants: IR constants (and tensors derived from them at compile time, e.g. transposed
// weights) become inline SPIR-V constants up to kMaxInlineConstantElements elements and graph
// constants (VGF constants section) above that.
//
// Ownership: the TosaLowering borrows the Graph (which must outlive it) and owns the TosaGraph
// it builds.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "permute.h"
#include "univk/base/status.h"
#include "univk/compiler/graph.h"
#include "univk/compiler/layouts.h"
#include "univk/ops/torch_ops.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::compiler::detail {

inline constexpr int64_t kMaxInlineConstantElements = 16;
// Longest cumsum line the VgfBackend takes: its triangular matrix holds length^2 floats (4 MiB).
inline constexpr int64_t kMaxCumsumLength = 1024;

using Layout = TensorLayout;

// A PyTorch conv2d weight [OC, C/groups, KH, KW] as TOSA takes it, with the operator that
// reads it: CONV2D's OHWI for groups == 1, DEPTHWISE_CONV2D's HWCM when each of the `ic` input
// channels is its own group; Unsupported (naming `what`) for other groupings.
struct TosaConvWeight {
  HostTensor weight;
  spirv::TosaOp op;
};
Result<TosaConvWeight> tosa_conv_weight(const HostTensor& oihw, int64_t groups, int64_t ic, int64_t oc, int64_t kh,
                                        int64_t kw, const std::string& what);

class TosaLowering {
 public:
  explicit TosaLowering(const Graph& graph) : graph_(graph) {}

  // Declares `value` as graph input number `binding` (set 0), in `layout` (NHWC: rank 4 only).
  void add_input(ValueId value, uint32_t binding, Layout layout = Layout::kNatural);
  // Lowers one node (its inputs must be inputs, constants or lowered nodes).
  Status lower_node(const Node& node);
  // Makes `value` a graph output at `binding` of set 0, in `layout` (NHWC: rank 4 only). An int64
  // value held as int32 inside the graph (an ARGMAX result) leaves it through a CAST to int64.
  Status add_output(ValueId value, uint32_t binding, Layout layout = Layout::kNatural);
  // NHWC when the value is rank 4 and already exists as NHWC, else natural.
  Layout preferred_layout(ValueId value) const;
  // The PyTorch operators lower_node takes (some only with certain attributes), sorted.
  static std::vector<std::string> lowered_ops();

  spirv::TosaGraph& tosa() { return tosa_; }

 private:
  using TosaId = spirv::ValueId;

  using LowerFn = Status (TosaLowering::*)(const Node&);
  static const std::map<std::string, LowerFn, std::less<>>& lowerings();

  // The TOSA value of an IR value in a layout (adding a TRANSPOSE or constant when needed).
  Result<TosaId> get(ValueId value, Layout layout);
  bool has(ValueId value, Layout layout) const;
  void set(ValueId value, Layout layout, TosaId id);

  // A constant tensor (fp32 or other dtype), inline or as a graph constant.
  TosaId constant(const HostTensor& tensor);
  TosaId scalar_constant(float value, size_t rank);

  TosaId op(spirv::TosaOp op, std::vector<TosaId> inputs, Attributes attrs, std::vector<int64_t> shape,
            DType dtype = DType::kFloat32);
  const std::vector<int64_t>& shape_of(TosaId id) const { return tosa_.values[id].type.shape; }
  TosaId transpose(TosaId input, const std::vector<int64_t>& perms);
  TosaId reshape(TosaId input, std::vector<int64_t> shape);

  // Operator families (tosa_lowering_ops.cc).
  Status lower_unary(const Node& node);
  Status lower_binary(const Node& node);
  Status lower_pool(const Node& node);
  Status lower_adaptive_avg_pool(const Node& node);
  Status lower_conv2d(const Node& node);
  // Transposed, grouped and 3-d convolutions (tosa_lowering_conv.cc).
  Status lower_conv_transpose2d(const Node& node);
  Status lower_conv3d(const Node& node);
  TosaId grouped_conv2d(TosaId nhwc, TosaId ohwi_weight, TosaId bias, int64_t groups, const Attributes& conv_attrs,
                        const std::vector<int64_t>& out_shape);
  Status lower_linear(const Node& node);
  Status lower_matmul(const Node& node);
  Status lower_reduce(const Node& node);
  Status lower_batch_norm(const Node& node);
  Status lower_reshape(const Node& node);
  Status lower_permute(const Node& node);
  Status lower_cat(const Node& node);
  Status lower_slice(const Node& node);
  // A SLICE of `length` elements of one axis from `start`.
  TosaId slice_axis(TosaId x, size_t axis, int64_t start, int64_t length);
  // A slice with step > 1 (r's start, step and length) of `axis` of x.
  TosaId strided_slice(TosaId x, size_t axis, const ops::Slice& r);
  Status lower_pad(const Node& node);
  Status lower_flip(const Node& node);
  Status lower_upsample(const Node& node);
  // Comparisons, logical operators and selection (tosa_lowering_logic.cc): bool operands and
  // results, so lower_node leaves their dtype checks to them.
  static bool is_logic_op(std::string_view op);
  Layout elementwise_layout(const Node& node) const;
  Status lower_compare(const Node& node);
  Status lower_logical(const Node& node);
  Status lower_where(const Node& node);
  Status lower_masked_fill(const Node& node);
  // The integer operators on int32 tensors (tosa_lowering_integer.cc); lower_node leaves their
  // dtype checks to them.
  static bool is_integer_op(std::string_view op);
  TosaId int32_constant(int32_t value, size_t rank);
  Status lower_integer(const Node& node);
  // index_select as GATHER (constant or int32 indices), argmax/argmin as ARGMAX and cumsum as a
  // MATMUL with a constant triangular matrix (tosa_lowering_index.cc).
  static bool is_index_op(std::string_view op);
  Status lower_index_select(const Node& node);
  Status lower_arg_reduce(const Node& node);
  Status lower_cumsum(const Node& node);
  // Decompositions (tosa_lowering_norm.cc).
  Status lower_softmax(const Node& node);
  Status lower_layer_norm(const Node& node);
  // Quantized int8 operators (tosa_lowering_quant.cc).
  Status lower_quantize(const Node& node);
  Status lower_dequantize(const Node& node);
  Status lower_quantized_conv2d(const Node& node);
  Status lower_quantized_linear(const Node& node);
  Status lower_requantize(const Node& node);
  Status lower_quantized_add(const Node& node);
  Status lower_quantized_mul(const Node& node);
  Status lower_quantized_table(const Node& node);
  // The node's fused ReLU and RESCALE of an int32 accumulator (channels last) to its int8 output.
  Result<TosaId> requantize(TosaId acc, const Node& node, double input_scale);

  // Elementwise helpers: an operand brought to the output's rank and layout.
  Result<TosaId> operand(ValueId value, size_t rank, Layout layout);
  Result<TosaId> apply_unary(const std::string& op, const Attributes& attrs, TosaId x,
                             const std::vector<int64_t>& shape);
  // Pool/convolution input in NHWC with the bottom/right padding adjusted so that TOSA's exact
  // output size rule gives `out_h`/`out_w` (cropping the input where PyTorch's floor drops rows).
  struct Window {
    int64_t kernel, stride, dilation, pad_before, pad_after;
  };
  Result<TosaId> fit_windows(TosaId nhwc, Window& h, Window& w, int64_t out_h, int64_t out_w);

  const Graph& graph_;
  spirv::TosaGraph tosa_;
  std::map<ValueId, TosaId> natural_;
  std::map<ValueId, TosaId> nhwc_;
  uint32_t next_graph_constant_ = 0;
};

}  // namespace univk::compiler::detail
