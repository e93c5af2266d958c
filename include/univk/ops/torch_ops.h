// The meaning of univk's PyTorch-semantics operators (the run_op names of docs/OPERATORS.md), in
// one place: for every operator, its attributes parsed into a struct with PyTorch's defaults,
// their validation against the input shapes, and the output-shape rule with the derived
// geometry (pool windows, convolution padding, matmul dims, reduced dims...) a kernel needs.
//
// Users: the CPU reference kernels (src/reference), reference::infer_op_shape (the compiler's
// graph checks), the VulkanBackend lowering (src/backends/vulkan/lowering_*.cc) and the
// PyTorch->TOSA lowering (src/compiler/tosa_lowering_ops.cc). A backend adds only what it
// cannot do (dtypes, ranks, sizes its shaders index); it never re-parses an attribute.
//
// Conventions: each resolver takes the op's attributes and its tensor input shapes (optional
// tensors such as a bias are left out of `inputs`) and returns InvalidArgument naming the
// attribute or input when they contradict the op. Messages do not repeat the op name: callers
// add it as context (infer_shape does, as do run_op and the lowerings). Pure functions,
// thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/shape.h"

namespace univk::ops {

using Shapes = std::span<const Shape>;

// ---- Limits --------------------------------------------------------------------------------

// Upper bound of kernel_size, stride, padding and dilation values (attributes come from
// untrusted programs): window arithmetic on int64 cannot overflow below it. The TOSA reference
// kernels apply the same bound to kernel/stride/pad/dilation.
inline constexpr int64_t kMaxWindowAttr = int64_t{1} << 31;

// ---- Shared rules --------------------------------------------------------------------------

// InvalidArgument unless min <= count <= max ("takes 1..3 tensor inputs, got 4").
Status check_input_count(size_t count, size_t min, size_t max);

// PyTorch dim wrapping: dim in [-rank, rank) (rank 0 behaves as rank 1); InvalidArgument naming
// the attribute otherwise.
Result<int64_t> wrap_dim(int64_t dim, int64_t rank, const std::string& name);

// Strides (in elements) of contiguous `in` broadcast, right-aligned, to `out`: 0 on broadcast
// dims.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out);

// PyTorch's pooling output size for one spatial dim (input `in`, kernel `k`, stride `s`,
// padding `p`, dilation `d`), with the ceil_mode rule that the last window must start inside
// the input or the left padding. InvalidArgument when the result is not positive.
Result<int64_t> pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);

// Checks `perm` is a permutation of [0, rank), after wrapping negatives PyTorch-style when
// allow_negative (TOSA's perms do not wrap); returns it wrapped.
Result<std::vector<int64_t>> check_permutation(std::vector<int64_t> perm, int64_t rank, const std::string& name,
                                               bool allow_negative = true);

// Resolves a reshape target with at most one -1 against `numel`.
Result<Shape> infer_reshape(const std::vector<int64_t>& dims, int64_t numel, const std::string& name);

// ---- Elementwise ---------------------------------------------------------------------------

// sigmoid tanh relu relu6 hardtanh clamp gelu silu hardswish hardsigmoid exp log neg abs sqrt
// rsqrt reciprocal. `min`/`max` are the clamp bounds of relu6 (0, 6), hardtanh (min_val/max_val,
// default -1/1) and clamp (min/max, at least one given; infinite where absent); infinite for the
// other ops (relu is max(x, 0), NaN passing through).
struct Unary {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool gelu_tanh = false;  // gelu approximate="tanh"
  Shape output;
};
Result<Unary> unary(std::string_view op, const Attributes& attrs, Shapes inputs);
std::span<const std::string_view> unary_op_names();

// add sub mul div maximum minimum pow: two broadcast tensors, or one tensor and the scalar
// attribute `other` (right operand unless scalar_first=1). alpha (add, sub only) scales the
// right operand.
struct Binary {
  double alpha = 1.0;
  bool has_scalar = false;  // one tensor input and `other`
  double other = 0.0;
  bool scalar_first = false;
  Shape output;
};
Result<Binary> binary(std::string_view op, const Attributes& attrs, Shapes inputs);
std::span<const std::string_view> binary_op_names();

// ---- Pooling and convolution (NCHW or unbatched CHW) ---------------------------------------

// Input [..., H, W] of a 3-d or 4-d spatial op as planes of H x W.
struct Planes {
  std::vector<int64_t> prefix;  // N,C or C
  int64_t count = 1;            // product of prefix
  int64_t h = 0, w = 0;
};
Result<Planes> planes_of(const Shape& input);

// avg_pool2d, max_pool2d. stride=[] or absent means stride = kernel_size; dilation is
// max_pool2d's only; count_include_pad (default 1) and divisor_override (0 = none) avg_pool2d's.
struct Pool2d {
  bool is_max = false;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
  Planes in;
  int64_t out_h = 0, out_w = 0;
  Shape output;
};
Result<Pool2d> pool2d(std::string_view op, const Attributes& attrs, Shapes inputs);

// adaptive_avg_pool2d and adaptive_max_pool2d (output_size, positive; any size, divisible or
// not, smaller or larger than the input). Window y covers [floor(y*H/OH), ceil((y+1)*H/OH)).
struct AdaptiveAvgPool2d {
  Planes in;
  int64_t out_h = 0, out_w = 0;
  Shape output;
};
Result<AdaptiveAvgPool2d> adaptive_avg_pool2d(const Attributes& attrs, Shapes inputs);

// upsample_nearest2d and upsample_bilinear2d (F.interpolate) on [N,C,H,W] or [C,H,W]:
// output_size (positive), optional scales ([h, w] scale factors as ATen received them, each > 0;
// absent or 0: none) and, bilinear only, align_corners (0). `scale` is the input step per output
// step exactly as PyTorch computes it in fp32: align_corners: (in-1)/(out-1) (0 when out is 1);
// otherwise 1/scale_factor when one was given, else in/out. Nearest reads
// min(floor(dst*scale), in-1) (dst/2 when out = 2*in); bilinear samples at scale*dst
// (align_corners) or max(scale*(dst+0.5)-0.5, 0).
struct Upsample2d {
  bool bilinear = false;
  bool align_corners = false;
  Planes in;
  int64_t out_h = 0, out_w = 0;
  float scale_h = 0, scale_w = 0;
  Shape output;
};
Result<Upsample2d> upsample2d(std::string_view op, const Attributes& attrs, Shapes inputs);

// conv2d: inputs x [N,C,H,W] or [C,H,W], weight [OC, C/groups, KH, KW], optional bias [OC].
// padding is ints or "valid"/"same" ("same" needs stride 1 and may pad one more after than
// before, as in PyTorch).
struct Conv2d {
  bool batched = true;
  int64_t n = 1, c = 0, h = 0, w = 0;       // input
  int64_t oc = 0, icg = 0, kh = 0, kw = 0;  // weight
  int64_t groups = 1;
  int64_t stride[2] = {1, 1}, dilation[2] = {1, 1};
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  bool has_bias = false;
  int64_t out_h = 0, out_w = 0;
  Shape output;
};
Result<Conv2d> conv2d(const Attributes& attrs, Shapes inputs);

// conv_transpose2d: inputs x [N,C,H,W] or [C,H,W], weight [C, OC/groups, KH, KW], optional bias
// [OC]. stride, padding, output_padding (each < stride or < dilation, as PyTorch requires),
// dilation, groups. out = (in-1)*stride - 2*padding + dilation*(k-1) + output_padding + 1.
// Output (y, x) of channel f gathers input (iy, ix) of f's group where
// y + padding - i*dilation = iy*stride for kernel row i (likewise for x).
struct ConvTranspose2d {
  bool batched = true;
  int64_t n = 1, c = 0, h = 0, w = 0;  // input
  int64_t oc = 0, ocg = 0, kh = 0, kw = 0;
  int64_t groups = 1;
  int64_t stride[2] = {1, 1}, padding[2] = {0, 0}, output_padding[2] = {0, 0}, dilation[2] = {1, 1};
  bool has_bias = false;
  int64_t out_h = 0, out_w = 0;
  Shape output;
};
Result<ConvTranspose2d> conv_transpose2d(const Attributes& attrs, Shapes inputs);

// ---- Matrix products -----------------------------------------------------------------------

// linear: x [..., in_features], weight [out_features, in_features], optional bias [out_features].
struct Linear {
  int64_t in_features = 0, out_features = 0;
  bool has_bias = false;
  Shape output;
};
Result<Linear> linear(const Attributes& attrs, Shapes inputs);

// matmul (1-d operands promoted: a gets a leading 1, b a trailing 1, both removed from the
// result; batch dims broadcast) and bmm (two 3-d tensors with equal batch).
struct Matmul {
  Shape a_batch, b_batch, batch;  // batch dims of a and b (after promotion) and their broadcast
  int64_t m = 1, k = 1, n = 1;
  Shape output;
};
Result<Matmul> matmul(const Attributes& attrs, Shapes inputs);
Result<Matmul> bmm(const Attributes& attrs, Shapes inputs);

// addmm: beta * bias + alpha * (mat1 @ mat2); bias broadcasts to [M, N].
struct Addmm {
  double alpha = 1.0, beta = 1.0;
  Matmul product;  // mat1 @ mat2 (no batch dims)
  Shape output;
};
Result<Addmm> addmm(const Attributes& attrs, Shapes inputs);

// ---- Normalisation and reductions ----------------------------------------------------------

// softmax, log_softmax over `dim` (required): the input split into [outer, size, inner].
struct Softmax {
  int64_t dim = 0;
  int64_t outer = 1, size = 1, inner = 1;
  Shape output;
};
Result<Softmax> softmax(const Attributes& attrs, Shapes inputs);

// sum, mean over `dim` (a list; absent or empty: every dim), keepdim.
struct Reduce {
  std::vector<int64_t> dims;  // reduced dims, wrapped, in the attribute's order (all when absent)
  std::vector<bool> reduced;  // per input dim
  bool keepdim = false;
  int64_t count = 1;  // elements reduced into each output element
  Shape output;
};
Result<Reduce> reduce(const Attributes& attrs, Shapes inputs);

// layer_norm: normalized_shape a suffix of the input shape; optional weight and bias of that
// shape; eps (default 1e-5).
struct LayerNorm {
  std::vector<int64_t> normalized_shape;
  double eps = 1e-5;
  int64_t rows = 0, inner = 1;
  Shape output;
};
Result<LayerNorm> layer_norm(const Attributes& attrs, Shapes inputs);

// batch_norm (inference): x [N, C, ...], weight, bias, running_mean, running_var all [C].
struct BatchNorm {
  double eps = 1e-5;
  int64_t outer = 1, channels = 1, inner = 1;
  Shape output;
};
Result<BatchNorm> batch_norm(const Attributes& attrs, Shapes inputs);

// ---- Shape operators -----------------------------------------------------------------------

// permute (dims) and transpose (dim0, dim1) as a permutation: output dim i is input dim perm[i].
struct Permutation {
  std::vector<int64_t> perm;
  Shape output;
};
Result<Permutation> permute(const Attributes& attrs, Shapes inputs);
Result<Permutation> transpose(const Attributes& attrs, Shapes inputs);

// cat along `dim` (default 0): same rank, equal sizes outside dim.
struct Cat {
  int64_t dim = 0;
  Shape output;
};
Result<Cat> cat(const Attributes& attrs, Shapes inputs);

// slice (dim, start, end, step): negative indices count from the end, then both are clamped to
// [0, size]; step must be positive.
struct Slice {
  int64_t dim = 0;
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;  // elements selected along dim
  Shape output;
};
Result<Slice> slice(const Attributes& attrs, Shapes inputs);

// pad (pad, mode, value) as F.pad: `pad` holds (before, after) pairs starting from the last
// dim, at most one pair per dim, each >= 0 (negative padding crops and is refused). mode is
// "constant" (default; fills `value`, default 0), "reflect" (mirrors without repeating the edge:
// each pad < that dim's size) or "replicate" (repeats the edge; dims must be non-empty).
enum class PadMode : uint32_t { kConstant = 0, kReflect = 1, kReplicate = 2 };
struct Pad {
  PadMode mode = PadMode::kConstant;
  double value = 0.0;
  std::vector<int64_t> before, after;  // one per dim, in dim order
  Shape output;
};
Result<Pad> pad(const Attributes& attrs, Shapes inputs);

// view/reshape (shape), flatten (start_dim, end_dim), squeeze (dim optional), unsqueeze (dim),
// contiguous: the output shape of these data-preserving ops.
Result<Shape> reshape(const Attributes& attrs, Shapes inputs);
Result<Shape> flatten(const Attributes& attrs, Shapes inputs);
Result<Shape> squeeze(const Attributes& attrs, Shapes inputs);
Result<Shape> unsqueeze(const Attributes& attrs, Shapes inputs);
Result<Shape> contiguous(const Attributes& attrs, Shapes inputs);

// ---- Every operator ------------------------------------------------------------------------

// The result shape of `op` from its input shapes and attributes: the resolver's `output`,
// with errors prefixed by the op name. Unsupported for an op univk does not know.
Result<Shape> infer_shape(std::string_view op, const Attributes& attrs, Shapes inputs);
bool is_known_op(std::string_view op);
std::vector<std::string> known_ops();  // sorted

}  // namespace univk::ops
