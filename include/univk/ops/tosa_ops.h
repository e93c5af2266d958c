// TOSA 1.0 operator semantics shared by their users, in one place: the window geometry of the
// pooling and convolution operators (NHWC: kernel, stride, pad, dilation, their validation and
// the spec's output-size rule, an exact division), the operand and result shapes of MATMUL and
// the reductions, and the attributes and result shapes of the data-movement operators (RESHAPE,
// TRANSPOSE, SLICE, PAD, TILE, CONCAT) and RESIZE. Used by the TOSA reference kernels
// (src/reference/tosa_tensor.cc, tosa_data.cc), the VgfBackend (dispatch emitters and view
// folding in src/backends/vgf) and the compiler's TOSA lowering, so a graph the oracle accepts is
// the graph the backend runs. Zero points, accumulator types and dtypes stay with their users.
// Pure functions; InvalidArgument naming the attribute (callers add the op name).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/shape.h"

namespace univk::ops {

// AVG_POOL2D, MAX_POOL2D: kernel and stride (2 values each, >= 1, required), pad [top, bottom,
// left, right] (>= 0, default 0s; TOSA requires each below the kernel) on an input [N,H,W,C].
struct TosaPool2d {
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1};
  int64_t pad[4] = {0, 0, 0, 0};
  int64_t out_h = 0, out_w = 0;
  Shape output;  // [N, out_h, out_w, C]
};
Result<TosaPool2d> tosa_pool2d(const Attributes& attrs, const Shape& input);

// CONV2D, DEPTHWISE_CONV2D windows: pad (4 values, >= 0, default 0s), stride and dilation (2
// values, >= 1, default 1s) for a kernel of kh x kw (from the weight) on an input [N,H,W,C].
struct TosaConv2d {
  int64_t pad[4] = {0, 0, 0, 0};
  int64_t stride[2] = {1, 1}, dilation[2] = {1, 1};
  int64_t out_h = 0, out_w = 0;
};
Result<TosaConv2d> tosa_conv2d(const Attributes& attrs, const Shape& input, int64_t kh, int64_t kw);

// TRANSPOSE_CONV2D: out_pad [top, bottom, left, right] (each > -kernel, default 0s; negative
// values crop the output) and stride (2 values, >= 1, default 1s) for a kernel of kh x kw on an
// input [N,H,W,C]; output row iy * stride + out_pad_top + ky takes input row iy through tap ky,
// and OH = (IH - 1) * stride + out_pad_top + out_pad_bottom + KH (likewise along W).
struct TosaTransposeConv2d {
  int64_t out_pad[4] = {0, 0, 0, 0};
  int64_t stride[2] = {1, 1};
  int64_t out_h = 0, out_w = 0;
};
Result<TosaTransposeConv2d> tosa_transpose_conv2d(const Attributes& attrs, const Shape& input, int64_t kh, int64_t kw);

// MATMUL: A [N,H,C] x B [N,C,W] -> [N,H,W].
Result<Shape> tosa_matmul(const Shape& a, const Shape& b);

// The `axis` attribute of REDUCE_*, ARGMAX and CONCAT: in [0, rank of `input`).
Result<int64_t> tosa_axis(const Attributes& attrs, const Shape& input);

// REDUCE_SUM, REDUCE_MAX (every REDUCE_*): the axis; the output keeps it with size 1.
// ARGMAX: the axis; the output drops it.
struct TosaReduce {
  int64_t axis = 0;
  Shape output;
};
Result<TosaReduce> tosa_reduce(const Attributes& attrs, const Shape& input);
Result<TosaReduce> tosa_argmax(const Attributes& attrs, const Shape& input);

// RESHAPE: `shape` (one -1 may stand for the remaining size), with the input's element count.
Result<Shape> tosa_reshape(const Attributes& attrs, const Shape& input);

// TRANSPOSE: perms, a permutation of [0, rank) (no negative values); output dim i is input dim
// perms[i].
struct TosaTranspose {
  std::vector<int64_t> perms;
  Shape output;
};
Result<TosaTranspose> tosa_transpose(const Attributes& attrs, const Shape& input);

// SLICE: start (>= 0) and size (>= 1), one each per dim, inside the input.
struct TosaSlice {
  std::vector<int64_t> start;
  Shape output;  // size
};
Result<TosaSlice> tosa_slice(const Attributes& attrs, const Shape& input);

// PAD: padding [before, after] per dim, each in [0, 2^31].
struct TosaPad {
  std::vector<int64_t> padding;
  Shape output;
};
Result<TosaPad> tosa_pad(const Attributes& attrs, const Shape& input);

// TILE: multiples, one per dim, each in [1, 2^31].
Result<Shape> tosa_tile(const Attributes& attrs, const Shape& input);

// CONCAT: axis in [0, rank); inputs of one rank with equal sizes off the axis.
struct TosaConcat {
  int64_t axis = 0;
  Shape output;
};
Result<TosaConcat> tosa_concat(const Attributes& attrs, std::span<const Shape> inputs);

// RESIZE on an input [N,IH,IW,C]: mode (1 NEAREST_NEIGHBOR, 2 BILINEAR), scale [y_n, y_d, x_n,
// x_d] (each >= 1, n <= 2^11, d < 16 n), offset [y, x] in [-n, 16 n), border [y, x] in [-16 n, n),
// and the spec's output size (OH-1) = ((IH-1) y_n - offset_y + border_y) / y_d, which must
// divide exactly (likewise OW).
struct TosaResize {
  int64_t mode = 1;
  int64_t scale[4] = {1, 1, 1, 1};
  int64_t offset[2] = {0, 0}, border[2] = {0, 0};
  Shape output;  // [N, OH, OW, C]
};
inline constexpr int64_t kTosaResizeNearest = 1, kTosaResizeBilinear = 2;
Result<TosaResize> tosa_resize(const Attributes& attrs, const Shape& input);

// RESCALE's scale32 multiplier and shift for a real scale > 0: apply_scale_32 computes
// round(value * multiplier * 2^-shift), so multiplier * 2^-shift is the closest such number to
// `scale` with multiplier in [2^30, 2^31) (31 significant bits) and shift in [2, 62]. Scales
// below 2^-32 keep shift 62 and fewer bits (multiplier may round to 0); scales of 2^29 and above
// and non-finite or non-positive ones are InvalidArgument.
struct TosaScale {
  int64_t multiplier = 0;
  int64_t shift = 0;
};
Result<TosaScale> tosa_scale32(double scale);

// CONV3D windows: pad [d_front, d_back, top, bottom, left, right] (>= 0, default 0s), stride
// and dilation (3 values, >= 1, default 1s) for a kernel of kd x kh x kw (from the weight
// [OC,KD,KH,KW,IC]) on an input [N,D,H,W,C]; each output size by the exact-division rule.
struct TosaConv3d {
  int64_t pad[6] = {0, 0, 0, 0, 0, 0};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t out_d = 0, out_h = 0, out_w = 0;
};
Result<TosaConv3d> tosa_conv3d(const Attributes& attrs, const Shape& input, int64_t kd, int64_t kh, int64_t kw);

// REVERSE: the axis, in [0, rank); the output has the input's shape.
Result<int64_t> tosa_reverse(const Attributes& attrs, const Shape& input);

// SCATTER: values_in [N,K,C], indices [N,W] (W <= K), input [N,W,C] -> values_out [N,K,C].
Result<Shape> tosa_scatter(const Shape& values_in, const Shape& indices, const Shape& input);

// FFT2D: input_real and input_imag [N,H,W] of one shape, H and W powers of two; both results
// have that shape. RFFT2D: input_real [N,H,W] (powers of two) -> two results [N,H,W/2+1].
Result<Shape> tosa_fft2d(const Shape& input_real, const Shape& input_imag);
Result<Shape> tosa_rfft2d(const Shape& input_real);

}  // namespace univk::ops
