#include "univk/kernels/split.h"

#include <algorithm>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>

namespace univk::kernels {
namespace {

// A problem seen as three split axes (GEMM: batch, rows, columns; conv2d: batch, groups,
// output channels within a group) and five operands, each spanning
//   1 + sum over axes (chunk - 1) * axis_stride + sum over fixed dims (extent - 1) * stride
// elements for a piece of `chunk` along each axis: the span does not depend on where the piece
// starts, so one piece shape fits everywhere.
constexpr int kAxes = 3;
using Chunk = std::array<int64_t, kAxes>;

struct Operand {
  const char* name = "";
  bool used = false;
  uint64_t base = 0;  // the whole problem's element offset
  std::array<int64_t, kAxes> axis_stride = {0, 0, 0};
  std::vector<std::pair<int64_t, int64_t>> fixed;  // (extent, stride) of the dims no piece cuts
  uint64_t elem_bytes = sizeof(float);
};

struct Layout {
  const char* kernel = "";
  Chunk extent;
  std::array<Operand, kOperandBindings> operands;
  // conv2d: part of a group's channels only when the piece holds one group (axis 1 is 1).
  bool last_axis_within_one = false;
  int64_t round_to = 1;  // preferred multiple of the row/column chunks (GEMM tiles)
};

// Elements a piece of `chunk` spans in `o` (saturated at 2^62 to stay exact below it).
uint64_t span(const Operand& o, const Chunk& chunk) {
  constexpr uint64_t kCap = uint64_t{1} << 62;
  uint64_t n = 1;
  auto add = [&](int64_t extent, int64_t stride) {
    const uint64_t steps = static_cast<uint64_t>(std::max<int64_t>(extent, 1) - 1);
    const uint64_t s = static_cast<uint64_t>(stride);
    n = (s != 0 && steps > (kCap - n) / s) ? kCap : n + steps * s;
  };
  for (int a = 0; a < kAxes; ++a) add(chunk[a], o.axis_stride[a]);
  for (auto [extent, stride] : o.fixed) add(extent, stride);
  return n;
}

// Bytes a descriptor covers for a span: its elements plus the slack of an aligned-down start.
// Bindings start aligned (split.h), so there is none when the whole problem's offset and every
// axis step are multiples of the alignment; else the worst case.
uint64_t bound_bytes(const Operand& o, const Chunk& chunk, const DeviceTraits& device) {
  const uint64_t align = std::max<uint64_t>(device.binding_alignment, 4);
  bool aligned = o.base * o.elem_bytes % align == 0;
  for (int64_t s : o.axis_stride) aligned = aligned && static_cast<uint64_t>(s) * o.elem_bytes % align == 0;
  return span(o, chunk) * o.elem_bytes + (aligned ? 0 : align - o.elem_bytes);
}

bool fits(const Operand& o, const Chunk& chunk, const DeviceTraits& device) {
  return !o.used || bound_bytes(o, chunk, device) <= device.max_binding_bytes;
}

// Largest value of chunk[a] in [1, chunk[a]] with `o` fitting (1 when none does).
int64_t largest_fitting(const Operand& o, Chunk chunk, int a, const DeviceTraits& device) {
  int64_t lo = 1, hi = chunk[a];
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    chunk[a] = mid;
    if (fits(o, chunk, device)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

Status check_strides(const Layout& layout) {
  for (const Operand& o : layout.operands) {
    if (!o.used) continue;
    bool negative = false;
    for (int64_t s : o.axis_stride) negative |= s < 0;
    for (auto [extent, stride] : o.fixed) negative |= stride < 0 || extent < 0;
    if (negative) return unsupported(std::string(layout.kernel) + " " + o.name + " has a negative stride");
  }
  return ok_status();
}

// The piece shape: each operand that does not fit shrinks the axes it spans, outermost first.
Result<Chunk> choose_chunk(const Layout& layout, const DeviceTraits& device) {
  Chunk chunk = layout.extent;
  for (const Operand& o : layout.operands) {
    for (int a = 0; a < kAxes && !fits(o, chunk, device); ++a) {
      if (o.axis_stride[a] == 0) continue;
      if (a == kAxes - 1 && layout.last_axis_within_one) {
        chunk[1] = 1;
        if (fits(o, chunk, device)) break;
      }
      chunk[a] = largest_fitting(o, chunk, a, device);
    }
    if (!fits(o, chunk, device)) {
      Chunk one = chunk;
      for (int a = 0; a < kAxes; ++a) one[a] = o.axis_stride[a] == 0 ? chunk[a] : 1;
      return unsupported(std::string(layout.kernel) + " " + o.name + ": the smallest piece spans " +
                         std::to_string(bound_bytes(o, one, device)) + " bytes, over the binding limit of " +
                         std::to_string(device.max_binding_bytes) +
                         " bytes (maxStorageBufferRange, or the max_binding_bytes option); its reduction is not "
                         "split");
    }
  }
  // Balanced pieces: the fewest the chunk allows, evened out; rows and columns rounded up to a
  // multiple of the tile where that still fits, so only the last piece has partial tiles.
  uint64_t pieces = 1;
  for (int a = 0; a < kAxes; ++a) {
    const int64_t count = (layout.extent[a] + chunk[a] - 1) / chunk[a];
    pieces *= static_cast<uint64_t>(count);
    if (pieces > kMaxPieces) {
      return unsupported(std::string(layout.kernel) + " would need more than " + std::to_string(kMaxPieces) +
                         " dispatches to fit the binding limit of " + std::to_string(device.max_binding_bytes) +
                         " bytes");
    }
    int64_t even = (layout.extent[a] + count - 1) / count;
    const int64_t rounded = (even + layout.round_to - 1) / layout.round_to * layout.round_to;
    if (a > 0 && rounded <= chunk[a]) even = rounded;
    chunk[a] = even;
  }
  return chunk;
}

ElementWindow window_of(const Operand& o, const Chunk& start, const Chunk& chunk) {
  if (!o.used) return {0, 1};
  uint64_t begin = o.base;
  for (int a = 0; a < kAxes; ++a) begin += static_cast<uint64_t>(start[a]) * static_cast<uint64_t>(o.axis_stride[a]);
  return {begin, begin + span(o, chunk)};
}

Layout gemm_layout(const GemmProblem& p) {
  Layout l;
  l.kernel = "gemm";
  l.extent = {p.batch, p.m, p.n};
  l.round_to = 64;
  const int64_t k = std::max<int64_t>(p.k, 1);
  l.operands[0] = {"A", true, p.a.offset, {p.a.batch, p.a.row, 0}, {{k, p.a.col}}};
  l.operands[1] = {"B", true, p.b.offset, {p.b.batch, 0, p.b.col}, {{k, p.b.row}}};
  l.operands[2] = {"bias", p.epilogue.bias, p.bias.offset, {p.bias.batch, p.bias.row, p.bias.col}, {}};
  l.operands[3] = {"out", true, p.out.offset, {p.out.batch, p.out.row, p.out.col}, {}};
  l.operands[4] = {"residual", p.epilogue.residual, p.residual_offset, {p.out.batch, p.out.row, p.out.col}, {}};
  return l;
}

Layout conv_layout(const Conv2dProblem& p) {
  const int64_t icg = p.in_channels / p.groups, ocg = p.out_channels / p.groups;
  const int64_t taps = p.kernel_h * p.kernel_w;
  Layout l;
  l.kernel = "conv2d";
  l.extent = {p.batch, p.groups, ocg};
  l.last_axis_within_one = true;
  l.operands[0] = {"input",
                   true,
                   p.input_offset,
                   {p.input.n, icg * p.input.c, 0},
                   {{icg, p.input.c}, {p.in_h, p.input.h}, {p.in_w, p.input.w}}};
  l.operands[1] = {
      "weight", true, p.weight_offset, {0, ocg * p.weight.oc, p.weight.oc}, {{icg, p.weight.ic}, {taps, p.weight.tap}}};
  const int64_t bias_stride = p.bias_broadcast ? 0 : 1;
  l.operands[2] = {"bias", p.epilogue.bias, p.bias_offset, {0, ocg * bias_stride, bias_stride}, {}};
  const std::array<int64_t, kAxes> out_axes = {p.output.n, ocg * p.output.c, p.output.c};
  const std::vector<std::pair<int64_t, int64_t>> out_fixed = {{p.out_h, p.output.h}, {p.out_w, p.output.w}};
  l.operands[3] = {"output", true, p.output_offset, out_axes, out_fixed};
  l.operands[4] = {"residual", p.epilogue.residual, p.residual_offset, out_axes, out_fixed};
  return l;
}

// Depthwise: input channel c feeds output channels c*M .. c*M+M-1, so pieces cut the batch and
// whole channels (with their multiplier block); the multiplier axis stays whole.
Layout depthwise_layout(const DepthwiseProblem& p) {
  const int64_t m = p.multiplier, taps = p.kernel_h * p.kernel_w;
  Layout l;
  l.kernel = "depthwise_conv2d";
  l.extent = {p.batch, p.channels, 1};
  l.operands[0] = {
      "input", true, p.input_offset, {p.input.n, p.input.c, 0}, {{p.in_h, p.input.h}, {p.in_w, p.input.w}}};
  l.operands[1] = {"weight", true, p.weight_offset, {0, m * p.weight.oc, 0}, {{m, p.weight.oc}, {taps, p.weight.tap}}};
  const int64_t bias_stride = p.bias_broadcast ? 0 : 1;
  l.operands[2] = {"bias", p.epilogue.bias, p.bias_offset, {0, m * bias_stride, 0}, {{m, bias_stride}}};
  const std::array<int64_t, kAxes> out_axes = {p.output.n, m * p.output.c, 0};
  const std::vector<std::pair<int64_t, int64_t>> out_fixed = {
      {m, p.output.c}, {p.out_h, p.output.h}, {p.out_w, p.output.w}};
  l.operands[3] = {"output", true, p.output_offset, out_axes, out_fixed};
  l.operands[4] = {"residual", p.epilogue.residual, p.residual_offset, out_axes, out_fixed};
  return l;
}

// Transposed convolution: pieces cut the batch and whole groups (a group's input channels feed
// all its output channels).
Layout conv_transpose_layout(const ConvTranspose2dProblem& p) {
  const int64_t icg = p.in_channels / p.groups, ocg = p.out_channels / p.groups;
  Layout l;
  l.kernel = "conv_transpose2d";
  l.extent = {p.batch, p.groups, 1};
  l.operands[0] = {"input",
                   true,
                   p.input_offset,
                   {p.input.n, icg * p.input.c, 0},
                   {{icg, p.input.c}, {p.in_h, p.input.h}, {p.in_w, p.input.w}}};
  l.operands[1] = {"weight",
                   true,
                   p.weight_offset,
                   {0, icg * p.weight.ic, 0},
                   {{icg, p.weight.ic}, {ocg, p.weight.oc}, {p.kernel_h * p.kernel_w, p.weight.tap}}};
  const int64_t bias_stride = p.bias_broadcast ? 0 : 1;
  l.operands[2] = {"bias", p.epilogue.bias, p.bias_offset, {0, ocg * bias_stride, 0}, {{ocg, bias_stride}}};
  l.operands[3] = {"output",
                   true,
                   p.output_offset,
                   {p.output.n, ocg * p.output.c, 0},
                   {{ocg, p.output.c}, {p.out_h, p.output.h}, {p.out_w, p.output.w}}};
  l.operands[4] = {"residual", false, 0, {0, 0, 0}, {}};
  return l;
}

// The int8 convolution: conv2d's layout with int8 input, weight (and output when requantized)
// and the requantization's multipliers and shifts in place of the residual.
Layout conv_i8_layout(const Conv2dI8Problem& p) {
  Layout l = conv_layout(p.conv);
  l.kernel = "int8 conv2d";
  l.operands[0].elem_bytes = l.operands[1].elem_bytes = 1;
  if (p.requantize) l.operands[3].elem_bytes = 1;
  const int64_t channels = p.requantize && p.requantize->per_channel ? p.conv.out_channels : 1;
  const int64_t after_shifts =
      (p.requantize && p.requantize->table ? 64 : 0) + (p.requantize && p.requantize->residual ? kResidualWords : 0);
  l.operands[4] = {"requantization",
                   p.requantize.has_value(),
                   p.requantize ? p.requantize->offset : 0,
                   {0, 0, 0},
                   {{2 * channels + after_shifts, 1}}};
  return l;
}

// Iterates the pieces of `extent` in `chunk` steps, batch-major.
template <typename Fn>
Status for_each_piece(const Chunk& extent, const Chunk& chunk, Fn&& fn) {
  for (int64_t i = 0; i < extent[0]; i += chunk[0]) {
    for (int64_t j = 0; j < extent[1]; j += chunk[1]) {
      for (int64_t k = 0; k < extent[2]; k += chunk[2]) {
        const Chunk start = {i, j, k};
        const Chunk size = {std::min(chunk[0], extent[0] - i), std::min(chunk[1], extent[1] - j),
                            std::min(chunk[2], extent[2] - k)};
        UNIVK_RETURN_IF_ERROR(fn(start, size));
      }
    }
  }
  return ok_status();
}

Result<std::vector<ProblemPiece>> split(const Layout& layout, const DeviceTraits& device,
                                        const std::function<Problem(const Chunk&)>& piece_problem) {
  UNIVK_RETURN_IF_ERROR(check_strides(layout));
  for (int64_t e : layout.extent) {
    if (e < 1) return invalid_argument(std::string(layout.kernel) + " with an empty output");
  }
  UNIVK_ASSIGN_OR_RETURN(const Chunk chunk, choose_chunk(layout, device));
  std::vector<ProblemPiece> pieces;
  UNIVK_RETURN_IF_ERROR(for_each_piece(layout.extent, chunk, [&](const Chunk& start, const Chunk& size) -> Status {
    ProblemPiece piece;
    piece.problem = piece_problem(size);
    for (uint32_t i = 0; i < kOperandBindings; ++i) piece.windows[i] = window_of(layout.operands[i], start, size);
    pieces.push_back(std::move(piece));
    return ok_status();
  }));
  return pieces;
}

}  // namespace

Result<std::vector<ProblemPiece>> split_problem(const Problem& problem, const DeviceTraits& device) {
  if (const auto* gemm = std::get_if<GemmProblem>(&problem)) {
    return split(gemm_layout(*gemm), device, [&](const Chunk& size) -> Problem {
      GemmProblem q = *gemm;
      q.batch = size[0], q.m = size[1], q.n = size[2];
      q.a.offset = q.b.offset = q.bias.offset = q.out.offset = q.residual_offset = 0;
      return q;
    });
  }
  if (const auto* conv = std::get_if<Conv2dProblem>(&problem)) {
    if (conv->groups < 1 || conv->in_channels % conv->groups != 0 || conv->out_channels % conv->groups != 0) {
      return plan(problem, device).status();  // the planner's own error
    }
    const int64_t icg = conv->in_channels / conv->groups;
    return split(conv_layout(*conv), device, [&](const Chunk& size) -> Problem {
      Conv2dProblem q = *conv;
      q.batch = size[0], q.groups = size[1];
      q.in_channels = size[1] * icg, q.out_channels = size[1] * size[2];
      q.input_offset = q.weight_offset = q.bias_offset = q.output_offset = q.residual_offset = 0;
      return q;
    });
  }
  if (const auto* dw = std::get_if<DepthwiseProblem>(&problem)) {
    return split(depthwise_layout(*dw), device, [&](const Chunk& size) -> Problem {
      DepthwiseProblem q = *dw;
      q.batch = size[0], q.channels = size[1];
      q.input_offset = q.weight_offset = q.bias_offset = q.output_offset = q.residual_offset = 0;
      return q;
    });
  }
  if (const auto* ct = std::get_if<ConvTranspose2dProblem>(&problem)) {
    if (ct->groups < 1 || ct->in_channels % ct->groups != 0 || ct->out_channels % ct->groups != 0) {
      return plan(problem, device).status();  // the planner's own error
    }
    return split(conv_transpose_layout(*ct), device, [&](const Chunk& size) -> Problem {
      ConvTranspose2dProblem q = *ct;
      q.batch = size[0], q.groups = size[1];
      q.in_channels = size[1] * (ct->in_channels / ct->groups);
      q.out_channels = size[1] * (ct->out_channels / ct->groups);
      q.input_offset = q.weight_offset = q.bias_offset = q.output_offset = 0;
      return q;
    });
  }
  if (const auto* i8 = std::get_if<Conv2dI8Problem>(&problem)) {
    const Conv2dProblem& conv = i8->conv;
    if (conv.groups < 1 || conv.in_channels % conv.groups != 0 || conv.out_channels % conv.groups != 0) {
      return plan(problem, device).status();  // the planner's own error
    }
    // Pieces would need windows of the per-channel multipliers and shifts: one piece only.
    UNIVK_ASSIGN_OR_RETURN(std::vector<ProblemPiece> pieces,
                           split(conv_i8_layout(*i8), device, [&](const Chunk&) -> Problem { return *i8; }));
    if (pieces.size() != 1) {
      return unsupported("int8 conv2d operands exceed one binding (" + std::to_string(pieces.size()) + " pieces)");
    }
    return pieces;
  }
  return invalid_argument("no kernel problem to split");
}

Result<std::vector<KernelPiece>> plan_pieces(const Problem& problem, const DeviceTraits& device) {
  UNIVK_ASSIGN_OR_RETURN(std::vector<ProblemPiece> pieces, split_problem(problem, device));
  std::vector<KernelPiece> planned;
  planned.reserve(pieces.size());
  for (ProblemPiece& piece : pieces) {
    UNIVK_ASSIGN_OR_RETURN(KernelDispatch d, plan(piece.problem, device));
    if (d.scratch_bytes > device.max_binding_bytes) {
      // Split-K's partial tiles are a binding of their own: without them the piece still fits.
      std::visit(
          [](auto& p) {
            using P = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<P, GemmProblem> || std::is_same_v<P, Conv2dProblem>) p.split_k = 1;
          },
          piece.problem);
      UNIVK_ASSIGN_OR_RETURN(d, plan(piece.problem, device));
    }
    planned.push_back({std::move(d), piece.windows});
  }
  return planned;
}

}  // namespace univk::kernels
