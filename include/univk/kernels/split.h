// Large operands: a problem of the kernel library whose operand ranges exceed what one
// descriptor may cover (maxStorageBufferRange, or a backend's `max_binding_bytes` option) is cut
// into pieces, each a smaller problem of the same kernel whose every operand range fits:
//   GEMM: along the batch, the rows (M) and the columns (N);
//   conv2d: along the batch, whole groups, and output channels within one group;
//   conv_transpose2d: along the batch and whole groups.
// K is never split (each piece's epilogue sees its whole sum), so one row of A or one column of
// B (a GEMM), or one image's input channels of a group (a convolution) must fit on its own.
//
// A piece's operand offsets are relative to its windows: the backend binds element window i of
// operand binding i (counted from the element the whole problem's binding i starts at), aligned
// down to its descriptor alignment, and adds the alignment slack to the piece's offsets
// (add_binding_offsets). The fit counts that slack (DeviceTraits::binding_alignment), assuming
// the backend's operand bindings start aligned (the backends check the bound sizes again). Pieces
// write disjoint parts of the output, in any order. Every piece's element indices stay within
// its window, so operands past 2^32 elements are addressable once split.
//
// Pure data; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "univk/base/status.h"
#include "univk/kernels/problem.h"

namespace univk::kernels {

// Operand bindings of the GEMM-shaped kernels: input/A, weight/B, bias, output, residual.
inline constexpr uint32_t kOperandBindings = 5;

// Elements [begin, end) of an operand binding.
struct ElementWindow {
  uint64_t begin = 0, end = 0;
  friend bool operator==(const ElementWindow&, const ElementWindow&) = default;
};

struct ProblemPiece {
  Problem problem;  // operand offsets relative to its windows' begins
  // Per operand binding; a binding the piece does not read is one element at the begin of the
  // whole problem's binding (bound only because every binding needs a buffer).
  std::array<ElementWindow, kOperandBindings> windows;
};

// More pieces than this means the binding limit is absurdly small for the problem.
inline constexpr size_t kMaxPieces = 4096;

// The pieces of `problem` under device.max_binding_bytes (one piece, with the operands' own
// windows, when it fits whole). Unsupported naming the operand when one row (column) of it alone
// exceeds the limit, or when more than kMaxPieces pieces would be needed; InvalidArgument for
// no problem.
Result<std::vector<ProblemPiece>> split_problem(const Problem& problem, const DeviceTraits& device);

// A piece planned for the device.
struct KernelPiece {
  KernelDispatch dispatch;
  std::array<ElementWindow, kOperandBindings> windows;
};
// split_problem, then plan() of every piece.
Result<std::vector<KernelPiece>> plan_pieces(const Problem& problem, const DeviceTraits& device);

}  // namespace univk::kernels
